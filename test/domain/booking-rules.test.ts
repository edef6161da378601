import { describe, expect, it } from 'vitest';
import {
  buyerCancellation, checkClaimRequest, checkIn, completeRefund, createShow, extendHold, lapseEvent, limits, moveOrder, openOrder, paymentToCollect, planTicketIssue,
  holdPriceCents, refundInstead, releaseHold, saleWindow, seatLimitOf, settlePayment, unitsOf,
  type Hold, type Order, type Payment, type Show, type Ticket,
} from '../../src/domain/index.js';

/**
 * The pure rules: what the application decides before it asks the store (claim checks, lapse
 * events, settlement plans, ticket drafts). The store's check-and-take and the plans' effects are
 * covered by the conformance suite (test/contract).
 */
const t0 = Date.UTC(2026, 10, 1, 12);

function world(): { show: Show } {
  const created = createShow({
    showId: 'show', title: 'Rules', venue: 'Hall', city: 'Town',
    startsAt: t0 + 10 * 86_400_000, saleStartsAt: t0, saleEndsAt: t0 + 86_400_000, maxSeatsPerUser: null,
    seatMap: { sections: [
      { id: 'A', name: 'Stalls', kind: 'SEATED', rows: 1, seatsPerRow: 4, priceCents: 2500, sellBy: 'SEAT', accessible: [] },
      { id: 'GA', name: 'Standing', kind: 'GENERAL_ADMISSION', capacity: 100, priceCents: 4000 },
    ] },
  }, t0);
  if (!created.ok) throw new Error(created.error.message);
  return { show: created.value.show };
}

/** A hold as the store's claim makes it. */
function hold(holdId: string, userId: string, seatIds: string[], now = t0 + 1000, seconds = 60): Hold {
  const lines = [{ kind: 'SEATS' as const, sectionId: 'A', seatIds }];
  return { holdId, showId: 'show', userId, lines, totalPriceCents: holdPriceCents(lines, (id) => world().show.seatMap.sections.find((s) => s.id === id)?.priceCents), status: 'ACTIVE', createdAt: now, expiresAt: now + seconds * 1000, extensions: 0 };
}

function pendingOrder(h: Hold, now = t0 + 2000): { order: Order; payment: Payment } {
  const opened = openOrder({ hold: h, userId: h.userId, orderId: `order-${h.holdId}`, idempotencyKey: 'k', existingOrder: null, now });
  if (!opened.ok) throw new Error(opened.error.code);
  const order = moveOrder(opened.value, 'AWAIT_PAYMENT', now, { paymentId: `pay-${h.holdId}` });
  if (!order.ok) throw new Error(order.error.code);
  return { order: order.value, payment: { paymentId: `pay-${h.holdId}`, orderId: order.value.orderId, amountCents: order.value.amountCents, status: 'PENDING', updatedAt: now } };
}

