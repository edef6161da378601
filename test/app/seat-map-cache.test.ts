import { expect, it } from 'vitest';
import { openSqliteStore } from '../../src/adapters/sqlite/sqlite-store.js';
import { SeatMapCache } from '../../src/app/seat-map-cache.js';
import type { Store } from '../../src/ports/engine/index.js';

/** Seat-map reads share the store's queue with holds: made-up show ids must not turn into a read each. */
it('asks the store about an unknown show at most once a second, however often it is requested', async () => {
  const sqlite = openSqliteStore({ filename: ':memory:' });
  let reads = 0;
  const store: Pick<Store, 'loadSeatMap'> = { loadSeatMap: (showId) => { reads++; return sqlite.loadSeatMap(showId); } };
  let now = 1_000_000;
  const cache = new SeatMapCache(store, () => now, 'test');
  try {
    for (let i = 0; i < 500; i++) expect(await cache.snapshot('shw_made_up')).toBeNull();
    expect(reads).toBe(1);
    now += 1_001;
    expect(await cache.snapshot('shw_made_up')).toBeNull();
    expect(reads).toBe(2);
  } finally {
    await sqlite.close();
  }
});
