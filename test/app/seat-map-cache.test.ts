import { expect, it } from 'vitest';
import { openSqliteStore } from '../../src/adapters/sqlite/sqlite-store.js';
import { SeatMapCache } from '../../src/app/seat-map-cache.js';
import type { Store } from '../../src/ports/engine/index.js';
import { createShow } from '../adapters/sqlite-fixtures.js';

/** Seat-map reads share the store's queue with holds: made-up show ids must not turn into a read each. */
it('asks the store about an unknown show at most once a second, however often it is requested', async () => {
  const sqlite = openSqliteStore({ filename: ':memory:' });
  let reads = 0;
  const store: Pick<Store, 'loadSeatMap' | 'seatStates'> = { loadSeatMap: (showId) => { reads++; return sqlite.loadSeatMap(showId); }, seatStates: (...args) => sqlite.seatStates(...args) };
  let now = 1_000_000;
  const cache = new SeatMapCache(store, () => now);
  try {
    for (let i = 0; i < 500; i++) expect(await cache.get('shw_made_up')).toBeNull();
    expect(reads).toBe(1);
    now += 1_001;
    expect(await cache.get('shw_made_up')).toBeNull();
    expect(reads).toBe(2);
  } finally {
    await sqlite.close();
  }
});

/** Issue 14: the read model is bounded; a dropped show reloads on demand and its versions never repeat. */
it('drops the least recently used show past its seat bound, reloads it on demand, and never reuses a version', async () => {
  const sqlite = openSqliteStore({ filename: ':memory:' });
  let loads = 0;
  const store: Pick<Store, 'loadSeatMap' | 'seatStates'> = { loadSeatMap: (showId) => { loads++; return sqlite.loadSeatMap(showId); }, seatStates: (...args) => sqlite.seatStates(...args) };
  const cache = new SeatMapCache(store, Date.now, { seatsMax: 250 });
  try {
    for (const id of ['one', 'two', 'three']) await createShow(sqlite, id, { sections: [{ id: 'A', name: 'A', kind: 'SEATED', rows: 10, seatsPerRow: 10, priceCents: 1, sellBy: 'SEAT', accessible: [] }] });
    const one = await cache.get('one');
    if (one === null) throw new Error('no show');
    cache.apply({ showId: 'one', seats: [{ seatId: 'A-1-1', status: 'HELD', version: 1, holdId: 'hld_1' }], stock: [] });
    const etagBefore = cache.etag(one);
    await cache.get('two');
    await cache.get('three');
    expect(cache.size).toEqual({ shows: 2, seats: 200 });
    expect(cache.loaded('one')).toBeNull();
    expect(loads).toBe(3);
    const again = await cache.get('one');
    if (again === null) throw new Error('no show');
    expect(loads).toBe(4);
    expect(again.version).toBeGreaterThan(one.version);
    expect(cache.etag(again)).not.toBe(etagBefore);
    // A version from before the drop is no longer answerable from the log: the caller must reload.
    expect(cache.feed.since('one', one.version - 1)).toBe('RELOAD');
    expect(cache.size.seats).toBeLessThanOrEqual(250);
  } finally {
    await sqlite.close();
  }
});
