import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openSqliteStoreThread } from '../../src/adapters/sqlite/store-thread.js';
import { StoreBusyError, type Store } from '../../src/ports/engine/index.js';

/**
 * The embedded store on its own thread (the default: TICKETRUSH_SQLITE_THREAD=on) is a transport
 * over the same store: every suite that opens the store through configuration runs on it. Here,
 * what the transport itself must keep: answers matched to their calls in a burst, refusals and
 * errors that keep their kind across the thread, and a clean end.
 */
let dir: string;
let store: Store | null;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ticketrush-thread-'));
  store = null;
});
afterEach(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

const user = (i: number) => ({ userId: `u${i}`, username: `user${i}`, passwordHash: 'h', role: 'BUYER' as const, createdAt: i });

it('answers each of a burst of calls made in one turn with its own result', async () => {
  store = await openSqliteStoreThread({ filename: join(dir, 'store.db') });
  const s = store;
  const inserted = await Promise.all(Array.from({ length: 300 }, (_, i) => s.insertUser(user(i))));
  expect(inserted.every((r) => r.ok)).toBe(true);
  const read = await Promise.all(Array.from({ length: 300 }, (_, i) => s.getUser(`u${299 - i}`)));
  expect(read.map((u) => u?.username)).toEqual(Array.from({ length: 300 }, (_, i) => `user${299 - i}`));
  // A typed refusal comes back as data: the second insert of a name.
  expect(await s.insertUser({ ...user(0), userId: 'other' })).toMatchObject({ ok: false });
});

it('keeps a refusal for being busy a StoreBusyError across the thread (the edge answers 503 BUSY)', async () => {
  // One operation may wait for its batch: a burst of writes is refused beyond it.
  store = await openSqliteStoreThread({ filename: join(dir, 'store.db'), pendingMax: 1 });
  const s = store;
  const settled = await Promise.allSettled(Array.from({ length: 50 }, (_, i) => s.insertUser(user(i))));
  const refused = settled.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
  expect(refused.length).toBeGreaterThan(0);
  for (const error of refused) {
    expect(error).toBeInstanceOf(StoreBusyError);
    expect((error as StoreBusyError).operation).toBe('insertUser');
  }
});

it('fails to open with the store\'s own error, and refuses calls once closed', async () => {
  writeFileSync(join(dir, 'a-file'), 'not a directory');
  await expect(openSqliteStoreThread({ filename: join(dir, 'a-file', 'store.db') })).rejects.toThrow(/EEXIST|ENOTDIR|directory/);
  const opened = await openSqliteStoreThread({ filename: join(dir, 'store.db') });
  await opened.insertUser(user(1));
  // Two closes at once (a stop racing a signal): both wait for the one close, neither fails.
  expect((await Promise.allSettled([opened.close(), opened.close()])).map((r) => r.status)).toEqual(['fulfilled', 'fulfilled']);
  await expect(opened.getUser('u1')).rejects.toThrow(/closed/);
});
