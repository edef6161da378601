import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/adapters/sqlite/sqlite-store.js';
import type { Store } from '../../src/ports/engine/index.js';
import { createShow, unwrapOk } from './sqlite-fixtures.js';

/**
 * Guards that back each other up on SQLite: each is checked here with the other one out of the
 * way (the state a bug or a concurrent writer elsewhere could leave), so removing either alone
 * turns a test red. The state is bent through a second connection to the same file. The seat's
 * AVAILABLE condition and the one-live-claim index are checked on every store in
 * test/contract/storage-guards.test.ts.
 */
let dir: string;
let store: Store;
let raw: Database.Database;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ticketrush-guards-'));
  store = openSqliteStore({ filename: join(dir, 'store.db') });
  raw = new Database(join(dir, 'store.db'));
  await createShow(store, 'shw', {
    sections: [
      { id: 'A', name: 'Stalls', kind: 'SEATED', rows: 2, seatsPerRow: 4, priceCents: 5000, sellBy: 'SEAT', accessible: [] },
      { id: 'GA', name: 'Standing', kind: 'GENERAL_ADMISSION', capacity: 10, priceCents: 4000 },
    ],
  });
  for (const userId of ['u1', 'u2', 'a1', 'a2']) {
    await store.insertUser({ userId, username: userId, passwordHash: 'h', role: userId.startsWith('a') ? 'ADMIN' : 'BUYER', createdAt: 0 });
  }
});
afterEach(async () => {
  raw.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const claim = (holdId: string, userId: string) => ({ holdId, showId: 'shw', userId, now: 1, expiresAt: 1_000, userUnitsMax: 10 });

it('gives a hold back once, even when its row is moved back to ACTIVE (claim flags cleared by the give-back)', async () => {
  const units = unwrapOk(await store.claimUnits({ ...claim('h1', 'u1'), sectionId: 'GA', quantity: 3 }));
  unwrapOk(await store.claimUnits({ ...claim('h2', 'u1'), sectionId: 'GA', quantity: 2 }));
  unwrapOk(await store.lapseHold({ holdId: 'h1', event: 'RELEASE', expectedExpiresAt: units.hold.expiresAt, now: 2 }));
  raw.prepare("UPDATE holds SET status = 'ACTIVE' WHERE hold_id = 'h1'").run();
  unwrapOk(await store.lapseHold({ holdId: 'h1', event: 'RELEASE', expectedExpiresAt: units.hold.expiresAt, now: 3 }));
  const audit = await store.audit('shw');
  expect(audit?.sections.find((s) => s.sectionId === 'GA')?.available).toBe(8);
  expect(audit?.userUnits).toEqual([{ userId: 'u1', units: 2 }]);
});

it('keeps one admin when two admins demote each other at once (LAST_ADMIN counted inside the operation)', async () => {
  const outcomes = await Promise.all([
    store.setRole({ userId: 'a1', expectedRole: 'ADMIN', role: 'BUYER' }),
    store.setRole({ userId: 'a2', expectedRole: 'ADMIN', role: 'BUYER' }),
  ]);
  expect(outcomes.filter((o) => o.ok)).toHaveLength(1);
  expect(outcomes.find((o) => !o.ok)).toEqual({ ok: false, code: 'LAST_ADMIN' });
  expect(await store.setRole({ userId: 'u1', expectedRole: 'ADMIN', role: 'STAFF' })).toEqual({ ok: false, stale: 'user' });
  expect(await store.setRole({ userId: 'nobody', expectedRole: 'ADMIN', role: 'STAFF' })).toEqual({ ok: false, code: 'USER_NOT_FOUND' });
});

it('refuses operations past its queue bound at once as busy, and runs the ones it accepted', async () => {
  const small = openSqliteStore({ filename: join(dir, 'small.db'), pendingMax: 3 });
  try {
    const calls = Array.from({ length: 5 }, (_, i) => small.insertUser({ userId: `q${i}`, username: `q${i}`, passwordHash: 'h', role: 'BUYER', createdAt: 0 }));
    const settled = await Promise.allSettled(calls);
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'rejected']);
    expect(settled[3]).toMatchObject({ reason: { name: 'StoreBusyError' } });
    expect(await small.getUser('q2')).not.toBeNull();
  } finally {
    await small.close();
  }
});
