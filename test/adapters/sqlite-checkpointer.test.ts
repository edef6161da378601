import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/adapters/sqlite/sqlite-store.js';
import { createShow } from './sqlite-fixtures.js';

// Issue 14: the WAL is copied into the database file by a thread of its own, never inside a commit
// on the event loop's thread (a checkpoint there stalled a rush for ~100 ms).
const dir = mkdtempSync(join(tmpdir(), 'ticketrush-checkpoint-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const stalls = (rows: number) => ({ id: 'A', name: 'Stalls', kind: 'SEATED' as const, rows, seatsPerRow: 100, priceCents: 100, sellBy: 'SEAT' as const, accessible: [] });
const bigMap = { sections: [stalls(200)] };

it('never checkpoints on the writer, and a background thread still moves the WAL into the database file', async () => {
  const file = join(dir, 'store.db');
  const store = openSqliteStore({ filename: file, checkpointIntervalMs: 50 });
  try {
    const before = statSync(file).size;
    await createShow(store, 'shw', bigMap);
    // ...yet within a few intervals the 20,000 seats written through the WAL are in the database
    // file (without the thread they would sit in the WAL until the store closes).
    let after = before;
    for (let i = 0; i < 100 && after < before + 1_000_000; i++) {
      await sleep(50);
      after = statSync(file).size;
    }
    expect(after).toBeGreaterThan(before + 1_000_000);
    expect((await store.seatStates('shw', null, 10)).length).toBe(10);
  } finally {
    await store.close();
  }
});

it('is the only checkpointer: the writer connection has its automatic checkpoint switched off', async () => {
  const file = join(dir, 'pragma.db');
  const store = openSqliteStore({ filename: file, checkpointIntervalMs: 60_000 });
  try {
    const before = statSync(file).size;
    // 100,000 seats: about 11 MB of WAL, well past SQLite's default automatic checkpoint (1,000 pages).
    await createShow(store, 'shw', { sections: [stalls(1_000)] });
    await sleep(200);
    // No thread tick yet (a minute away) and no automatic checkpoint: the seats are only in the WAL.
    expect(statSync(file).size).toBe(before);
    expect(statSync(`${file}-wal`).size).toBeGreaterThan(8_000_000);
  } finally {
    await store.close();
  }
});
