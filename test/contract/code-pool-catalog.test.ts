import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeFactories, type TestStoreHandle } from '../support/stores.js';
import { id, minute, newUser, T0 } from './fixtures.js';
import { settledOutbox } from './settled-outbox.js';

/**
 * Code pools in the activity catalog (issue 23 item 1): listed in the catalog's order, changed by
 * the organizer on the stored version, and taken offline, which the grab's own statement enforces
 * (the test named for it goes red when that condition is removed).
 */
describe.each(storeFactories)('code pools in the catalog on $name', (factory) => {
  let h: TestStoreHandle;
  beforeAll(async () => {
    h = await factory.open();
  });
  afterAll(async () => h?.close());

  it('lists pools in the catalog order, changes one on its version only, and no grab pops a code while it is offline (the offline guard)', async () => {
    const soon = id('cpl');
    const later = id('cpl');
    await h.store.createCodePool({ poolId: soon, title: 'Soon', description: '', imageUrl: null, saleStartsAt: T0 - minute, saleEndsAt: T0 + 5 * minute, createdAt: T0 });
    await h.store.createCodePool({ poolId: later, title: 'Later', description: '', imageUrl: null, saleStartsAt: T0 - minute, saleEndsAt: T0 + 50 * minute, createdAt: T0 });
    await h.store.importCodes({ poolId: soon, codes: ['A1', 'A2'] });
    const listed = (await h.store.listCodePoolActivities(1000, T0, false)).map((a) => a.activityId);
    expect(listed.indexOf(soon)).toBeLessThan(listed.indexOf(later));
    expect(listed.indexOf(soon)).toBeGreaterThanOrEqual(0);

    const pool = await h.store.getCodePool(soon);
    if (pool === null) throw new Error('no pool');
    expect(pool).toMatchObject({ offline: false, version: 0 });
    const details = { title: 'Soon, paused', description: 'x', imageUrl: null, saleStartsAt: pool.saleStartsAt, saleEndsAt: pool.saleEndsAt, offline: true };
    expect(await h.store.updateCodePool({ poolId: soon, expectedVersion: 0, details })).toMatchObject({ ok: true, pool: { title: 'Soon, paused', offline: true, version: 1 } });
    expect(await h.store.updateCodePool({ poolId: soon, expectedVersion: 0, details })).toEqual({ ok: false, stale: 'pool' });
    expect(await h.store.updateCodePool({ poolId: 'cpl_missing', expectedVersion: 0, details })).toEqual({ ok: false, code: 'CODE_POOL_NOT_FOUND' });

    const buyers = await Promise.all(Array.from({ length: 4 }, () => newUser(h.store)));
    const grabs = await Promise.all(buyers.map((userId) => h.store.grabCode({ poolId: soon, userId, now: T0 })));
    for (const g of grabs) expect(g).toEqual({ ok: false, code: 'ACTIVITY_OFFLINE' });
    expect((await h.store.getCodePool(soon))?.remaining).toBe(2);
    expect((await h.store.listCodePoolActivities(1000, T0, false)).some((a) => a.activityId === soon)).toBe(false);
    expect((await h.store.listCodePoolActivities(1000, T0, true)).find((a) => a.activityId === soon)).toMatchObject({ offline: true, kind: 'CODE_POOL' });

    await h.store.updateCodePool({ poolId: soon, expectedVersion: 1, details: { ...details, offline: false } });
    expect(await h.store.grabCode({ poolId: soon, userId: buyers[0] as string, now: T0 })).toMatchObject({ ok: true, fresh: true });
  });

  it('the grab\'s own statement checks the sale window as stored, and a change writes \'code-pool.changed\' for the other processes\' caches (issue 33)', async () => {
    const poolId = id('cpl');
    await h.store.createCodePool({ poolId, title: 'Window', description: '', imageUrl: null, saleStartsAt: T0, saleEndsAt: T0 + 5 * minute, createdAt: T0 - minute });
    await h.store.importCodes({ poolId, codes: ['W1', 'W2', 'W3'] });
    const [early, late, onTime, had] = await Promise.all(Array.from({ length: 4 }, () => newUser(h.store))) as [string, string, string, string];
    // Before the start and at the end (the window is [start, end)): nothing popped.
    expect(await h.store.grabCode({ poolId, userId: early, now: T0 - 1 })).toEqual({ ok: false, code: 'SALE_NOT_OPEN' });
    expect(await h.store.grabCode({ poolId, userId: had, now: T0 })).toMatchObject({ ok: true, fresh: true, grabbed: { code: 'W1' } });
    expect(await h.store.grabCode({ poolId, userId: late, now: T0 + 5 * minute })).toEqual({ ok: false, code: 'SALE_NOT_OPEN' });
    // A buyer who has a code gets it back at any time.
    expect(await h.store.grabCode({ poolId, userId: had, now: T0 + 9 * minute })).toMatchObject({ ok: true, fresh: false, grabbed: { code: 'W1' } });
    expect((await h.store.getCodePool(poolId))?.remaining).toBe(2);

    const head = await h.store.outboxHead();
    const details = { title: 'Window', description: '', imageUrl: null, saleStartsAt: T0, saleEndsAt: T0 + 10 * minute, offline: false };
    expect(await h.store.updateCodePool({ poolId, expectedVersion: 0, details, now: T0 + minute })).toMatchObject({ ok: true, pool: { saleEndsAt: T0 + 10 * minute, version: 1 } });
    expect(await h.store.grabCode({ poolId, userId: late, now: T0 + 5 * minute })).toMatchObject({ ok: true, fresh: true, grabbed: { code: 'W2' } });
    expect(await h.store.grabCode({ poolId, userId: onTime, now: T0 + 10 * minute })).toEqual({ ok: false, code: 'SALE_NOT_OPEN' });
    const rows = await settledOutbox(h.store, head, 1, (e) => e.type === 'code-pool.changed' && e.data.poolId === poolId);
    expect(rows.map((e) => ({ data: e.data, showId: e.showId, createdAt: e.createdAt }))).toEqual([{ data: { poolId, version: 1 }, showId: null, createdAt: T0 + minute }]);
  });
});