describe('claims', () => {
  it('open and close with the sale window, and bound the units, duplicates and the duration', () => {
    const { show } = world();
    expect(saleWindow(show, t0 - 5000)).toEqual({ status: 'UPCOMING', secondsRemaining: 5 });
    expect(saleWindow(show, t0 + 86_400_000)).toEqual({ status: 'ENDED', secondsRemaining: 0 });
    const ask = (over: Partial<Parameters<typeof checkClaimRequest>[0]>) => checkClaimRequest({ show, units: 1, holdSeconds: 60, holdSecondsMax: 900, now: t0 + 1000, ...over });
    expect(ask({})).toEqual({ ok: true, value: { expiresAt: t0 + 61_000 } });
    expect(ask({ now: t0 - 1 })).toMatchObject({ ok: false, error: { code: 'SALE_NOT_OPEN' } });
    expect(ask({ units: limits.seatsPerHoldMax + 1 })).toMatchObject({ ok: false, error: { code: 'TOO_MANY_SEATS' } });
    expect(ask({ units: 2, seatIds: ['A-1-1', 'A-1-1'] })).toMatchObject({ ok: false, error: { code: 'DUPLICATE_SEAT' } });
    expect(ask({ holdSeconds: 901 })).toMatchObject({ ok: false, error: { code: 'INVALID_HOLD_DURATION' } });
  });

  it('price each unit at its section, not the seat', () => {
    const { show } = world();
    const lines = [{ kind: 'SEATS' as const, sectionId: 'A', seatIds: ['A-1-1', 'A-1-2'] }, { kind: 'UNITS' as const, sectionId: 'GA', quantity: 3 }];
    expect(unitsOf(lines)).toBe(5);
    expect(holdPriceCents(lines, (id) => show.seatMap.sections.find((s) => s.id === id)?.priceCents)).toBe(2 * 2500 + 3 * 4000);
  });

  it('cannot be ordered once the clock passes its expiry, even before the sweep marks it', () => {
    const h = hold('h1', 'alice', ['A-1-1'], t0 + 1000, 5);
    const late = openOrder({ hold: h, userId: 'alice', orderId: 'o', idempotencyKey: 'k', existingOrder: null, now: h.expiresAt });
    expect(late).toMatchObject({ ok: false, error: { code: 'HOLD_EXPIRED' } });
    expect(openOrder({ hold: h, userId: 'bob', orderId: 'o', idempotencyKey: 'k', existingOrder: null, now: t0 + 2000 })).toMatchObject({ ok: false, error: { code: 'HOLD_NOT_OWNED' } });
  });

  it('lapse by RELEASE before the expiry and by EXPIRE once overdue, nothing else', () => {
    const h = hold('h1', 'alice', ['A-1-1'], t0, 5);
    expect(lapseEvent(h, 'RELEASE', t0 + 1)).toEqual({ ok: true, value: 'RELEASE' });
    expect(lapseEvent(h, 'EXPIRE', t0 + 1).ok).toBe(false);
    expect(lapseEvent(h, 'EXPIRE', h.expiresAt)).toEqual({ ok: true, value: 'EXPIRE' });
    expect(releaseHold(h, 'bob', t0 + 1)).toMatchObject({ ok: false, error: { code: 'HOLD_NOT_OWNED' } });
  });

  it('extend a bounded number of times, never past the life cap', () => {
    const h = hold('h1', 'alice', ['A-1-1'], t0, 60);
    const once = extendHold({ hold: h, userId: 'alice', extendSeconds: 60, extensionsMax: 2, lifeSecondsMax: 90, now: t0 + 10_000 });
    expect(once).toMatchObject({ ok: true, value: { expiresAt: t0 + 90_000, extensions: 1 } });
    if (!once.ok) return;
    const capped = extendHold({ hold: once.value, userId: 'alice', extendSeconds: 60, extensionsMax: 2, lifeSecondsMax: 90, now: t0 + 20_000 });
    expect(capped).toMatchObject({ ok: false, error: { code: 'HOLD_EXTENSION_LIMIT' } });
  });
});

describe('per-buyer seat limit', () => {
  it('lets an organiser set 1 up to the capacity; a show without one follows the default, capped at its capacity', () => {
    const base = {
      showId: 's', title: 'T', venue: 'V', city: 'C', startsAt: t0 + 10 * 86_400_000, saleStartsAt: t0, saleEndsAt: t0 + 86_400_000,
      seatMap: { sections: [{ id: 'A', name: 'Stalls', kind: 'SEATED' as const, rows: 1, seatsPerRow: 4, priceCents: 2500, sellBy: 'SEAT' as const, accessible: [] }] },
    };
    for (const bad of [0, 5, 1.5]) expect(createShow({ ...base, maxSeatsPerUser: bad }, t0), String(bad)).toMatchObject({ ok: false, error: { code: 'INVALID_PURCHASE_LIMIT' } });
    const four = createShow({ ...base, maxSeatsPerUser: 4 }, t0);
    expect(four.ok && seatLimitOf(four.value.show, 10)).toBe(4);
    const unset = createShow({ ...base, maxSeatsPerUser: null }, t0);
    expect(unset.ok && [seatLimitOf(unset.value.show, 2), seatLimitOf(unset.value.show, 10)]).toEqual([2, 4]);
  });
});

describe('one hold state, one answer on every rule', () => {
  const rules = (h: Hold, order: Order, now: number) => ({
    extend: extendHold({ hold: h, userId: h.userId, extendSeconds: 30, extensionsMax: 5, lifeSecondsMax: 7200, now }),
    release: releaseHold(h, h.userId, now),
    order: openOrder({ hold: h, userId: h.userId, orderId: 'o2', idempotencyKey: 'k2', existingOrder: null, now }),
    pay: paymentToCollect(order, h, now),
  });
  const codes = (results: Record<string, { ok: boolean; error?: { code: string } }>) =>
    Object.fromEntries(Object.entries(results).map(([rule, r]) => [rule, r.ok ? 'ok' : r.error?.code]));

  it('answers HOLD_EXPIRED for an expired hold and for one overdue but not yet swept, HOLD_NOT_ACTIVE for released or confirmed', () => {
    const h = hold('h1', 'alice', ['A-1-1'], t0 + 1000, 5);
    const { order } = pendingOrder(h);
    const all = (code: string) => ({ extend: code, release: code, order: code, pay: code });
    expect(codes(rules(h, order, h.expiresAt))).toEqual(all('HOLD_EXPIRED'));
    for (const [status, code] of [['EXPIRED', 'HOLD_EXPIRED'], ['RELEASED', 'HOLD_NOT_ACTIVE'], ['CONFIRMED', 'HOLD_NOT_ACTIVE']] as const) {
      expect(codes(rules({ ...h, status }, order, t0 + 2000)), status).toEqual(all(code));
    }
  });
});

