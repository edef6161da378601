import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SettlementPlan } from '../../src/domain/index.js';
import { storeFactories, type TestStoreHandle } from '../support/stores.js';
import { audit, claimBase, ga, held, id, minute, newOrder, newShow, newUser, orderAwaitingPayment, seated, T0 } from './fixtures.js';

/**
 * Conformance of the compare-and-set plans: every plan states the prior state of each row it
 * touches, and a plan whose precondition someone else broke is refused whole (stale).
 */
describe.each(storeFactories)('plans on $name', (factory) => {
  let h: TestStoreHandle;
  beforeAll(async () => {
    h = await factory.open();
  });
  afterAll(async () => h?.close());

  it('lapses a hold exactly once: parallel RELEASE and EXPIRE, one wins, seats, units and the user count go back once', async () => {
    const show = await newShow(h.store, [seated('A', 1, 10), ga('GA', 10)]);
    const alice = await newUser(h.store);
    const seats = held(await h.store.claimSeats({ ...claimBase(show, alice, { ttl: minute }), seatIds: ['A-1-1', 'A-1-2'] }));
    const units = held(await h.store.claimUnits({ ...claimBase(show, alice, { ttl: minute }), sectionId: 'GA', quantity: 4 }));
    const after = T0 + 2 * minute;
    for (const hold of [seats, units]) {
      const lapses = await Promise.all([
        ...Array.from({ length: 10 }, () => h.store.lapseHold({ holdId: hold.holdId, event: 'EXPIRE', expectedExpiresAt: hold.expiresAt, now: after })),
        ...Array.from({ length: 10 }, () => h.store.lapseHold({ holdId: hold.holdId, event: 'RELEASE', expectedExpiresAt: hold.expiresAt, now: after })),
      ]);
      expect(lapses.filter((l) => l.ok)).toHaveLength(1);
      for (const l of lapses.filter((x) => !x.ok)) expect(l).toEqual({ ok: false, stale: 'hold' });
    }
    const a = await audit(h.store, show.showId);
    expect(a.seats.every((s) => s.status === 'AVAILABLE')).toBe(true);
    expect(a.sections.find((s) => s.sectionId === 'GA')).toMatchObject({ capacity: 10, available: 10 });
    expect(a.userUnits.find((u) => u.userId === alice)?.units ?? 0).toBe(0);
  });

  it('never gives counted stock back above capacity: 40 holds released in parallel, each twice', async () => {
    const show = await newShow(h.store, [ga('GA', 40)]);
    const users = await Promise.all(Array.from({ length: 40 }, () => newUser(h.store)));
    const holds = (await Promise.all(users.map((u) => h.store.claimUnits({ ...claimBase(show, u), sectionId: 'GA', quantity: 1 })))).map(held);
    expect((await audit(h.store, show.showId)).sections[0]).toMatchObject({ available: 0 });
    const lapses = await Promise.all(holds.flatMap((hold) => [0, 1].map(() => h.store.lapseHold({ holdId: hold.holdId, event: 'RELEASE', expectedExpiresAt: hold.expiresAt, now: T0 + 1 }))));
    expect(lapses.filter((l) => l.ok)).toHaveLength(40);
    expect((await audit(h.store, show.showId)).sections[0]).toMatchObject({ capacity: 40, available: 40 });
  });

  it('refuses a RELEASE after an extension it did not see, an EXPIRE before the hold is due, an extension of a stale read', async () => {
    const show = await newShow(h.store, [seated('A', 1, 10)]);
    const alice = await newUser(h.store);
    const hold = held(await h.store.claimSeats({ ...claimBase(show, alice, { ttl: minute }), seatIds: ['A-1-1'] }));
    expect(await h.store.lapseHold({ holdId: hold.holdId, event: 'EXPIRE', expectedExpiresAt: hold.expiresAt, now: hold.expiresAt - 1 })).toEqual({ ok: false, stale: 'hold' });
    const extended = await h.store.extendHold({ holdId: hold.holdId, expectedExpiresAt: hold.expiresAt, expectedExtensions: 0, expiresAt: hold.expiresAt + minute, extensions: 1 });
    expect(extended).toMatchObject({ ok: true, hold: { expiresAt: hold.expiresAt + minute, extensions: 1 } });
    expect(await h.store.extendHold({ holdId: hold.holdId, expectedExpiresAt: hold.expiresAt, expectedExtensions: 0, expiresAt: hold.expiresAt + 2 * minute, extensions: 1 })).toEqual({ ok: false, stale: 'hold' });
    expect(await h.store.lapseHold({ holdId: hold.holdId, event: 'RELEASE', expectedExpiresAt: hold.expiresAt, now: T0 + 1 })).toEqual({ ok: false, stale: 'hold' });
    expect(await h.store.lapseHold({ holdId: 'hold_missing', event: 'RELEASE', expectedExpiresAt: 0, now: T0 })).toEqual({ ok: false, code: 'HOLD_NOT_FOUND' });
    expect(await h.store.lapseHold({ holdId: hold.holdId, event: 'RELEASE', expectedExpiresAt: hold.expiresAt + minute, now: T0 + 1 })).toMatchObject({ ok: true });
  });

  it('refuses a second live order on a hold (one live order per hold), also among 20 parallel opens', async () => {
    const show = await newShow(h.store, [seated('A', 1, 10)]);
    const alice = await newUser(h.store);
    const hold = held(await h.store.claimSeats({ ...claimBase(show, alice), seatIds: ['A-1-1'] }));
    const opens = await Promise.all(Array.from({ length: 20 }, () => h.store.openOrder(newOrder(hold))));
    const winners = opens.filter((o) => o.ok);
    expect(winners).toHaveLength(1);
    const winner = winners[0] as { ok: true; order: { orderId: string } };
    for (const o of opens.filter((x) => !x.ok)) expect(o).toEqual({ ok: false, code: 'HOLD_ALREADY_ORDERED', orderId: winner.order.orderId });
    // Once that order is aborted the hold may be ordered again.
    expect(await h.store.abortOrder({ orderId: winner.order.orderId, now: T0 + 2 })).toMatchObject({ ok: true, order: { status: 'CANCELLED' } });
    expect(await h.store.abortOrder({ orderId: winner.order.orderId, now: T0 + 3 })).toEqual({ ok: false, stale: 'order' });
    expect(await h.store.openOrder(newOrder(hold))).toMatchObject({ ok: true });
  });

  it('reports a taken (user, idempotency key) with the order it opened, and honours it', async () => {
    const show = await newShow(h.store, [seated('A', 1, 10)]);
    const alice = await newUser(h.store);
    const first = held(await h.store.claimSeats({ ...claimBase(show, alice), seatIds: ['A-1-1'] }));
    const second = held(await h.store.claimSeats({ ...claimBase(show, alice), seatIds: ['A-1-2'] }));
    const opened = await h.store.openOrder(newOrder(first, 'same-key'));
    expect(opened.ok).toBe(true);
    const again = await h.store.openOrder(newOrder(second, 'same-key'));
    expect(again).toEqual({ ok: false, code: 'KEY_TAKEN', orderId: opened.ok ? opened.order.orderId : '' });
    expect((await h.store.getOrderByKey(alice, 'same-key'))?.holdId).toBe(first.holdId);
    expect(await h.store.liveOrderOfHold(second.holdId)).toBeNull();
  });

  it('refuses an order on a hold that is lapsed, overdue or someone else\'s (stale hold)', async () => {
    const show = await newShow(h.store, [seated('A', 1, 10)]);
    const alice = await newUser(h.store);
    const bob = await newUser(h.store);
    const hold = held(await h.store.claimSeats({ ...claimBase(show, alice, { ttl: minute }), seatIds: ['A-1-1'] }));
    expect(await h.store.openOrder({ ...newOrder(hold), userId: bob })).toEqual({ ok: false, stale: 'hold' });
    expect(await h.store.openOrder(newOrder(hold, id('key'), hold.expiresAt))).toEqual({ ok: false, stale: 'hold' });
    expect((await h.store.lapseHold({ holdId: hold.holdId, event: 'RELEASE', expectedExpiresAt: hold.expiresAt, now: T0 + 1 })).ok).toBe(true);
    expect(await h.store.openOrder(newOrder(hold))).toEqual({ ok: false, stale: 'hold' });
  });

  it('lapsing a hold cancels its unpaid order in the same transaction', async () => {
    const show = await newShow(h.store, [seated('A', 1, 10)]);
    const alice = await newUser(h.store);
    const hold = held(await h.store.claimSeats({ ...claimBase(show, alice, { ttl: minute }), seatIds: ['A-1-1'] }));
    const { order } = await orderAwaitingPayment(h.store, hold);
    const lapsed = await h.store.lapseHold({ holdId: hold.holdId, event: 'EXPIRE', expectedExpiresAt: hold.expiresAt, now: hold.expiresAt });
    expect(lapsed).toMatchObject({ ok: true, hold: { status: 'EXPIRED' }, cancelledOrder: { orderId: order.orderId, status: 'CANCELLED' } });
    expect((await h.store.getOrder(order.orderId))?.status).toBe('CANCELLED');
  });

  it('idempotency keys: one begin wins among 20, the record is reported, complete/remove act only for their writer', async () => {
    const record = { scope: 'orders:u', key: id('k'), requestHash: 'h1', state: 'IN_FLIGHT' as const, outcome: null, responseBody: null, createdAt: T0 };
    const begins = await Promise.all(Array.from({ length: 20 }, (_, i) => h.store.beginKey({ ...record, createdAt: T0 + i })));
    expect(begins.filter((b) => b.ok)).toHaveLength(1);
    const winnerAt = T0 + begins.findIndex((b) => b.ok);
    for (const b of begins.filter((x) => !x.ok)) expect(b).toMatchObject({ ok: false, code: 'KEY_EXISTS', record: { key: record.key, createdAt: winnerAt, state: 'IN_FLIGHT' } });
    const claim = { scope: record.scope, key: record.key };
    expect(await h.store.completeKey({ ...claim, createdAt: winnerAt + 1_000, outcome: 'SUCCEEDED', responseBody: '{"x":1}' })).toBe(false);
    expect(await h.store.removeKey({ ...claim, createdAt: winnerAt + 1_000 })).toBe(false);
    expect(await h.store.completeKey({ ...claim, createdAt: winnerAt, outcome: 'SUCCEEDED', responseBody: '{"x":1}' })).toBe(true);
    expect(await h.store.completeKey({ ...claim, createdAt: winnerAt, outcome: 'FAILED', responseBody: '{"x":2}' })).toBe(false);
    expect(await h.store.getKey(record.scope, record.key)).toMatchObject({ state: 'DONE', outcome: 'SUCCEEDED', responseBody: '{"x":1}' });
    expect(await h.store.removeKey({ ...claim, createdAt: winnerAt })).toBe(true);
    expect(await h.store.getKey(record.scope, record.key)).toBeNull();
  });

  it('awaitPayment answers KEY_TAKEN once a retry took the key over, and stale once the order is no longer INIT', async () => {
    const show = await newShow(h.store, [seated('A', 1, 10)]);
    const alice = await newUser(h.store);
    const hold = held(await h.store.claimSeats({ ...claimBase(show, alice), seatIds: ['A-1-1'] }));
    const order = newOrder(hold);
    expect((await h.store.openOrder(order)).ok).toBe(true);
    const mine = { scope: 'orders', key: id('k'), createdAt: T0 };
    await h.store.beginKey({ ...mine, requestHash: 'h', state: 'IN_FLIGHT', outcome: null, responseBody: null });
    // A retry takes the key over: the old record goes, a new one (another createdAt) is written.
    expect(await h.store.removeKey(mine)).toBe(true);
    await h.store.beginKey({ ...mine, createdAt: T0 + 5, requestHash: 'h', state: 'IN_FLIGHT', outcome: null, responseBody: null });
    const payment = { paymentId: id('pay'), orderId: order.orderId, amountCents: order.amountCents, status: 'PENDING' as const, updatedAt: T0 + 6 };
    expect(await h.store.awaitPayment({ orderId: order.orderId, payment, now: T0 + 6, key: mine, responseBody: '{}' })).toEqual({ ok: false, code: 'KEY_TAKEN' });
    expect(await h.store.getPayment(payment.paymentId)).toBeNull();
    expect((await h.store.abortOrder({ orderId: order.orderId, now: T0 + 7 })).ok).toBe(true);
    expect(await h.store.awaitPayment({ orderId: order.orderId, payment, now: T0 + 8, key: { ...mine, createdAt: T0 + 5 }, responseBody: '{}' })).toEqual({ ok: false, stale: 'order' });
    expect(await h.store.getPayment(payment.paymentId)).toBeNull();
  });

  it('refuses a settlement plan whose preconditions are stale, and applies a plan once', async () => {
    const show = await newShow(h.store, [seated('A', 1, 10), ga('GA', 5)]);
    const alice = await newUser(h.store);
    const hold = held(await h.store.claimSeats({ ...claimBase(show, alice, { ttl: minute }), seatIds: ['A-1-1'] }));
    const { order, payment } = await orderAwaitingPayment(h.store, hold);
    const sell: SettlementPlan = {
      kind: 'SELL', now: T0 + 10,
      payment: { paymentId: payment.paymentId, receivedCents: null, from: 'PENDING', to: 'SUCCEEDED' },
      order: { orderId: order.orderId, from: 'PENDING_PAY', to: 'PAID' },
      hold: { holdId: hold.holdId, from: 'ACTIVE', to: 'CONFIRMED' },
    };
    const twice = await Promise.all([h.store.settlePayment(sell), h.store.settlePayment(sell)]);
    expect(twice.filter((s) => s.ok)).toHaveLength(1);
    expect(twice.find((s) => !s.ok)).toMatchObject({ ok: false });
    const a = await audit(h.store, show.showId);
    expect(a.seats.find((s) => s.seatId === 'A-1-1')?.status).toBe('SOLD');
    expect(a.orders[0]?.status).toBe('PAID');

    // A SELL planned on a hold that lapsed meanwhile is refused whole: payment stays PENDING.
    const late = held(await h.store.claimUnits({ ...claimBase(show, alice, { ttl: minute }), sectionId: 'GA', quantity: 2 }));
    const lateOrder = await orderAwaitingPayment(h.store, late);
    expect((await h.store.lapseHold({ holdId: late.holdId, event: 'EXPIRE', expectedExpiresAt: late.expiresAt, now: late.expiresAt })).ok).toBe(true);
    const staleSell: SettlementPlan = {
      kind: 'SELL', now: late.expiresAt + 1,
      payment: { paymentId: lateOrder.payment.paymentId, receivedCents: null, from: 'PENDING', to: 'SUCCEEDED' },
      order: { orderId: lateOrder.order.orderId, from: 'PENDING_PAY', to: 'PAID' },
      hold: { holdId: late.holdId, from: 'ACTIVE', to: 'CONFIRMED' },
    };
    const refused = await h.store.settlePayment(staleSell);
    expect(refused.ok).toBe(false);
    expect((await h.store.getPayment(lateOrder.payment.paymentId))?.status).toBe('PENDING');
    expect((await audit(h.store, show.showId)).sections.find((s) => s.sectionId === 'GA')).toMatchObject({ available: 5 });
  });

  it('applies a plan on a payment once: the same refund plan twice, the second is stale payment (payment status condition)', async () => {
    const show = await newShow(h.store, [seated('A', 1, 10)]);
    const alice = await newUser(h.store);
    const hold = held(await h.store.claimSeats({ ...claimBase(show, alice), seatIds: ['A-1-3'] }));
    const { payment } = await orderAwaitingPayment(h.store, hold);
    const refund: SettlementPlan = { kind: 'REFUND_REQUIRED', now: T0 + 20, payment: { paymentId: payment.paymentId, receivedCents: null, from: 'PENDING', to: 'REFUND_PENDING' }, order: null, hold: null };
    const fail: SettlementPlan = { kind: 'CANCEL', now: T0 + 20, payment: { paymentId: payment.paymentId, receivedCents: null, from: 'PENDING', to: 'FAILED' }, order: null, hold: null };
    const raced = await Promise.all([h.store.settlePayment(refund), h.store.settlePayment(fail), h.store.settlePayment(refund)]);
    expect(raced.filter((r) => r.ok)).toHaveLength(1);
    for (const r of raced.filter((x) => !x.ok)) expect(r).toEqual({ ok: false, stale: 'payment' });
    expect(await h.store.completeRefund({ paymentId: payment.paymentId, now: T0 + 30, order: null })).toMatchObject(raced[1]?.ok ? { ok: false, stale: 'payment' } : { ok: true, payment: { status: 'REFUNDED' } });
  });

  it('SELL_LATE of seats someone else claimed meanwhile: INVENTORY_TAKEN, nothing written', async () => {
    const show = await newShow(h.store, [seated('A', 1, 10)]);
    const alice = await newUser(h.store);
    const bob = await newUser(h.store);
    const hold = held(await h.store.claimSeats({ ...claimBase(show, alice, { ttl: minute }), seatIds: ['A-1-1', 'A-1-2'] }));
    const { order, payment } = await orderAwaitingPayment(h.store, hold);
    expect((await h.store.lapseHold({ holdId: hold.holdId, event: 'EXPIRE', expectedExpiresAt: hold.expiresAt, now: hold.expiresAt })).ok).toBe(true);
    const bobs = held(await h.store.claimSeats({ ...claimBase(show, bob), seatIds: ['A-1-2'] }));
    const before = await audit(h.store, show.showId);
    const sellLate: SettlementPlan = {
      kind: 'SELL_LATE', now: hold.expiresAt + 1,
      payment: { paymentId: payment.paymentId, receivedCents: null, from: 'PENDING', to: 'SUCCEEDED' },
      order: { orderId: order.orderId, from: 'CANCELLED', to: 'PAID' },
      hold: { holdId: hold.holdId, from: 'EXPIRED', to: 'CONFIRMED' },
    };
    expect(await h.store.settlePayment(sellLate)).toEqual({ ok: false, code: 'INVENTORY_TAKEN' });
    const after = await audit(h.store, show.showId);
    expect(after.seats).toEqual(before.seats);
    expect(after.seats.find((s) => s.seatId === 'A-1-2')).toMatchObject({ status: 'HELD', holdId: bobs.holdId });
    expect(after.userUnits).toEqual(before.userUnits);
    expect(after.holds).toEqual(before.holds);
    expect(after.payments).toEqual(before.payments);
  });

  it('keeps one ADMIN: two admins demoting each other in parallel, exactly one is refused LAST_ADMIN', async () => {
    const admins = [await newUser(h.store), await newUser(h.store)];
    for (const userId of admins) expect(await h.store.setRole({ userId, expectedRole: 'BUYER', role: 'ADMIN' })).toMatchObject({ ok: true });
    // Any other ADMIN accounts of this store (none in a fresh one) would make both demotions legal.
    const outcomes = await Promise.all(admins.map((userId) => h.store.setRole({ userId, expectedRole: 'ADMIN', role: 'BUYER' })));
    expect(outcomes.filter((o) => o.ok)).toHaveLength(1);
    expect(outcomes.find((o) => !o.ok)).toMatchObject({ ok: false, code: 'LAST_ADMIN' });
  });

  it('SELL_LATE takes the inventory back all or nothing, INVENTORY_TAKEN when it is gone', async () => {
    const show = await newShow(h.store, [ga('GA', 3)]);
    const alice = await newUser(h.store);
    const bob = await newUser(h.store);
    const hold = held(await h.store.claimUnits({ ...claimBase(show, alice, { ttl: minute }), sectionId: 'GA', quantity: 2 }));
    const { order, payment } = await orderAwaitingPayment(h.store, hold);
    expect((await h.store.lapseHold({ holdId: hold.holdId, event: 'EXPIRE', expectedExpiresAt: hold.expiresAt, now: hold.expiresAt })).ok).toBe(true);
    held(await h.store.claimUnits({ ...claimBase(show, bob), sectionId: 'GA', quantity: 2 }));
    const sellLate: SettlementPlan = {
      kind: 'SELL_LATE', now: hold.expiresAt + 1,
      payment: { paymentId: payment.paymentId, receivedCents: null, from: 'PENDING', to: 'SUCCEEDED' },
      order: { orderId: order.orderId, from: 'CANCELLED', to: 'PAID' },
      hold: { holdId: hold.holdId, from: 'EXPIRED', to: 'CONFIRMED' },
    };
    expect(await h.store.settlePayment(sellLate)).toEqual({ ok: false, code: 'INVENTORY_TAKEN' });
    const a = await audit(h.store, show.showId);
    expect(a.sections[0]).toMatchObject({ capacity: 3, available: 1 });
    expect(a.payments[0]?.status).toBe('PENDING');
  });
});
