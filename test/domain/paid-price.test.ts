import { describe, expect, it } from 'vitest';
import { allocatePaidCents, orderMoney, paidCentsByTicket, planExchange, type Hold, type Order, type Ticket } from '../../src/domain/index.js';

describe('paid prices (issue 32): the charge allocated over the units, largest remainder in line order', () => {
  it('sums exactly to the charge, in proportion to list prices', () => {
    expect(allocatePaidCents(608, [380, 380])).toEqual([304, 304]);
    expect(allocatePaidCents(764, [380, 380, 380])).toEqual([255, 255, 254]);
    expect(allocatePaidCents(200, [100, 100, 100])).toEqual([67, 67, 66]);
    // Unequal weights: 1000 over 5000 + 3000 is 625 + 375.
    expect(allocatePaidCents(1000, [5000, 3000])).toEqual([625, 375]);
    // The largest remainder wins the cent, whatever its place: 10 over 1, 2 is 3.33 and 6.67.
    expect(allocatePaidCents(10, [1, 2])).toEqual([3, 7]);
    expect(allocatePaidCents(0, [380, 380])).toEqual([0, 0]);
    expect(allocatePaidCents(5, [0, 0])).toEqual([3, 2]);
    expect(allocatePaidCents(5, [])).toEqual([]);
    for (let charge = 0; charge < 500; charge += 7) {
      const weights = [380, 1000, 5, 5, 120];
      const paid = allocatePaidCents(charge, weights);
      expect(paid.reduce((a, b) => a + b, 0)).toBe(charge);
      expect(paid.every((p) => Number.isInteger(p) && p >= 0)).toBe(true);
    }
    // Large orders stay exact (charge × weight beyond 2^53).
    expect(allocatePaidCents(90_000_000_000, [99_999_999, 1]).reduce((a, b) => a + b, 0)).toBe(90_000_000_000);
  });

  it('keeps stored paid prices; allocates tickets from before they were stored', () => {
    const stored = [{ ticketId: 'a', sectionId: 'A', paidCents: 300 }, { ticketId: 'b', sectionId: 'A', paidCents: 308 }];
    expect([...paidCentsByTicket({ amountCents: 608 }, stored, () => 380)]).toEqual([['a', 300], ['b', 308]]);
    const legacy = [{ ticketId: 'a', sectionId: 'A' }, { ticketId: 'b', sectionId: 'B' }];
    expect([...paidCentsByTicket({ amountCents: 900 }, legacy, (s) => (s === 'A' ? 500 : 1000))]).toEqual([['a', 300], ['b', 600]]);
  });
});

