import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/adapters/sqlite/sqlite-store.js';
import { SeatMapCache, type ShowSeats } from '../../src/app/seat-map-cache.js';
import { ShowVersion, versionKeys } from '../../src/app/show-version.js';
import type { InventoryChanges, Store } from '../../src/ports/engine/index.js';
import { createShow } from '../adapters/sqlite-fixtures.js';
import { claimBase, ga, held, newShow, newUser, seated, T0 } from '../contract/fixtures.js';
import { settledOutbox } from '../contract/settled-outbox.js';
import { storeFactories, type TestStoreHandle } from '../support/stores.js';

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

/** Issue 14 + 22: the read model is bounded; a dropped show reloads on demand at the version and ETag its stored state gives. */
it('drops the least recently used show past its seat bound, reloads it on demand, and answers the same version and ETag for the same state', async () => {
  const sqlite = openSqliteStore({ filename: ':memory:' });
  let loads = 0;
  const store: Pick<Store, 'loadSeatMap' | 'seatStates'> = { loadSeatMap: (showId) => { loads++; return sqlite.loadSeatMap(showId); }, seatStates: (...args) => sqlite.seatStates(...args) };
  const cache = new SeatMapCache(store, Date.now, { seatsMax: 250 });
  try {
    for (const id of ['one', 'two', 'three']) await createShow(sqlite, id, { sections: [{ id: 'A', name: 'A', kind: 'SEATED', rows: 10, seatsPerRow: 10, priceCents: 1, sellBy: 'SEAT', accessible: [] }] });
    const one = await cache.get('one');
    if (one === null) throw new Error('no show');
    const user = await sqlite.insertUser({ userId: 'usr_1', username: 'u1', passwordHash: 'x', role: 'BUYER', createdAt: 1 });
    expect(user.ok).toBe(true);
    const claim = await sqlite.claimSeats({ holdId: 'hld_1', showId: 'one', userId: 'usr_1', now: 1, expiresAt: 10 ** 13, userUnitsMax: 10, seatIds: ['A-1-1', 'A-1-2'] });
    if (!claim.ok) throw new Error('claim refused');
    cache.apply(claim.changes);
    const versionBefore = one.version;
    const etagBefore = cache.etag(one);
    expect(versionBefore).toBe(1 + 1 + one.show.version);
    await cache.get('two');
    await cache.get('three');
    expect(cache.size).toEqual({ shows: 2, seats: 200 });
    expect(cache.loaded('one')).toBeNull();
    expect(loads).toBe(3);
    const again = await cache.get('one');
    if (again === null) throw new Error('no show');
    expect(loads).toBe(4);
    expect(again.version).toBe(versionBefore);
    expect(cache.etag(again)).toBe(etagBefore);
    // A version from before the drop is no longer answerable from the log: the caller must reload.
    expect(cache.feed.since('one', versionBefore - 1)).toBe('RELOAD');
    expect(cache.size.seats).toBeLessThanOrEqual(250);
  } finally {
    await sqlite.close();
  }
});

/** The version arithmetic (show-version.ts): a function of the set of (item, version), whatever the order. */
describe('ShowVersion', () => {
  it('is the sum of the items\' versions, and the same set of (item, version) gives the same digest in any order', () => {
    const a = new ShowVersion();
    const b = new ShowVersion();
    a.move(versionKeys.show, 0, 1);
    a.move(versionKeys.seat(3), 0, 1);
    a.move(versionKeys.seat(3), 1, 2);
    a.move(versionKeys.bucket(1, 7), 0, 4);
    b.move(versionKeys.bucket(1, 7), 0, 4);
    b.move(versionKeys.seat(3), 0, 2);
    b.move(versionKeys.show, 0, 1);
    expect(a.version).toBe(7);
    expect(b.version).toBe(7);
    expect(a.digest).toBe(b.digest);
    expect(a.digest).toMatch(/^[0-9a-f]{16}$/);
  });

  it('tells apart different states with the same version, and goes back to the same digest when an item does', () => {
    const a = new ShowVersion();
    const b = new ShowVersion();
    a.move(versionKeys.seat(1), 0, 1);
    b.move(versionKeys.seat(2), 0, 1);
    expect(a.version).toBe(b.version);
    expect(a.digest).not.toBe(b.digest);
    const fresh = new ShowVersion().digest;
    a.move(versionKeys.seat(1), 1, 0);
    expect(a.version).toBe(0);
    expect(a.digest).toBe(fresh);
    // Seat 5 and bucket 5 of section 0 are different items.
    const seat = new ShowVersion();
    const bucket = new ShowVersion();
    seat.move(versionKeys.seat(5), 0, 1);
    bucket.move(versionKeys.bucket(0, 5), 0, 1);
    expect(seat.digest).not.toBe(bucket.digest);
  });
});

