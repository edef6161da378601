import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DiscountCode } from '../../src/domain/index.js';
import { storeFactories, type TestStoreHandle } from '../support/stores.js';
import { claimBase, held, id, minute, newOrder, newShow, newUser, seated, T0 } from './fixtures.js';

const discount = (overrides: Partial<DiscountCode> = {}): DiscountCode => ({
  code: id('CODE').toUpperCase(), off: { kind: 'PERCENT', percent: 10 }, showIds: null, validFrom: T0 - minute, validUntil: T0 + 60 * minute,
  maxUses: 10, perUserMax: 10, uses: 0, status: 'ACTIVE', createdAt: T0, ...overrides,
});

/**
 * Conformance of the discount operations (issue 25 item 6) on every adapter: the use taken in
 * openOrder's transaction (code counter, per-user counter, one redemption per order), given back
 * once, and the code's admin operations.
 */
describe.each(storeFactories)('discount codes on $name', (factory) => {
  let h: TestStoreHandle;
  beforeAll(async () => {
    h = await factory.open();
  });
  afterAll(async () => h?.close());

  const holdFor = async (showId: string, userId: string, seatId: string) => {
    const show = (await h.store.getShow(showId))!;
    return held(await h.store.claimSeats({ ...claimBase(show, userId), seatIds: [seatId] }));
  };

  it('creates, reads, lists, refuses a duplicate code and disables by compare-and-set', async () => {
    const d = discount({ showIds: ['s1', 's2'], off: { kind: 'AMOUNT', cents: 700 } });
    expect(await h.store.createDiscount(d)).toEqual({ ok: true, discount: d });
    expect(await h.store.createDiscount(d)).toEqual({ ok: false, code: 'CODE_TAKEN' });
    expect(await h.store.getDiscount(d.code)).toEqual(d);
    expect((await h.store.listDiscounts({ limit: 1000, offset: 0 })).map((x) => x.code)).toContain(d.code);
    expect(await h.store.disableDiscount({ code: d.code, from: 'ACTIVE', to: 'DISABLED' })).toEqual({ ok: true, discount: { ...d, status: 'DISABLED' } });
    expect(await h.store.disableDiscount({ code: d.code, from: 'ACTIVE', to: 'DISABLED' })).toEqual({ ok: false, stale: 'discount' });
  });

  it('takes a use with the order, refuses past maxUses and perUserMax with nothing written, and gives a use back once', async () => {
    const show = await newShow(h.store, [seated('A', 2, 10)]);
    const d = discount({ maxUses: 2, perUserMax: 1 });
    await h.store.createDiscount(d);
    const [alice, bob, carol] = [await newUser(h.store), await newUser(h.store), await newUser(h.store)];
    const withCode = async (userId: string, seat: string) => {
      const order = newOrder(await holdFor(show.showId, userId, seat));
      return { order: { ...order, discount: { code: d.code, discountCents: 500 }, amountCents: order.amountCents - 500, contact: { name: 'A', phone: '12345', email: 'a@b.c' } } };
    };
    const first = await withCode(alice, 'A-1-1');
    expect(await h.store.openOrder(first.order)).toEqual({ ok: true, order: first.order });
    expect(await h.store.getOrder(first.order.orderId)).toMatchObject({ discount: { code: d.code, discountCents: 500 }, contact: { name: 'A' }, amountCents: 4500 });
    const again = await withCode(alice, 'A-1-2');
    expect(await h.store.openOrder(again.order)).toEqual({ ok: false, code: 'DISCOUNT_PER_USER_LIMIT' });
    expect(await h.store.getOrder(again.order.orderId)).toBeNull();
    expect((await h.store.openOrder((await withCode(bob, 'A-1-3')).order)).ok).toBe(true);
    const third = await withCode(carol, 'A-1-4');
    expect(await h.store.openOrder(third.order)).toEqual({ ok: false, code: 'DISCOUNT_USED_UP' });
    expect((await h.store.getDiscount(d.code))?.uses).toBe(2);
    expect(await h.store.returnDiscountUse({ orderId: first.order.orderId, now: T0 })).toEqual({ ok: true, returned: true });
    expect(await h.store.returnDiscountUse({ orderId: first.order.orderId, now: T0 })).toEqual({ ok: true, returned: false });
    expect((await h.store.getDiscount(d.code))?.uses).toBe(1);
    // The use and alice's own count are back: she may use it again.
    expect((await h.store.openOrder((await withCode(alice, 'A-1-5')).order)).ok).toBe(true);
  });

  it('refuses a code not valid at the order time, not for the show, or disabled (DISCOUNT_UNAVAILABLE)', async () => {
    const show = await newShow(h.store, [seated('A', 1, 10)]);
    const user = await newUser(h.store);
    const cases = [discount({ validFrom: T0 + minute }), discount({ showIds: ['other-show'] }), discount({ status: 'DISABLED' })];
    let seat = 0;
    for (const d of cases) {
      await h.store.createDiscount(d);
      const order = { ...newOrder(await holdFor(show.showId, user, `A-1-${++seat}`)), discount: { code: d.code, discountCents: 1 } };
      expect(await h.store.openOrder(order)).toEqual({ ok: false, code: 'DISCOUNT_UNAVAILABLE' });
      expect((await h.store.getDiscount(d.code))?.uses).toBe(0);
    }
  });

  it('counts exactly maxUses among 30 parallel orders on the last uses', async () => {
    const show = await newShow(h.store, [seated('A', 3, 10)]);
    const d = discount({ maxUses: 3, perUserMax: 1 });
    await h.store.createDiscount(d);
    const orders = await Promise.all(Array.from({ length: 30 }, async (_, i) => {
      const user = await newUser(h.store);
      return { ...newOrder(await holdFor(show.showId, user, `A-${Math.floor(i / 10) + 1}-${(i % 10) + 1}`)), discount: { code: d.code, discountCents: 1 } };
    }));
    const race = await Promise.all(orders.map((o) => h.store.openOrder(o)));
    expect(race.filter((r) => r.ok)).toHaveLength(3);
    expect((await h.store.getDiscount(d.code))?.uses).toBe(3);
  });
});
