import { describe, expect, it } from 'vitest';
import {
  checkIn, createShow, extendHold, lapseHold, limits, moveOrder, openOrder, placeHold, saleWindow, settlePayment,
  type Hold, type Order, type Payment, type Seat, type Show, type Ticket,
} from '../../src/domain/index.js';

const t0 = Date.UTC(2026, 10, 1, 12);

function world(): { show: Show; seats: Map<string, Seat> } {
  const created = createShow({
    showId: 'show', title: 'Rules', venue: 'Hall', city: 'Town',
    startsAt: t0 + 10 * 86_400_000, saleStartsAt: t0, saleEndsAt: t0 + 86_400_000,
    seatMap: { sections: [{ id: 'A', name: 'Stalls', rows: 1, seatsPerRow: 4, priceCents: 2500 }] },
  }, t0);
  if (!created.ok) throw new Error(created.error.message);
  return { show: created.value.show, seats: new Map(created.value.seats.map((s) => [s.seatId, s])) };
}

function hold(w: ReturnType<typeof world>, holdId: string, userId: string, seatIds: string[], now = t0 + 1000, seconds = 60): Hold {
  const placed = placeHold({ show: w.show, holdId, userId, requestedSeatIds: seatIds, seats: seatIds.flatMap((id) => w.seats.get(id) ?? []), holdSeconds: seconds, holdSecondsMax: 900, now });
  if (!placed.ok) throw new Error(placed.error.code);
  for (const s of placed.value.seats) w.seats.set(s.seatId, s);
  return placed.value.hold;
}

function pendingOrder(h: Hold, now = t0 + 2000): { order: Order; payment: Payment } {
  const opened = openOrder({ hold: h, userId: h.userId, orderId: `order-${h.holdId}`, idempotencyKey: 'k', existingOrder: null, now });
  if (!opened.ok) throw new Error(opened.error.code);
  const order = moveOrder(opened.value, 'AWAIT_PAYMENT', now, { paymentId: `pay-${h.holdId}` });
  if (!order.ok) throw new Error(order.error.code);
  return { order: order.value, payment: { paymentId: `pay-${h.holdId}`, orderId: order.value.orderId, amountCents: order.value.amountCents, status: 'PENDING', updatedAt: now } };
}

describe('holds', () => {
  it('opens and closes with the sale window', () => {
    const w = world();
    expect(saleWindow(w.show, t0 - 5000)).toEqual({ status: 'UPCOMING', secondsRemaining: 5 });
    expect(saleWindow(w.show, t0 + 86_400_000)).toEqual({ status: 'ENDED', secondsRemaining: 0 });
    const early = placeHold({ show: w.show, holdId: 'h', userId: 'u', requestedSeatIds: ['A-1-1'], seats: [w.seats.get('A-1-1') as Seat], holdSeconds: 60, holdSecondsMax: 900, now: t0 - 1 });
    expect(early).toMatchObject({ ok: false, error: { code: 'SALE_NOT_OPEN' } });
  });

  it('is all or nothing and prices the seats', () => {
    const w = world();
    const first = hold(w, 'h1', 'alice', ['A-1-2']);
    expect(first).toMatchObject({ totalPriceCents: 2500, status: 'ACTIVE', expiresAt: t0 + 1000 + 60_000 });
    const clash = placeHold({ show: w.show, holdId: 'h2', userId: 'bob', requestedSeatIds: ['A-1-1', 'A-1-2'], seats: [w.seats.get('A-1-1') as Seat, w.seats.get('A-1-2') as Seat], holdSeconds: 60, holdSecondsMax: 900, now: t0 + 1000 });
    expect(clash).toMatchObject({ ok: false, error: { code: 'SEAT_UNAVAILABLE', details: { seatIds: ['A-1-2'] } } });
    expect(w.seats.get('A-1-1')?.status).toBe('AVAILABLE');
  });

  it('cannot be ordered once the clock passes its expiry, even before the sweep marks it', () => {
    const w = world();
    const h = hold(w, 'h1', 'alice', ['A-1-1'], t0 + 1000, 5);
    const late = openOrder({ hold: h, userId: 'alice', orderId: 'o', idempotencyKey: 'k', existingOrder: null, now: h.expiresAt });
    expect(late).toMatchObject({ ok: false, error: { code: 'HOLD_EXPIRED' } });
    expect(openOrder({ hold: h, userId: 'bob', orderId: 'o', idempotencyKey: 'k', existingOrder: null, now: t0 + 2000 })).toMatchObject({ ok: false, error: { code: 'HOLD_NOT_OWNED' } });
  });

  it('extends a bounded number of times, never past the life cap', () => {
    const w = world();
    const h = hold(w, 'h1', 'alice', ['A-1-1'], t0, 60);
    const once = extendHold({ hold: h, userId: 'alice', extendSeconds: 60, extensionsMax: 2, lifeSecondsMax: 90, now: t0 + 10_000 });
    expect(once).toMatchObject({ ok: true, value: { expiresAt: t0 + 90_000, extensions: 1 } });
    if (!once.ok) return;
    const capped = extendHold({ hold: once.value, userId: 'alice', extendSeconds: 60, extensionsMax: 2, lifeSecondsMax: 90, now: t0 + 20_000 });
    expect(capped).toMatchObject({ ok: false, error: { code: 'HOLD_EXTENSION_LIMIT' } });
  });
});

