import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, expect, it } from 'vitest';
import { migrations } from '../../src/adapters/sqlite/migrations.js';
import { openSqliteStore } from '../../src/adapters/sqlite/sqlite-store.js';
import { seatLimitOf } from '../../src/domain/index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

it('gives a show stored before per-buyer limits no limit of its own, so the configured default applies', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ticketrush-migrate-'));
  dirs.push(dir);
  const file = join(dir, 'ticketrush.db');
  const old = new Database(file);
  for (const step of migrations.slice(0, 2)) if (typeof step === 'string') old.exec(step);
  old.pragma('user_version = 2');
  old.prepare(`INSERT INTO shows (show_id, title, venue, city, starts_at, sale_starts_at, sale_ends_at, seat_map, capacity, created_at)
    VALUES ('shw_old', 'Old', 'Hall', 'Town', 3, 1, 2, '{"sections":[]}', 400, 0)`).run();
  old.close();

  const store = openSqliteStore({ filename: file });
  try {
    const show = await store.getShow('shw_old');
    expect(show?.maxSeatsPerUser).toBeNull();
    expect(show === null ? null : seatLimitOf(show, 10)).toBe(10);
    expect(await store.audit('shw_old')).toMatchObject({ userUnits: [], sections: [] });
  } finally {
    await store.close();
  }
});
