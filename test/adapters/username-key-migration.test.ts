import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, expect, it } from 'vitest';
import { migrations } from '../../src/adapters/sqlite/migrations.js';
import { openSqliteStore } from '../../src/adapters/sqlite/sqlite-store.js';

/** A database made before usernames were keyed (v2) migrates, even with names that now collide. */
const dir = mkdtempSync(join(tmpdir(), 'ticketrush-migrate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('backfills username keys on an existing database, keeps each old account reachable, and refuses new look-alikes', async () => {
  const file = join(dir, 'ticketrush.db');
  const old = new Database(file);
  for (const step of migrations.slice(0, 2)) old.exec(step as string);
  old.pragma('user_version = 2');
  const insert = old.prepare("INSERT INTO users (user_id, username, password_hash, role, created_at) VALUES (?, ?, 'h', 'BUYER', ?)");
  insert.run('u1', 'root', 1);
  insert.run('u2', 'Root', 2);
  insert.run('u3', 'Bob', 3);
  old.close();

  const store = openSqliteStore({ filename: file });
  try {
    const find = async (name: string) => (await store.findUserByUsername(name))?.userId ?? null;
    expect(await find('root')).toBe('u1');
    expect(await find('Root')).toBe('u2');
    expect(await find('ROOT')).toBe('u1');
    expect(await find('bob')).toBe('u3');
    expect(await find('ＢＯＢ')).toBe('u3');
    const user = { userId: 'u4', username: 'BOB', passwordHash: 'h', role: 'BUYER' as const, createdAt: 4 };
    expect(await store.insertUser(user)).toEqual({ ok: false, code: 'USERNAME_TAKEN' });
    expect(await store.insertUser({ ...user, username: 'carol' })).toEqual({ ok: true });
  } finally {
    await store.close();
  }
  const migrated = new Database(file, { readonly: true });
  expect(migrated.pragma('user_version', { simple: true })).toBe(migrations.length);
  migrated.close();
});
