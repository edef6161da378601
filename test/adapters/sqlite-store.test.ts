import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/adapters/sqlite/sqlite-store.js';
import { createShow, unwrapOk, type SeatMapSpec } from './sqlite-fixtures.js';
import type { ClaimOutcome, Store } from '../../src/ports/engine/index.js';

/**
 * The SQLite adapter's own checks of the engine port (the conformance suite in test/contract
 * covers both backends): claims decided against the current state, give-backs exactly once,
 * plans refused as stale, guards answered as typed outcomes.
 */
let store: Store;
beforeEach(async () => {
  store = openSqliteStore({ filename: ':memory:' });
  users.clear();
  await Promise.all(['u1', 'u2', 'u3', 'greedy', ...Array.from({ length: 500 }, (_, i) => `u${i}`), ...Array.from({ length: 60 }, (_, i) => `r${i}`)].map(user));
});
afterEach(async () => {
  await store.close();
});

const seatMap: SeatMapSpec = {
  sections: [
    { id: 'A', name: 'Stalls', kind: 'SEATED', rows: 40, seatsPerRow: 50, priceCents: 5000, sellBy: 'SEAT', accessible: [{ row: 3, number: 1 }, { row: 3, number: 2 }] },
    { id: 'Q', name: 'Balcony', kind: 'SEATED', rows: 2, seatsPerRow: 5, priceCents: 3000, sellBy: 'QUANTITY', accessible: [] },
    { id: 'GA', name: 'Standing', kind: 'GENERAL_ADMISSION', capacity: 100, priceCents: 4000 },
  ],
};
const now = 1_000;
let holdNo = 0;
/** Users on first use: holds and orders reference them. */
const users = new Set<string>();
async function user(userId: string): Promise<void> {
  if (users.has(userId)) return;
  users.add(userId);
  await store.insertUser({ userId, username: userId, passwordHash: 'h', role: 'BUYER', createdAt: 0 });
}
const base = (userId: string, userUnitsMax = 10) => ({ holdId: `hld_${++holdNo}`, showId: 'shw', userId, now, expiresAt: now + 60_000, userUnitsMax });