describe('exchange value (issue 32): the paid price of the tickets given up, bounded by what is left of the order', () => {
  const now = Date.UTC(2026, 10, 1, 12);
  const show = { startsAt: now + 10 * 86_400_000, exchangeUntilHoursBefore: 24 };
  const ticket = (ticketId: string, status: Ticket['status'], paidCents: number): Ticket => ({
    ticketId, orderId: 'o1', userId: 'u1', showId: 's1', sectionId: 'GA', seatId: null, code: ticketId, status, issuedAt: now, usedAt: null,
    checkInNonce: null, checkedInBy: null, checkInGate: null, checkInDevice: null, paidCents,
  });
  const order = { orderId: 'o1', userId: 'u1', showId: 's1', holdId: 'h0', idempotencyKey: 'k', lines: [], amountCents: 3000, status: 'TICKETED', paymentId: 'p1', createdAt: now, updatedAt: now } satisfies Order;
  const newHold = (totalPriceCents: number): Hold => ({
    holdId: 'h1', showId: 's1', userId: 'u1', lines: [{ kind: 'UNITS', sectionId: 'GA', quantity: 2 }], totalPriceCents, status: 'ACTIVE', createdAt: now, expiresAt: now + 60_000, extensions: 0,
  });
  const plan = (refundedCents: number, totalPriceCents: number, more: { ticketIds?: string[]; carriedOutCents?: number; paid?: number } = {}) => planExchange({
    order, tickets: [ticket('a', 'INVALID', 1000), ticket('b', 'VALID', more.paid ?? 1000), ticket('c', 'VALID', more.paid ?? 1000)], newHold: newHold(totalPriceCents), actor: 'ORGANIZER', now,
    ticketIds: more.ticketIds ?? null, refundedCents, carriedOutCents: more.carriedOutCents ?? 0, oldListCentsOf: () => 1000,
  }, show);

  it('carries the paid prices of the valid tickets; the difference compares list prices of what is given up', () => {
    expect(plan(1000, 2000)).toEqual({ ok: true, value: { oldTicketIds: ['b', 'c'], carriedCents: 2000, differenceCents: 0, refundCents: 0, payCents: 0, newAmountCents: 2000 } });
    // Dearer: the list difference is paid on its own payment; the new order holds the value carried plus it.
    expect(plan(1000, 3000)).toEqual({ ok: true, value: { oldTicketIds: ['b', 'c'], carriedCents: 2000, differenceCents: 1000, refundCents: 0, payCents: 1000, newAmountCents: 3000 } });
  });

  it('cheaper: the list difference goes back, never more than the value carried; the new order holds the rest, never below 0', () => {
    expect(plan(1000, 1500)).toEqual({ ok: true, value: { oldTicketIds: ['b', 'c'], carriedCents: 2000, differenceCents: -500, refundCents: 500, payCents: 0, newAmountCents: 1500 } });
    // Paid 300 a ticket (a discount), list 1000: a swap 1800 cheaper in list price gives back the 600 carried, not 1800.
    expect(plan(0, 200, { paid: 300 })).toMatchObject({ ok: true, value: { carriedCents: 600, differenceCents: -1800, refundCents: 600, newAmountCents: 0 } });
  });

  it('partial: only the named valid tickets are given up, bounded by what earlier refunds and exchanges left', () => {
    expect(plan(1000, 1000, { ticketIds: ['c'] })).toEqual({ ok: true, value: { oldTicketIds: ['c'], carriedCents: 1000, differenceCents: 0, refundCents: 0, payCents: 0, newAmountCents: 1000 } });
    expect(plan(1000, 1000, { ticketIds: ['c'], carriedOutCents: 1500 })).toMatchObject({ ok: true, value: { carriedCents: 500 } });
    expect(plan(1000, 1000, { ticketIds: ['a'] })).toMatchObject({ ok: false, error: { code: 'TICKET_NOT_EXCHANGEABLE', details: { ticketIds: ['a'] } } });
    expect(plan(1000, 1000, { ticketIds: ['c', 'c'] })).toMatchObject({ ok: false, error: { code: 'TICKET_NOT_EXCHANGEABLE' } });
    expect(plan(1000, 1000, { ticketIds: ['zz'] })).toMatchObject({ ok: false, error: { code: 'TICKET_NOT_EXCHANGEABLE' } });
  });

  it('never carries more than what is left of the order after refunds (refunds that took more than the refunded tickets paid)', () => {
    expect(plan(1500, 2000)).toMatchObject({ ok: true, value: { carriedCents: 1500, newAmountCents: 1500 } });
    expect(plan(3000, 2000)).toMatchObject({ ok: true, value: { carriedCents: 0, newAmountCents: 0 } });
  });
});

describe('an order\'s money for the exports (issue 32): each cent counted once', () => {
  const facts = { status: 'TICKETED', amountCents: 608, discountCents: 152, refundedCents: 0, carriedOutCents: 0, fromExchange: false } as const;
  it('gross on the charged order, net what it holds now; exchanged-away and unpaid orders net 0', () => {
    expect(orderMoney(facts)).toEqual({ grossCents: 760, refundedCents: 0, netCents: 608 });
    expect(orderMoney({ ...facts, refundedCents: 304 })).toEqual({ grossCents: 760, refundedCents: 304, netCents: 304 });
    expect(orderMoney({ ...facts, carriedOutCents: 608 })).toEqual({ grossCents: 760, refundedCents: 0, netCents: 0 });
    expect(orderMoney({ ...facts, discountCents: 0, fromExchange: true })).toEqual({ grossCents: 0, refundedCents: 0, netCents: 608 });
    expect(orderMoney({ ...facts, status: 'CANCELLED' })).toEqual({ grossCents: 0, refundedCents: 0, netCents: 0 });
    // A late payment refunded whole (not through a refund row): all of it went back.
    expect(orderMoney({ ...facts, status: 'REFUNDED' })).toEqual({ grossCents: 760, refundedCents: 608, netCents: 0 });
    // Partly exchanged (304 carried out, of which a cheaper swap's 100 is still going back), the rest refunded whole:
    // the pending 100 is still the order's until the provider pays it.
    expect(orderMoney({ ...facts, status: 'REFUNDED', refundedCents: 304, carriedOutCents: 204 })).toEqual({ grossCents: 760, refundedCents: 304, netCents: 100 });
  });
});
