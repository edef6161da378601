import type { Database as Db } from 'better-sqlite3';
import type { User } from '../../domain/index.js';
import { usernameKey } from '../../domain/username.js';
import type { InsertUserOutcome, SetRoleInput, SetRoleOutcome, UserStore } from '../../ports/engine/index.js';
import { sqliteChangeLogWriter } from './change-log.js';
import type { GroupCommit } from './group-commit.js';
import * as records from './records.js';

export function sqliteUsers(db: Db, gc: GroupCommit): UserStore {
  const auditLog = sqliteChangeLogWriter(db);
  const q = {
    byId: db.prepare('SELECT * FROM users WHERE user_id = ?'),
    // The exact spelling first: two accounts that differ only in case predate migration v3, and
    // each must still find its own; otherwise the one account whose key matches.
    byName: db.prepare('SELECT * FROM users WHERE username = @name OR username_key = @key ORDER BY username = @name DESC LIMIT 1'),
    // No conflict target: a taken username or a taken username key both refuse the insert.
    insert: db.prepare(`INSERT INTO users (user_id, username, username_key, password_hash, role, created_at)
      VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`),
    admins: db.prepare("SELECT count(*) AS n FROM users WHERE role = 'ADMIN'"),
    setRole: db.prepare('UPDATE users SET role = ? WHERE user_id = ? AND role = ? RETURNING *'),
    setHash: db.prepare('UPDATE users SET password_hash = ? WHERE user_id = ?'),
    // A range of the unique index on the key (BINARY order): every key that starts with the prefix.
    list: db.prepare('SELECT * FROM users WHERE username_key >= ? AND username_key < ? ORDER BY username_key LIMIT ? OFFSET ?'),
  };
  const user = (row: records.UserRow | undefined): User | null => (row === undefined ? null : records.toUser(row));
  return {
    getUser: async (userId) => user(q.byId.get(userId) as records.UserRow | undefined),
    findUserByUsername: async (name) => user(q.byName.get({ name, key: usernameKey(name) }) as records.UserRow | undefined),
    insertUser: (u: User) =>
      gc.write('insertUser', (): InsertUserOutcome =>
        q.insert.run(u.userId, u.username, usernameKey(u.username), u.passwordHash, u.role, u.createdAt).changes === 1
          ? { ok: true }
          : { ok: false, code: 'USERNAME_TAKEN' }),
    setRole: (input: SetRoleInput) =>
      gc.write('setRole', (): SetRoleOutcome => {
        const current = q.byId.get(input.userId) as records.UserRow | undefined;
        if (current === undefined) return { ok: false, code: 'USER_NOT_FOUND' };
        if (current.role !== input.expectedRole) return { ok: false, stale: 'user' };
        // Counted under the unit's write lock: two demotions cannot both see two admins.
        if (current.role === 'ADMIN' && input.role !== 'ADMIN' && (q.admins.get() as { n: number }).n < 2) return { ok: false, code: 'LAST_ADMIN' };
        const row = q.setRole.get(input.role, input.userId, input.expectedRole) as records.UserRow | undefined;
        if (row === undefined) return { ok: false, stale: 'user' };
        auditLog.append(input.audit);
        return { ok: true, user: records.toUser(row) };
      }),
    listUsers: async ({ keyPrefix, limit, offset }) =>
      (q.list.all(keyPrefix, `${keyPrefix}\u{10FFFF}`, limit, offset) as records.UserRow[]).map(records.toUser),
    setPasswordHash: (userId, hash) => gc.write('setPasswordHash', () => q.setHash.run(hash, userId).changes === 1),
  };
}