describe('a buyer cancels an order', () => {
  it('through the order machine: INIT is aborted, PENDING_PAY cancelled; paid is ORDER_ALREADY_PAID, ended ORDER_NOT_CANCELLABLE', () => {
    const { order } = pendingOrder(hold('h1', 'alice', ['A-1-1']));
    const codes = Object.fromEntries((['INIT', 'PENDING_PAY', 'PAID', 'TICKETED', 'CANCELLED', 'REFUNDED'] as const).map((status) => {
      const r = buyerCancellation({ ...order, status });
      return [status, r.ok ? r.value : r.error.code];
    }));
    expect(codes).toEqual({
      INIT: 'ABORT', PENDING_PAY: 'CANCEL', PAID: 'ORDER_ALREADY_PAID', TICKETED: 'ORDER_ALREADY_PAID', CANCELLED: 'ORDER_NOT_CANCELLABLE', REFUNDED: 'ORDER_NOT_CANCELLABLE',
    });
  });

  it('paying a paid order again is ORDER_ALREADY_PAID, whatever its hold says', () => {
    const h = hold('h2', 'alice', ['A-1-2']);
    const { order } = pendingOrder(h);
    expect(paymentToCollect({ ...order, status: 'PAID' }, { ...h, status: 'CONFIRMED' }, t0 + 3000)).toMatchObject({ ok: false, error: { code: 'ORDER_ALREADY_PAID', details: { status: 'PAID' } } });
  });
});

describe('settlement plans', () => {
  it('plans a sale on success (every row with its expected prior state), and the same callback again is a duplicate with no plan', () => {
    const h = hold('h1', 'alice', ['A-1-1', 'A-1-2']);
    const { order, payment } = pendingOrder(h);
    const report = { paymentId: payment.paymentId, orderId: order.orderId, status: 'SUCCEEDED' as const, amountCents: 5000 };
    const settled = settlePayment({ report, payment, order, hold: h, now: t0 + 3000 });
    expect(settled).toMatchObject({ ok: true, value: { outcome: 'SOLD', plan: {
      kind: 'SELL', payment: { from: 'PENDING', to: 'SUCCEEDED' }, order: { from: 'PENDING_PAY', to: 'PAID' }, hold: { from: 'ACTIVE', to: 'CONFIRMED' },
    } } });
    const again = settlePayment({ report, payment: { ...payment, status: 'SUCCEEDED' }, order: { ...order, status: 'PAID' }, hold: { ...h, status: 'CONFIRMED' }, now: t0 + 4000 });
    expect(again).toEqual({ ok: true, value: { outcome: 'DUPLICATE', plan: null } });
  });

  it('never sells on a callback whose amount differs: the money is marked for refund, the order cancelled, the hold released', () => {
    const h = hold('h1', 'alice', ['A-1-1']);
    const { order, payment } = pendingOrder(h);
    const wrong = settlePayment({ report: { paymentId: payment.paymentId, orderId: order.orderId, status: 'SUCCEEDED', amountCents: 1 }, payment, order, hold: h, now: t0 + 3000 });
    expect(wrong).toMatchObject({ ok: true, value: { outcome: 'AMOUNT_MISMATCH', plan: {
      kind: 'AMOUNT_MISMATCH', payment: { to: 'REFUND_PENDING', receivedCents: 1 }, order: { to: 'CANCELLED' }, hold: { from: 'ACTIVE', to: 'RELEASED' },
    } } });
    const declined = settlePayment({ report: { paymentId: payment.paymentId, orderId: order.orderId, status: 'FAILED', amountCents: 1 }, payment, order, hold: h, now: t0 + 3000 });
    expect(declined).toMatchObject({ ok: true, value: { outcome: 'AMOUNT_MISMATCH', plan: null } });
  });

  it('after the hold lapsed: plans a late sale; when the store says the inventory is gone, a refund instead', () => {
    const h = hold('h1', 'alice', ['A-1-1'], t0 + 1000, 5);
    const { order, payment } = pendingOrder(h);
    const cancelled = moveOrder(order, 'CANCEL', t0 + 7000);
    if (!cancelled.ok) throw new Error(cancelled.error.code);
    const settled = settlePayment({
      report: { paymentId: payment.paymentId, orderId: order.orderId, status: 'SUCCEEDED', amountCents: 2500 },
      payment, order: cancelled.value, hold: { ...h, status: 'EXPIRED' }, now: t0 + 9000,
    });
    expect(settled).toMatchObject({ ok: true, value: { outcome: 'SOLD_LATE', plan: { kind: 'SELL_LATE', order: { from: 'CANCELLED', to: 'PAID' }, hold: { from: 'EXPIRED', to: 'CONFIRMED' } } } });
    expect(refundInstead(payment, t0 + 9000)).toMatchObject({ ok: true, value: { outcome: 'REFUND_REQUIRED', plan: { kind: 'REFUND_REQUIRED', payment: { from: 'PENDING', to: 'REFUND_PENDING' }, hold: null } } });
    expect(completeRefund({ ...payment, status: 'REFUND_PENDING' }, cancelled.value)).toMatchObject({ ok: true, value: { order: { from: 'CANCELLED', to: 'REFUNDED' } } });
  });
});