describe('claims', () => {
  beforeEach(async () => {
    await createShow(store, 'shw', seatMap);
  });

  it('claims exact seats once; a second claim of any of them is SEAT_UNAVAILABLE and writes nothing', async () => {
    const first = unwrapOk(await store.claimSeats({ ...base('u1'), seatIds: ['A-1-2', 'A-1-1'] }));
    expect(first.hold.lines).toEqual([{ kind: 'SEATS', sectionId: 'A', seatIds: ['A-1-2', 'A-1-1'] }]);
    expect(first.hold.totalPriceCents).toBe(10_000);
    expect(first.adjacent).toBe(true);
    expect(first.changes.seats.map((s) => [s.seatId, s.status, s.version])).toEqual([['A-1-2', 'HELD', 1], ['A-1-1', 'HELD', 1]]);
    expect(await store.claimSeats({ ...base('u2'), seatIds: ['A-1-3', 'A-1-1'] })).toEqual({ ok: false, code: 'SEAT_UNAVAILABLE', seatIds: ['A-1-1'] });
    const audit = await store.audit('shw');
    expect(audit?.seats.find((s) => s.seatId === 'A-1-3')?.status).toBe('AVAILABLE');
    expect(audit?.userUnits).toEqual([{ userId: 'u1', units: 2 }]);
    expect(audit?.sections.find((s) => s.sectionId === 'A')?.available).toBe(1998);
  });

  it('answers SEAT_NOT_FOUND before the limit, the limit before SEAT_UNAVAILABLE', async () => {
    expect(await store.claimSeats({ ...base('u1'), seatIds: ['A-99-1', 'Q-1-1', 'A-1-1'] })).toEqual({ ok: false, code: 'SEAT_NOT_FOUND', seatIds: ['A-99-1', 'Q-1-1'] });
    unwrapOk(await store.claimSeats({ ...base('u1'), seatIds: ['A-1-1'] }));
    expect(await store.claimSeats({ ...base('u2', 1), seatIds: ['A-1-1', 'A-1-2'] })).toEqual({ ok: false, code: 'PURCHASE_LIMIT_REACHED', limit: 1, claimed: 0 });
    expect(await store.claimSeats({ ...base('u1', 2), seatIds: ['A-1-2', 'A-1-3'] })).toEqual({ ok: false, code: 'PURCHASE_LIMIT_REACHED', limit: 2, claimed: 1 });
  });

  it('gives 500 concurrent best-available buyers different adjacent pairs', async () => {
    const outcomes = await Promise.all(Array.from({ length: 500 }, (_, i) => store.claimBestAvailable({ ...base(`u${i}`), quantity: 2, adjacentOnly: false })));
    const seats = outcomes.flatMap((o) => unwrapOk(o).hold.lines.flatMap((l) => (l.kind === 'SEATS' ? l.seatIds : [])));
    expect(new Set(seats).size).toBe(1000);
    expect(outcomes.every((o) => o.ok && o.adjacent)).toBe(true);
    // Nearest the front first: the first buyer sits in the middle of row 1.
    expect(unwrapOk(outcomes[0] as ClaimOutcome).hold.lines).toEqual([{ kind: 'SEATS', sectionId: 'A', seatIds: ['A-1-25', 'A-1-26'] }]);
  });

  it('honours accessibleMin and adjacentOnly, and says NOT_ENOUGH_SEATS when nothing fits', async () => {
    const accessible = unwrapOk(await store.claimBestAvailable({ ...base('u1'), quantity: 2, adjacentOnly: true, accessibleMin: 2 }));
    expect(accessible.hold.lines).toEqual([{ kind: 'SEATS', sectionId: 'A', seatIds: ['A-3-1', 'A-3-2'] }]);
    expect(await store.claimBestAvailable({ ...base('u2'), quantity: 1, adjacentOnly: true, accessibleMin: 1 })).toEqual({ ok: false, code: 'NOT_ENOUGH_SEATS' });
    expect((await store.audit('shw'))?.userUnits).toEqual([{ userId: 'u1', units: 2 }]);
  });

  it('takes counted units all or nothing and never below zero; the cap holds under 100 parallel claims', async () => {
    const claims = await Promise.all(Array.from({ length: 100 }, () => store.claimUnits({ ...base('greedy', 7), sectionId: 'GA', quantity: 1 })));
    expect(claims.filter((c) => c.ok)).toHaveLength(7);
    expect(claims.find((c) => !c.ok)).toEqual({ ok: false, code: 'PURCHASE_LIMIT_REACHED', limit: 7, claimed: 7 });
    const rush = await Promise.all(Array.from({ length: 60 }, (_, i) => store.claimUnits({ ...base(`r${i}`), sectionId: 'GA', quantity: 2 })));
    expect(rush.filter((c) => c.ok)).toHaveLength(46);
    expect(rush.find((c) => !c.ok)).toEqual({ ok: false, code: 'NOT_ENOUGH_SEATS', available: 1 });
    const ga = (await store.availability('shw'))?.find((s) => s.sectionId === 'GA');
    expect(ga).toMatchObject({ sectionId: 'GA', kind: 'GENERAL_ADMISSION', sellBy: 'QUANTITY', capacity: 100, available: 1, sold: 0 });
    // One bucket; every take raised its version.
    expect(ga?.buckets).toEqual([{ bucket: 0, available: 1, version: 7 + 46 }]);
  });
});

