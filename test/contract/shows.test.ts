import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detailsOf, type Hold, type SettlementPlan } from '../../src/domain/index.js';
import type { Store } from '../../src/ports/engine/index.js';
import { storeFactories, type TestStoreHandle } from '../support/stores.js';
import { claimBase, ga, held, minute, newShow, newUser, orderAwaitingPayment, seated, T0 } from './fixtures.js';

/** Settles a hold's order as paid, in time (SELL) or after the hold lapsed (SELL_LATE). */
async function pay(store: Store, hold: Hold, late = false): Promise<void> {
  const { order, payment } = await orderAwaitingPayment(store, hold);
  if (late) expect((await store.lapseHold({ holdId: hold.holdId, event: 'EXPIRE', expectedExpiresAt: hold.expiresAt, now: hold.expiresAt })).ok).toBe(true);
  const plan: SettlementPlan = {
    kind: late ? 'SELL_LATE' : 'SELL', now: hold.expiresAt + (late ? 1 : -1),
    payment: { paymentId: payment.paymentId, receivedCents: null, from: 'PENDING', to: 'SUCCEEDED' },
    order: late ? { orderId: order.orderId, from: 'CANCELLED', to: 'PAID' } : { orderId: order.orderId, from: 'PENDING_PAY', to: 'PAID' },
    hold: { holdId: hold.holdId, from: late ? 'EXPIRED' : 'ACTIVE', to: 'CONFIRMED' },
  };
  const settled = await store.settlePayment(plan);
  if (!settled.ok) throw new Error(`settle: ${JSON.stringify(settled)}`);
}

describe.each(storeFactories)('shows and users on $name', (factory) => {
  let h: TestStoreHandle;
  beforeAll(async () => {
    h = await factory.open();
  });
  afterAll(async () => h?.close());

  it('keeps what each counted section sold: raised by a sale and a late sale, not by a hold, and reported with its availability', async () => {
    const show = await newShow(h.store, [seated('A', 1, 10), seated('Q', 2, 5, 'QUANTITY'), ga('GA', 20)]);
    const alice = await newUser(h.store);
    const standing = held(await h.store.claimUnits({ ...claimBase(show, alice), sectionId: 'GA', quantity: 3 }));
    held(await h.store.claimUnits({ ...claimBase(show, alice), sectionId: 'GA', quantity: 2 }));
    const circle = held(await h.store.claimUnits({ ...claimBase(show, alice, { ttl: minute }), sectionId: 'Q', quantity: 4 }));
    const seat = held(await h.store.claimSeats({ ...claimBase(show, alice), seatIds: ['A-1-1'] }));
    await pay(h.store, standing);
    await pay(h.store, circle, true);
    await pay(h.store, seat);
    const sections = await h.store.availability(show.showId);
    expect(sections?.map((s) => [s.sectionId, s.available, s.sold])).toEqual([['A', 9, 0], ['Q', 6, 4], ['GA', 15, 3]]);
    expect((await h.store.loadSeatMap(show.showId))?.sections.map((s) => s.sold)).toEqual([0, 4, 3]);
  });

  it('stores a show\'s description, picture and currency', async () => {
    const show = await newShow(h.store, [ga('GA', 5)]);
    expect(await h.store.getShow(show.showId)).toMatchObject({ description: '', imageUrl: null, currency: null, version: 0 });
  });

  it('updates a show only on the version it was decided on; a second edit on the same version is stale', async () => {
    const show = await newShow(h.store, [ga('GA', 5)]);
    const details = { ...detailsOf(show), title: 'New title', description: 'Words', imageUrl: 'https://example.org/a.png', startsAt: show.startsAt + minute };
    const first = await h.store.updateShow({ showId: show.showId, expectedVersion: 0, details });
    expect(first).toMatchObject({ ok: true, show: { title: 'New title', description: 'Words', imageUrl: 'https://example.org/a.png', startsAt: show.startsAt + minute, version: 1 } });
    expect(await h.store.updateShow({ showId: show.showId, expectedVersion: 0, details: { ...details, title: 'Lost' } })).toEqual({ ok: false, stale: 'show' });
    // Two edits decided on one version at once: exactly one applies.
    const raced = await Promise.all(['x', 'y'].map((title) => h.store.updateShow({ showId: show.showId, expectedVersion: 1, details: { ...details, title } })));
    expect(raced.filter((r) => r.ok)).toHaveLength(1);
    expect((await h.store.getShow(show.showId))?.version).toBe(2);
    expect(await h.store.updateShow({ showId: 'show_none', expectedVersion: 0, details })).toEqual({ ok: false, code: 'SHOW_NOT_FOUND' });
    // The seat map and the stock are untouched.
    expect((await h.store.getShow(show.showId))?.seatMap).toEqual(show.seatMap);
    expect((await h.store.availability(show.showId))?.[0]).toMatchObject({ available: 5 });
  });

  it('lists users by username key prefix, in key order, a page at a time', async () => {
    const stamp = String(T0 + Math.floor(Math.random() * 1e9));
    for (const name of ['b', 'a', 'c']) {
      const inserted = await h.store.insertUser({ userId: `user_${stamp}_${name}`, username: `List${stamp}-${name}`, passwordHash: 'x', role: 'BUYER', createdAt: T0 });
      expect(inserted.ok).toBe(true);
    }
    const prefix = `list${stamp}-`;
    expect((await h.store.listUsers({ keyPrefix: prefix, limit: 10, offset: 0 })).map((u) => u.username)).toEqual(['a', 'b', 'c'].map((n) => `List${stamp}-${n}`));
    expect((await h.store.listUsers({ keyPrefix: prefix, limit: 1, offset: 1 })).map((u) => u.username)).toEqual([`List${stamp}-b`]);
    expect(await h.store.listUsers({ keyPrefix: `${prefix}z`, limit: 10, offset: 0 })).toEqual([]);
  });
});