describe('ticket drafts', () => {
  it('plan one ticket per unit of the lines: the seat for SEATS lines, none yet for UNITS lines', () => {
    const h = hold('h1', 'alice', ['A-1-1', 'A-1-2']);
    const { order } = pendingOrder({ ...h, lines: [...h.lines, { kind: 'UNITS', sectionId: 'GA', quantity: 2 }] });
    const paid = { ...order, status: 'PAID' as const };
    const identities = Array.from({ length: 4 }, (_, i) => ({ ticketId: `t${i}`, code: `C${i}` }));
    const drafts = planTicketIssue(paid, identities, t0 + 5000);
    expect(drafts).toMatchObject({ ok: true, value: [
      { sectionId: 'A', seatId: 'A-1-1' }, { sectionId: 'A', seatId: 'A-1-2' }, { sectionId: 'GA', seatId: null }, { sectionId: 'GA', seatId: null },
    ] });
    expect(planTicketIssue(order, identities, t0 + 5000).ok).toBe(false);
  });
});

describe('check-in', () => {
  const ticket: Ticket = {
    ticketId: 't', orderId: 'o', userId: 'u', showId: 'show', sectionId: 'A', seatId: 'A-1-1', code: 'C', status: 'VALID', issuedAt: t0, usedAt: null,
    checkInNonce: null, checkedInBy: null, checkInGate: null, checkInDevice: null,
  };
  const scan = (nonce: string | null, staffUserId = 'steward-1', gate: string | null = null, deviceId: string | null = null) => ({ nonce, staffUserId, gate, deviceId });

  it('admits once; the same scan retried is the same admission; another scan is refused', () => {
    const first = checkIn(ticket, scan('scan-1'), t0 + 1);
    expect(first).toMatchObject({ ok: true, value: { outcome: 'ADMITTED', ticket: { status: 'USED', usedAt: t0 + 1, checkedInBy: 'steward-1' } } });
    if (!first.ok) return;
    expect(checkIn(first.value.ticket, scan('scan-1'), t0 + 2)).toMatchObject({ ok: true, value: { outcome: 'ALREADY_ADMITTED_SAME_SCAN' } });
    expect(checkIn(first.value.ticket, scan('scan-2'), t0 + 3)).toMatchObject({ ok: false, error: { code: 'TICKET_ALREADY_USED' } });
    expect(checkIn(first.value.ticket, scan(null), t0 + 3)).toMatchObject({ ok: false, error: { code: 'TICKET_ALREADY_USED' } });
    // Hours later the same nonce (a scanner whose counter restarted) is a second use, not a retry.
    expect(checkIn(first.value.ticket, scan('scan-1'), t0 + 1 + limits.checkInRetrySecondsMax * 1000)).toMatchObject({ ok: true });
    expect(checkIn(first.value.ticket, scan('scan-1'), t0 + 2 + limits.checkInRetrySecondsMax * 1000)).toMatchObject({ ok: false, error: { code: 'TICKET_ALREADY_USED' } });
  });

  it('binds a nonce to the steward, the gate and the device: the same nonce from any other is a second use, told in ISO 8601', () => {
    const first = checkIn(ticket, scan('scan-1', 'steward-1', 'north', 'pad-7'), t0 + 1);
    if (!first.ok) throw new Error(first.error.code);
    const used = first.value.ticket;
    const usedAt = new Date(t0 + 1).toISOString();
    expect(checkIn(used, scan('scan-1', 'steward-1', 'north', 'pad-7'), t0 + 2)).toMatchObject({ ok: true, value: { outcome: 'ALREADY_ADMITTED_SAME_SCAN' } });
    for (const other of [scan('scan-1', 'steward-2', 'north', 'pad-7'), scan('scan-1', 'steward-1', 'south', 'pad-7'), scan('scan-1', 'steward-1', 'north', 'pad-8'), scan('scan-1', 'steward-1')]) {
      expect(checkIn(used, other, t0 + 2)).toEqual({ ok: false, error: { code: 'TICKET_ALREADY_USED', message: expect.any(String), details: { usedAt } } });
    }
  });
});