describe('lapse and plans', () => {
  beforeEach(async () => {
    await createShow(store, 'shw', seatMap);
  });

  it('gives a hold back exactly once and cancels its unpaid order with it', async () => {
    const { hold } = unwrapOk(await store.claimSeats({ ...base('u1'), seatIds: ['A-1-1', 'A-1-2'] }));
    const units = unwrapOk(await store.claimUnits({ ...base('u1'), sectionId: 'GA', quantity: 3 }));
    const order = { orderId: 'ord_1', userId: 'u1', showId: 'shw', holdId: hold.holdId, idempotencyKey: 'k1', lines: hold.lines, amountCents: 10_000, status: 'INIT' as const, paymentId: null, createdAt: now, updatedAt: now };
    expect(await store.openOrder(order)).toEqual({ ok: true, order });
    const lapse = { holdId: hold.holdId, event: 'RELEASE' as const, expectedExpiresAt: hold.expiresAt, now };
    const [a, b] = await Promise.all([store.lapseHold(lapse), store.lapseHold(lapse)]);
    expect(a).toMatchObject({ ok: true, hold: { status: 'RELEASED' }, cancelledOrder: { orderId: 'ord_1', status: 'CANCELLED' } });
    expect(b).toEqual({ ok: false, stale: 'hold' });
    expect(await store.lapseHold({ ...lapse, holdId: 'nope' })).toEqual({ ok: false, code: 'HOLD_NOT_FOUND' });
    // Not overdue yet: EXPIRE is stale.
    expect(await store.lapseHold({ holdId: units.hold.holdId, event: 'EXPIRE', expectedExpiresAt: 0, now })).toEqual({ ok: false, stale: 'hold' });
    const expired = await store.lapseHold({ holdId: units.hold.holdId, event: 'EXPIRE', expectedExpiresAt: 0, now: units.hold.expiresAt });
    expect(expired).toMatchObject({ ok: true, changes: { stock: [{ sectionId: 'GA', delta: 3 }] } });
    const audit = await store.audit('shw');
    expect(audit?.userUnits).toEqual([{ userId: 'u1', units: 0 }]);
    expect(audit?.sections.map((s) => s.available)).toEqual([2000, 10, 100]);
  });

  it('refuses a second live order on a hold and a reused key as typed outcomes, and an order on an ended hold as stale', async () => {
    const { hold } = unwrapOk(await store.claimSeats({ ...base('u1'), seatIds: ['A-1-1'] }));
    const order = { orderId: 'ord_1', userId: 'u1', showId: 'shw', holdId: hold.holdId, idempotencyKey: 'k1', lines: hold.lines, amountCents: 5000, status: 'INIT' as const, paymentId: null, createdAt: now, updatedAt: now };
    unwrapOk(await store.openOrder(order));
    expect(await store.openOrder({ ...order, orderId: 'ord_2', idempotencyKey: 'k2' })).toEqual({ ok: false, code: 'HOLD_ALREADY_ORDERED', orderId: 'ord_1' });
    expect(await store.openOrder({ ...order, orderId: 'ord_3' })).toEqual({ ok: false, code: 'KEY_TAKEN', orderId: 'ord_1' });
    expect(await store.openOrder({ ...order, orderId: 'ord_4', idempotencyKey: 'k4', userId: 'someone' })).toEqual({ ok: false, stale: 'hold' });
    expect(await store.openOrder({ ...order, orderId: 'ord_5', idempotencyKey: 'k5', createdAt: hold.expiresAt })).toEqual({ ok: false, stale: 'hold' });
  });

  it('sells, issues tickets (picking seats of a section sold by quantity) and checks in once', async () => {
    const { hold } = unwrapOk(await store.claimUnits({ ...base('u1'), sectionId: 'Q', quantity: 3 }));
    const order = { orderId: 'ord_1', userId: 'u1', showId: 'shw', holdId: hold.holdId, idempotencyKey: 'k1', lines: hold.lines, amountCents: hold.totalPriceCents, status: 'INIT' as const, paymentId: null, createdAt: now, updatedAt: now };
    unwrapOk(await store.openOrder(order));
    expect(await store.beginKey({ scope: 'order:u1', key: 'k1', requestHash: 'h', state: 'IN_FLIGHT', outcome: null, responseBody: null, createdAt: now })).toEqual({ ok: true });
    const payment = { paymentId: 'pay_1', orderId: 'ord_1', amountCents: 9000, status: 'PENDING' as const, updatedAt: now };
    const claim = { scope: 'order:u1', key: 'k1', createdAt: now };
    expect(await store.awaitPayment({ orderId: 'ord_1', payment, now, key: { ...claim, createdAt: 7 }, responseBody: '{}' })).toEqual({ ok: false, code: 'KEY_TAKEN' });
    expect(await store.awaitPayment({ orderId: 'ord_1', payment, now, key: claim, responseBody: '{}' })).toMatchObject({ ok: true, order: { status: 'PENDING_PAY', paymentId: 'pay_1' } });
    expect((await store.getKey('order:u1', 'k1'))?.state).toBe('DONE');
    const plan = {
      kind: 'SELL' as const, now,
      payment: { paymentId: 'pay_1', from: 'PENDING' as const, to: 'SUCCEEDED' as const, receivedCents: null },
      order: { orderId: 'ord_1', from: 'PENDING_PAY' as const, to: 'PAID' as const },
      hold: { holdId: hold.holdId, from: 'ACTIVE' as const, to: 'CONFIRMED' as const },
    };
    expect(await store.settlePayment(plan)).toMatchObject({ ok: true, payment: { status: 'SUCCEEDED' }, order: { status: 'PAID' }, hold: { status: 'CONFIRMED' } });
    expect(await store.settlePayment(plan)).toEqual({ ok: false, stale: 'payment' });
    const drafts = [1, 2, 3].map((i) => ({ ticketId: `tkt_${i}`, code: `code_${i}`, sectionId: 'Q', seatId: null, paidCents: 0 }));
    const issued = await store.issueTickets({ orderId: 'ord_1', tickets: drafts, now });
    expect(issued).toMatchObject({ ok: true, order: { status: 'TICKETED' } });
    const seatIds = issued.ok ? issued.tickets.map((t) => t.seatId) : [];
    // Side by side, nearest the front-centre, leaving no single seat alone (Q-1-4, Q-1-5 stay a pair).
    expect(seatIds).toEqual(['Q-1-1', 'Q-1-2', 'Q-1-3']);
    expect(await store.issueTickets({ orderId: 'ord_1', tickets: drafts, now })).toEqual({ ok: false, stale: 'order' });
    const ticket = issued.ok ? issued.tickets[0] : undefined;
    if (ticket === undefined) throw new Error('no ticket');
    const used = { ...ticket, status: 'USED' as const, usedAt: now, checkInNonce: 'n', checkedInBy: 'staff', checkInGate: null, checkInDevice: null };
    expect(await store.checkIn({ ticket: used, expectedStatus: 'VALID' })).toMatchObject({ ok: true, ticket: { status: 'USED' } });
    expect(await store.checkIn({ ticket: used, expectedStatus: 'VALID' })).toEqual({ ok: false, stale: 'ticket' });
    const audit = await store.audit('shw');
    expect(audit?.sections.find((s) => s.sectionId === 'Q')?.available).toBe(7);
    expect(audit?.userUnits).toEqual([{ userId: 'u1', units: 3 }]);
  });

  it('sells a lapsed hold late only while its inventory is free, taking it back exactly once', async () => {
    const paidLate = async (userId: string, seatId: string) => {
      const { hold } = unwrapOk(await store.claimSeats({ ...base(userId), seatIds: [seatId] }));
      const orderId = `ord_${hold.holdId}`;
      unwrapOk(await store.openOrder({ orderId, userId, showId: 'shw', holdId: hold.holdId, idempotencyKey: orderId, lines: hold.lines, amountCents: 5000, status: 'INIT', paymentId: null, createdAt: now, updatedAt: now }));
      const key = { scope: `order:${userId}`, key: orderId, createdAt: now };
      unwrapOk(await store.beginKey({ ...key, requestHash: 'h', state: 'IN_FLIGHT', outcome: null, responseBody: null }));
      const payment = { paymentId: `pay_${hold.holdId}`, orderId, amountCents: 5000, status: 'PENDING' as const, updatedAt: now };
      unwrapOk(await store.awaitPayment({ orderId, payment, now, key, responseBody: '{}' }));
      expect(await store.lapseHold({ holdId: hold.holdId, event: 'RELEASE', expectedExpiresAt: hold.expiresAt, now })).toMatchObject({ ok: true, cancelledOrder: { status: 'CANCELLED' } });
      return {
        kind: 'SELL_LATE' as const, now,
        payment: { paymentId: payment.paymentId, from: 'PENDING' as const, to: 'SUCCEEDED' as const, receivedCents: null },
        order: { orderId, from: 'CANCELLED' as const, to: 'PAID' as const },
        hold: { holdId: hold.holdId, from: 'RELEASED' as const, to: 'CONFIRMED' as const },
      };
    };
    const taken = await paidLate('u1', 'A-1-1');
    unwrapOk(await store.claimSeats({ ...base('u2'), seatIds: ['A-1-1'] }));
    expect(await store.settlePayment(taken)).toEqual({ ok: false, code: 'INVENTORY_TAKEN' });
    const free = await paidLate('u3', 'A-1-2');
    expect(await store.settlePayment(free)).toMatchObject({ ok: true, hold: { status: 'CONFIRMED' }, changes: { seats: [{ seatId: 'A-1-2', status: 'SOLD' }] } });
    expect(await store.settlePayment(free)).toEqual({ ok: false, stale: 'payment' });
    const audit = await store.audit('shw');
    expect(audit?.userUnits).toEqual([{ userId: 'u1', units: 0 }, { userId: 'u2', units: 1 }, { userId: 'u3', units: 1 }]);
    expect(audit?.sections.find((s) => s.sectionId === 'A')?.available).toBe(1998);
  });
});
