import { usernameKey } from '../../domain/username.js';
import type { IdempotencyStore, UserStore } from '../../ports/engine/index.js';
import { appendAuditEntry } from './change-log.js';
import { unexpected, type PgDb } from './db.js';
import { toIdempotency, toUser, type IdempotencyRow, type UserRow } from './rows.js';

export function pgUsers(db: PgDb): UserStore {
  return {
    async getUser(userId) {
      const { rows } = await db.query<UserRow>('SELECT * FROM users WHERE user_id = $1', [userId]);
      return rows[0] === undefined ? null : toUser(rows[0]);
    },
    // A range of users_by_key_bytes (byte order, so the range is exactly the keys with the prefix).
    async listUsers({ keyPrefix, limit, offset }) {
      const { rows } = await db.query<UserRow>(
        `SELECT * FROM users WHERE (username_key COLLATE "C") >= $1 AND (username_key COLLATE "C") < $2
         ORDER BY username_key COLLATE "C" LIMIT $3 OFFSET $4`, [keyPrefix, `${keyPrefix}\u{10FFFF}`, limit, offset]);
      return rows.map(toUser);
    },
    async findUserByUsername(username) {
      const { rows } = await db.query<UserRow>(
        'SELECT * FROM users WHERE username = $1 OR username_key = $2 ORDER BY (username = $1) DESC LIMIT 1', [username, usernameKey(username)]);
      return rows[0] === undefined ? null : toUser(rows[0]);
    },
    // One INSERT; the unique indexes on username and username_key refuse a taken name (23505),
    // whichever transaction commits first, so no isolation beyond READ COMMITTED is needed.
    async insertUser(user) {
      const result = await db.tx('insertUser', (c) => c.query(
        'INSERT INTO users (user_id, username, username_key, password_hash, role, created_at) VALUES ($1, $2, $3, $4, $5, $6)',
        [user.userId, user.username, usernameKey(user.username), user.passwordHash, user.role, user.createdAt]));
      if (result.ok) return { ok: true };
      if (result.kind === 'unique' && result.constraint !== 'users_pkey') return { ok: false, code: 'USERNAME_TAKEN' };
      return unexpected('insertUser', result);
    },
    // READ COMMITTED with row locks: the ADMIN rows and the target are locked (in user-id order,
    // so two demotions never deadlock) before counting. Two admins demoting each other: the second
    // waits for the first's locks, then re-reads the rows it waited for (PostgreSQL re-checks
    // `role = 'ADMIN'` on the newest version), counts one admin left, and answers LAST_ADMIN.
    // A plain count under READ COMMITTED would let both see 2 and leave no admin.
    async setRole(input) {
      const result = await db.tx('setRole', async (c) => {
        const { rows } = await c.query<UserRow>(
          "SELECT * FROM users WHERE role = 'ADMIN' OR user_id = $1 ORDER BY user_id COLLATE \"C\" FOR UPDATE", [input.userId]);
        const target = rows.find((r) => r.user_id === input.userId);
        if (target === undefined) return { ok: false, code: 'USER_NOT_FOUND' } as const;
        if (target.role !== input.expectedRole) return { ok: false, stale: 'user' } as const;
        if (target.role === 'ADMIN' && input.role !== 'ADMIN' && rows.filter((r) => r.role === 'ADMIN').length < 2) {
          return { ok: false, code: 'LAST_ADMIN' } as const;
        }
        const updated = await c.query<UserRow>('UPDATE users SET role = $2 WHERE user_id = $1 RETURNING *', [input.userId, input.role]);
        await appendAuditEntry(c, input.audit);
        return { ok: true, user: toUser(updated.rows[0] as UserRow) } as const;
      });
      return result.ok ? result.value : unexpected('setRole', result);
    },
    async setPasswordHash(userId, passwordHash) {
      const result = await db.tx('setPasswordHash', (c) => c.query('UPDATE users SET password_hash = $2 WHERE user_id = $1', [userId, passwordHash]));
      return result.ok ? result.value.rowCount === 1 : unexpected('setPasswordHash', result);
    },
  };
}

export function pgIdempotency(db: PgDb): IdempotencyStore {
  return {
    async getKey(scope, key) {
      const { rows } = await db.query<IdempotencyRow>('SELECT * FROM idempotency_keys WHERE scope = $1 AND key = $2', [scope, key]);
      return rows[0] === undefined ? null : toIdempotency(rows[0]);
    },
    // ON CONFLICT DO NOTHING on the primary key (scope, key): of two requests with one key exactly
    // one inserts; the other (after the first commits, PostgreSQL waits on the uncommitted key)
    // gets no row back and reads the winner's record. A record deleted in between (its writer
    // gave up) makes us try again, a bounded number of times.
    async beginKey(record) {
      for (let attempt = 0; attempt < 3; attempt++) {
        const result = await db.tx('beginKey', async (c) => {
          const inserted = await c.query(
            `INSERT INTO idempotency_keys (scope, key, request_hash, state, outcome, response_body, created_at)
             VALUES ($1, $2, $3, 'IN_FLIGHT', NULL, NULL, $4) ON CONFLICT (scope, key) DO NOTHING`,
            [record.scope, record.key, record.requestHash, record.createdAt]);
          if (inserted.rowCount === 1) return null;
          const { rows } = await c.query<IdempotencyRow>('SELECT * FROM idempotency_keys WHERE scope = $1 AND key = $2', [record.scope, record.key]);
          return rows[0] === undefined ? 'again' : toIdempotency(rows[0]);
        });
        if (!result.ok) return unexpected('beginKey', result);
        if (result.value === null) return { ok: true };
        if (result.value !== 'again') return { ok: false, code: 'KEY_EXISTS', record: result.value };
      }
      throw new Error(`beginKey: key ${record.scope}/${record.key} keeps appearing and vanishing`);
    },
    // Conditional on this request's record (created_at) still being IN_FLIGHT: one statement.
    async completeKey(input) {
      const result = await db.tx('completeKey', (c) => c.query(
        `UPDATE idempotency_keys SET state = 'DONE', outcome = $4, response_body = $5
         WHERE scope = $1 AND key = $2 AND created_at = $3 AND state = 'IN_FLIGHT'`,
        [input.scope, input.key, input.createdAt, input.outcome, input.responseBody]));
      return result.ok ? result.value.rowCount === 1 : unexpected('completeKey', result);
    },
    async removeKey(claim) {
      const result = await db.tx('removeKey', (c) => c.query(
        'DELETE FROM idempotency_keys WHERE scope = $1 AND key = $2 AND created_at = $3', [claim.scope, claim.key, claim.createdAt]));
      return result.ok ? result.value.rowCount === 1 : unexpected('removeKey', result);
    },
  };
}