describe('payments', () => {
  it('sells the seats on success and treats the same callback again as a duplicate', () => {
    const w = world();
    const h = hold(w, 'h1', 'alice', ['A-1-1', 'A-1-2']);
    const { order, payment } = pendingOrder(h);
    const report = { paymentId: payment.paymentId, orderId: order.orderId, status: 'SUCCEEDED' as const, amountCents: 5000 };
    const settled = settlePayment({ report, payment, order, hold: h, seats: [...w.seats.values()], now: t0 + 3000 });
    expect(settled).toMatchObject({ ok: true, value: { outcome: 'SOLD', order: { status: 'PAID' }, hold: { status: 'CONFIRMED' } } });
    if (!settled.ok) return;
    expect(settled.value.seats.map((s) => s.status)).toEqual(['SOLD', 'SOLD']);
    const again = settlePayment({ report, payment: settled.value.payment, order: settled.value.order, hold: settled.value.hold, seats: settled.value.seats, now: t0 + 4000 });
    expect(again).toMatchObject({ ok: true, value: { outcome: 'DUPLICATE', seats: [] } });
  });

  it('refuses a callback whose amount differs from what was charged', () => {
    const w = world();
    const h = hold(w, 'h1', 'alice', ['A-1-1']);
    const { order, payment } = pendingOrder(h);
    const wrong = settlePayment({ report: { paymentId: payment.paymentId, orderId: order.orderId, status: 'SUCCEEDED', amountCents: 1 }, payment, order, hold: h, seats: [...w.seats.values()], now: t0 + 3000 });
    expect(wrong).toMatchObject({ ok: false, error: { code: 'PAYMENT_AMOUNT_MISMATCH' } });
  });

  it('after the hold lapsed: sells seats that are still free, refunds when someone else took them', () => {
    for (const retaken of [false, true]) {
      const w = world();
      const h = hold(w, 'h1', 'alice', ['A-1-1'], t0 + 1000, 5);
      const { order, payment } = pendingOrder(h);
      const expired = lapseHold(h, [w.seats.get('A-1-1') as Seat], 'EXPIRE');
      if (!expired.ok) throw new Error(expired.error.code);
      for (const s of expired.value.seats) w.seats.set(s.seatId, s);
      const cancelled = moveOrder(order, 'CANCEL', t0 + 7000);
      if (!cancelled.ok) throw new Error(cancelled.error.code);
      if (retaken) hold(w, 'h2', 'bob', ['A-1-1'], t0 + 8000);
      const settled = settlePayment({
        report: { paymentId: payment.paymentId, orderId: order.orderId, status: 'SUCCEEDED', amountCents: 2500 },
        payment, order: cancelled.value, hold: expired.value.hold, seats: [...w.seats.values()], now: t0 + 9000,
      });
      if (retaken) {
        expect(settled).toMatchObject({ ok: true, value: { outcome: 'REFUND_REQUIRED', payment: { status: 'REFUND_PENDING' }, order: { status: 'CANCELLED' }, seats: [] } });
      } else {
        expect(settled).toMatchObject({ ok: true, value: { outcome: 'SOLD_LATE', order: { status: 'PAID' }, hold: { status: 'CONFIRMED' }, seats: [{ status: 'SOLD', holdId: 'h1' }] } });
      }
    }
  });
});

describe('check-in', () => {
  const ticket: Ticket = { ticketId: 't', orderId: 'o', userId: 'u', showId: 'show', seatId: 'A-1-1', code: 'C', status: 'VALID', issuedAt: t0, usedAt: null, checkInNonce: null };

  it('admits once; the same scan retried is the same admission; another scan is refused', () => {
    const first = checkIn(ticket, 'scan-1', t0 + 1);
    expect(first).toMatchObject({ ok: true, value: { outcome: 'ADMITTED', ticket: { status: 'USED', usedAt: t0 + 1 } } });
    if (!first.ok) return;
    expect(checkIn(first.value.ticket, 'scan-1', t0 + 2)).toMatchObject({ ok: true, value: { outcome: 'ALREADY_ADMITTED_SAME_SCAN' } });
    expect(checkIn(first.value.ticket, 'scan-2', t0 + 3)).toMatchObject({ ok: false, error: { code: 'TICKET_ALREADY_USED' } });
    expect(checkIn(first.value.ticket, null, t0 + 3)).toMatchObject({ ok: false, error: { code: 'TICKET_ALREADY_USED' } });
    // Hours later the same nonce (a scanner whose counter restarted) is a second use, not a retry.
    expect(checkIn(first.value.ticket, 'scan-1', t0 + 1 + limits.checkInRetrySecondsMax * 1000)).toMatchObject({ ok: true });
    expect(checkIn(first.value.ticket, 'scan-1', t0 + 2 + limits.checkInRetrySecondsMax * 1000)).toMatchObject({ ok: false, error: { code: 'TICKET_ALREADY_USED' } });
  });
});
