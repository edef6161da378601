import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeFactories, type TestStoreHandle } from '../support/stores.js';
import { claimBase, held, minute, newShow, newUser, orderAwaitingPayment, seated, T0 } from './fixtures.js';

/**
 * The auditor's and the gauges' reads (issue 26): the pages of show ids the auditor walks, and
 * what is stuck (counts capped, the oldest of each), the same on both stores.
 */
describe.each(storeFactories)('audit reads on $name', (factory) => {
  let h: TestStoreHandle;
  beforeAll(async () => {
    h = await factory.open();
  });
  afterAll(async () => h?.close());

  it('pages through every show by id, from a cursor, at most `limit` at a time', async () => {
    const made = [];
    for (let i = 0; i < 5; i++) made.push((await newShow(h.store, [seated('A', 1, 2)])).showId);
    const all: string[] = [];
    let after: string | null = null;
    for (let page = 0; page < 10; page++) {
      const ids: string[] = await h.store.auditShowIds(after, 2);
      expect(ids.length).toBeLessThanOrEqual(2);
      if (ids.length === 0) break;
      all.push(...ids);
      after = ids.at(-1) as string;
    }
    expect(all).toEqual([...all].sort());
    expect(new Set(all).size).toBe(all.length);
    for (const showId of made) expect(all).toContain(showId);
  });

  it('reads what is stuck: orders awaiting payment, overdue holds, pending payments, with the oldest of each, counts capped', async () => {
    const show = await newShow(h.store, [seated('A', 2, 5)]);
    const user = await newUser(h.store);
    const first = held(await h.store.claimSeats({ ...claimBase(show, user, { now: T0, ttl: 10 * minute }), seatIds: ['A-1-1'] }));
    held(await h.store.claimSeats({ ...claimBase(show, user, { now: T0 + minute, ttl: 10 * minute }), seatIds: ['A-1-2'] }));
    const third = held(await h.store.claimSeats({ ...claimBase(show, user, { now: T0 + 2 * minute, ttl: 30 * minute }), seatIds: ['A-1-3'] }));
    await orderAwaitingPayment(h.store, first, T0 + 5);
    await orderAwaitingPayment(h.store, third, T0 + 2 * minute + 5);

    const before = await h.store.stuckFigures(T0 + 5 * minute, 100);
    expect(before.overdueHolds).toEqual({ count: 0, oldest: null });
    expect(before.pendingPay).toEqual({ count: 2, oldest: T0 + 5 });
    expect(before.pendingPayments).toEqual({ count: 2, oldest: T0 + 5 });
    expect(before.paidNotTicketed).toEqual({ count: 0, oldest: null });

    // Two holds lapsed at T0 + 10 and T0 + 11 minutes; the third lasts 30.
    const later = await h.store.stuckFigures(T0 + 20 * minute, 100);
    expect(later.overdueHolds).toEqual({ count: 2, oldest: T0 + 10 * minute });
    expect((await h.store.stuckFigures(T0 + 20 * minute, 1)).overdueHolds).toEqual({ count: 1, oldest: T0 + 10 * minute });
    expect((await h.store.stuckFigures(T0 + 20 * minute, 1)).pendingPay.count).toBe(1);
  });
});