/**
 * Issue 22 item 6: two processes' read models over one store, one fed by its own writes (apply),
 * the other by the outbox (applyRemote, in any order), and a third loaded afterwards, answer the
 * same version and ETag for the same stored state: seats, counted stock in buckets, releases.
 */
describe.each(storeFactories)('read models over one $name store', (factory) => {
  let h: TestStoreHandle;
  beforeAll(async () => {
    h = await factory.open();
  });
  afterAll(async () => h?.close());

  it('agree on version and ETag after holds, a counted-section hold and a release, whatever order the changes arrive in', async () => {
    const show = await newShow(h.store, [seated('A', 4, 5), ga('G', 100)]);
    const userId = await newUser(h.store);
    const local = new SeatMapCache(h.store, Date.now);
    const remote = new SeatMapCache(h.store, Date.now);
    const reversed = new SeatMapCache(h.store, Date.now);
    for (const cache of [local, remote, reversed]) expect(await cache.get(show.showId)).not.toBeNull();
    const seats = held(await h.store.claimSeats({ ...claimBase(show, userId), seatIds: ['A-1-1', 'A-1-2'] }));
    const units = held(await h.store.claimUnits({ ...claimBase(show, userId), sectionId: 'G', quantity: 3 }));
    held(await h.store.claimUnits({ ...claimBase(show, userId), sectionId: 'G', quantity: 2 }));
    const released = await h.store.lapseHold({ holdId: units.holdId, event: 'RELEASE', expectedExpiresAt: units.expiresAt, now: T0 + 1 });
    if (!released.ok) throw new Error('release refused');
    const lapsedSeats = await h.store.lapseHold({ holdId: seats.holdId, event: 'RELEASE', expectedExpiresAt: seats.expiresAt, now: T0 + 1 });
    if (!lapsedSeats.ok) throw new Error('release refused');
    // Read once settled: PostgreSQL hands a row out only after every older transaction on the cluster ended (other files run beside this one).
    const all = (await settledOutbox(h.store, null, 5, (e) => e.showId === show.showId && e.changes !== null)).map((e) => e.changes as InventoryChanges);
    expect(all.length).toBe(5);
    // Every stock change reports its buckets as stored.
    for (const c of all) for (const s of c.stock) expect(s.buckets?.length ?? 0).toBeGreaterThan(0);
    for (const c of all) local.apply(c);
    for (const c of all) remote.applyRemote(c);
    for (const c of [...all].reverse()) reversed.applyRemote(c);
    const fresh = new SeatMapCache(h.store, Date.now);
    const entries = await Promise.all([local, remote, reversed, fresh].map((c) => c.get(show.showId)));
    const [a, b, c, d] = entries.map((e) => {
      if (e === null) throw new Error('no show');
      return e;
    }) as [ShowSeats, ShowSeats, ShowSeats, ShowSeats];
    // Four seat changes (2 held, 2 freed) + three bucket changes (two takes and a give-back) + the show's version.
    expect(a.version).toBe(4 + 3 + show.version);
    for (const [cache, entry] of [[remote, b], [reversed, c], [fresh, d]] as const) {
      expect(entry.version).toBe(a.version);
      expect(cache.etag(entry)).toBe(local.etag(a));
      expect(cache.availability(entry)).toEqual(local.availability(a));
    }
    expect(local.availability(a).sections.find((s) => s.id === 'G')?.available).toBe(98);
  });
});
