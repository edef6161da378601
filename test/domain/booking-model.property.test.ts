import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkIn, chooseBestAvailable, completeRefund, createShow, domainErrorCodes, extendHold, isLiveOrder, isOverdue, issueTickets,
  lapseHold, moveOrder, openOrder, placeHold, settlePayment,
  type DomainErrorCode, type Hold, type Order, type Payment, type Result, type Seat, type Show, type Ticket,
} from '../../src/domain/index.js';

// The booking core driven only through its pure functions, the way the application layer applies
// their results, by random sequences of buyer, clock and payment-provider actions. After every
// step the world must satisfy the invariants a buyer or an auditor would check.

const start = Date.UTC(2026, 10, 1, 12);
const users = ['u1', 'u2', 'u3'] as const;
/** Settlement outcomes seen across all runs: the generator must reach the rare paths too. */
const outcomes = new Map<string, number>();
const knownCodes = new Set<string>(domainErrorCodes);

class World {
  readonly show: Show;
  readonly seats = new Map<string, Seat>();
  readonly holds = new Map<string, Hold>();
  readonly orders = new Map<string, Order>();
  readonly payments = new Map<string, Payment>();
  readonly tickets: Ticket[] = [];
  readonly refusals: DomainErrorCode[] = [];
  now = start;
  private seq = 0;

  constructor() {
    const created = createShow({
      showId: 'show',
      title: 'Model',
      venue: 'Hall',
      city: 'Town',
      startsAt: start + 30 * 86_400_000,
      saleStartsAt: start - 60_000,
      saleEndsAt: start + 20 * 86_400_000,
      seatMap: { sections: [{ id: 'A', name: 'Stalls', rows: 2, seatsPerRow: 4, priceCents: 5000 }, { id: 'B', name: 'Box', rows: 1, seatsPerRow: 3, priceCents: 9000 }] },
    }, start);
    if (!created.ok) throw new Error(created.error.message);
    this.show = created.value.show;
    for (const seat of created.value.seats) this.seats.set(seat.seatId, seat);
  }

  id(kind: string): string {
    return `${kind}-${++this.seq}`;
  }

  /** A refusal must be a typed result with a known code, and must leave the world as it was. */
  accept<T>(result: Result<T>): T | null {
    if (result.ok) return result.value;
    expect(knownCodes.has(result.error.code), `unknown code ${result.error.code}`).toBe(true);
    this.refusals.push(result.error.code);
    return null;
  }

  saveSeats(seats: readonly Seat[]): void {
    for (const seat of seats) {
      const before = this.seats.get(seat.seatId);
      // Optimistic locking: every change moves the version forward.
      expect(before && seat.version > before.version).toBe(true);
      this.seats.set(seat.seatId, seat);
    }
  }

  seatsOf(hold: Hold): Seat[] {
    return hold.seatIds.flatMap((id) => this.seats.get(id) ?? []);
  }

  liveOrderOf(holdId: string): Order | null {
    return [...this.orders.values()].find((o) => o.holdId === holdId && isLiveOrder(o)) ?? null;
  }

  /** The application cancels an unpaid order together with its hold. */
  cancelLiveOrder(holdId: string): void {
    const order = this.liveOrderOf(holdId);
    if (order === null) return;
    const next = moveOrder(order, order.status === 'INIT' ? 'ABORT' : 'CANCEL', this.now);
    if (next.ok) this.orders.set(order.orderId, next.value);
  }
}

type Action =
  | { kind: 'holdSeats'; user: number; seatIndexes: number[]; seconds: number }
  | { kind: 'holdBest'; user: number; quantity: number; adjacent: boolean }
  | { kind: 'release'; pick: number; user: number }
  | { kind: 'extend'; pick: number; user: number; seconds: number }
  | { kind: 'advance'; ms: number }
  | { kind: 'sweep' }
  | { kind: 'order'; pick: number; user: number; asOwner: boolean; liveHoldsOnly: boolean }
  | { kind: 'pay'; pick: number; succeeded: boolean; wrongAmount: boolean; pendingOnly: boolean }
  | { kind: 'redeliver'; pick: number }
  | { kind: 'refund'; pick: number }
  | { kind: 'issue'; pick: number }
  | { kind: 'checkIn'; pick: number; nonce: number };

const pick = fc.nat(50);
/** Mostly true: most actions should make progress, a few probe the refusals. */
const mostly = fc.oneof({ weight: 4, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) });
const user = fc.nat(users.length - 1);
const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('holdSeats' as const), user, seatIndexes: fc.uniqueArray(fc.nat(10), { minLength: 1, maxLength: 4 }), seconds: fc.integer({ min: 1, max: 60 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('holdBest' as const), user, quantity: fc.integer({ min: 1, max: 4 }), adjacent: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('release' as const), pick, user }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('extend' as const), pick, user, seconds: fc.integer({ min: 1, max: 30 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 1, max: 8_000 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'sweep' as const }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('order' as const), pick, user, asOwner: mostly, liveHoldsOnly: mostly }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('pay' as const), pick, succeeded: mostly, wrongAmount: mostly.map((b) => !b), pendingOnly: mostly }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('redeliver' as const), pick }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('refund' as const), pick }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('issue' as const), pick }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('checkIn' as const), pick, nonce: fc.nat(2) }) },
);

function nth<T>(items: Iterable<T>, index: number): T | undefined {
  const list = [...items];
  return list.length === 0 ? undefined : list[index % list.length];
}

function step(w: World, a: Action): void {
  switch (a.kind) {
    case 'holdSeats':
    case 'holdBest': {
      const seatIds = a.kind === 'holdSeats'
        ? a.seatIndexes.map((i) => [...w.seats.keys()][i] as string)
        : chooseBestAvailable(w.show.seatMap, [...w.seats.values()].map((s) => ({ ...s, available: s.status === 'AVAILABLE' })), { quantity: a.quantity, allowSplit: !a.adjacent })?.seatIds;
      if (seatIds === undefined) return;
      const placed = w.accept(placeHold({
        show: w.show, holdId: w.id('hold'), userId: users[a.user] as string, requestedSeatIds: seatIds,
        seats: seatIds.flatMap((id) => w.seats.get(id) ?? []), holdSeconds: a.kind === 'holdSeats' ? a.seconds : 10, holdSecondsMax: 900, now: w.now,
      }));
      if (placed === null) return;
      w.holds.set(placed.hold.holdId, placed.hold);
      w.saveSeats(placed.seats);
      return;
    }
    case 'release': {
      const hold = nth(w.holds.values(), a.pick);
      if (hold === undefined || hold.userId !== users[a.user]) return;
      const released = w.accept(lapseHold(hold, w.seatsOf(hold), 'RELEASE'));
      if (released === null) return;
      w.cancelLiveOrder(hold.holdId);
      w.holds.set(hold.holdId, released.hold);
      w.saveSeats(released.seats);
      return;
    }
    case 'extend': {
      const hold = nth(w.holds.values(), a.pick);
      if (hold === undefined) return;
      const extended = w.accept(extendHold({ hold, userId: users[a.user] as string, extendSeconds: a.seconds, extensionsMax: 2, lifeSecondsMax: 60, now: w.now }));
      if (extended === null) return;
      expect(extended.expiresAt).toBeGreaterThan(hold.expiresAt);
      expect(extended.expiresAt).toBeLessThanOrEqual(hold.createdAt + 60_000);
      w.holds.set(hold.holdId, extended);
      return;
    }
    case 'advance':
      w.now += a.ms;
      return;
    case 'sweep':
      for (const hold of [...w.holds.values()].filter((h) => isOverdue(h, w.now))) {
        const expired = w.accept(lapseHold(hold, w.seatsOf(hold), 'EXPIRE'));
        expect(expired, 'an overdue hold can always expire').not.toBeNull();
        if (expired === null) continue;
        w.cancelLiveOrder(hold.holdId);
        w.holds.set(hold.holdId, expired.hold);
        w.saveSeats(expired.seats);
      }
      return;
    case 'order': {
      const hold = nth([...w.holds.values()].filter((h) => !a.liveHoldsOnly || h.status === 'ACTIVE'), a.pick);
      if (hold === undefined) return;
      const opened = w.accept(openOrder({
        hold, userId: a.asOwner ? hold.userId : (users[a.user] as string), orderId: w.id('order'), idempotencyKey: w.id('key'), existingOrder: w.liveOrderOf(hold.holdId), now: w.now,
      }));
      if (opened === null) return;
      const paymentId = w.id('pay');
      const pending = w.accept(moveOrder(opened, 'AWAIT_PAYMENT', w.now, { paymentId }));
      expect(pending).not.toBeNull();
      if (pending === null) return;
      w.orders.set(pending.orderId, pending);
      w.payments.set(paymentId, { paymentId, orderId: pending.orderId, amountCents: pending.amountCents, status: 'PENDING', updatedAt: w.now });
      return;
    }
    case 'pay':
    case 'redeliver': {
      const pendingOnly = a.kind === 'pay' && a.pendingOnly;
      const payment = nth([...w.payments.values()].filter((p) => !pendingOnly || p.status === 'PENDING'), a.pick);
      if (payment === undefined) return;
      const order = w.orders.get(payment.orderId) as Order;
      const hold = w.holds.get(order.holdId) as Hold;
      const succeeded = a.kind === 'redeliver' ? payment.status !== 'FAILED' : a.succeeded;
      const wrongAmount = a.kind === 'pay' && a.wrongAmount;
      const before = { payment, order, hold };
      const settled = w.accept(settlePayment({
        report: { paymentId: payment.paymentId, orderId: order.orderId, status: succeeded ? 'SUCCEEDED' : 'FAILED', amountCents: payment.amountCents + (wrongAmount ? 1 : 0) },
        payment, order, hold, seats: w.seatsOf(hold), now: w.now,
      }));
      if (settled === null) return;
      outcomes.set(settled.outcome, (outcomes.get(settled.outcome) ?? 0) + 1);
      if (settled.outcome === 'DUPLICATE') {
        expect({ payment: settled.payment, order: settled.order, hold: settled.hold }).toEqual(before);
        expect(settled.seats).toHaveLength(0);
        return;
      }
      w.payments.set(payment.paymentId, settled.payment);
      w.orders.set(order.orderId, settled.order);
      w.holds.set(hold.holdId, settled.hold);
      w.saveSeats(settled.seats);
      return;
    }
    case 'refund': {
      const payment = nth([...w.payments.values()].filter((p) => p.status === 'REFUND_PENDING'), a.pick);
      if (payment === undefined) return;
      const done = w.accept(completeRefund(payment, w.orders.get(payment.orderId) as Order, w.now));
      expect(done, 'a pending refund can always complete').not.toBeNull();
      if (done === null) return;
      w.payments.set(payment.paymentId, done.payment);
      w.orders.set(done.order.orderId, done.order);
      return;
    }
    case 'issue': {
      const order = nth(w.orders.values(), a.pick);
      if (order === undefined) return;
      issue(w, order);
      return;
    }
    case 'checkIn': {
      const ticket = nth(w.tickets, a.pick);
      if (ticket === undefined) return;
      const nonce = `scan-${a.nonce}`;
      const wasUsed = ticket.status === 'USED';
      const scanned = w.accept(checkIn(ticket, nonce, w.now));
      if (wasUsed) expect(scanned === null || (scanned.outcome === 'ALREADY_ADMITTED_SAME_SCAN' && ticket.checkInNonce === nonce)).toBe(true);
      if (scanned !== null) w.tickets[w.tickets.indexOf(ticket)] = scanned.ticket;
      return;
    }
  }
}

function issue(w: World, order: Order): void {
  const identities = order.seatIds.map(() => ({ ticketId: w.id('ticket'), code: w.id('code') }));
  const result = w.accept(issueTickets(order, order.seatIds.flatMap((id) => w.seats.get(id) ?? []), identities, w.now));
  if (order.status === 'PAID') expect(result, 'a PAID order can always be ticketed').not.toBeNull();
  if (result === null) return;
  w.tickets.push(...result.tickets);
  w.orders.set(order.orderId, result.order);
}

function checkInvariants(w: World): void {
  const statuses = [...w.seats.values()].map((s) => s.status);
  const count = (status: Seat['status']) => statuses.filter((s) => s === status).length;
  expect(count('AVAILABLE') + count('HELD') + count('SOLD') + count('REFUND_PENDING')).toBe(w.show.capacity);
  expect(w.seats.size).toBe(w.show.capacity);

  // Every seat is in at most one ticket, and at most one live (ACTIVE or CONFIRMED) hold.
  const ticketSeats = w.tickets.map((t) => t.seatId);
  expect(new Set(ticketSeats).size).toBe(ticketSeats.length);
  for (const seat of w.seats.values()) {
    const claims = [...w.holds.values()].filter((h) => (h.status === 'ACTIVE' || h.status === 'CONFIRMED') && h.seatIds.includes(seat.seatId));
    expect(claims.length).toBeLessThanOrEqual(1);
    if (seat.status === 'AVAILABLE') {
      expect(seat.holdId).toBeNull();
      expect(claims).toHaveLength(0);
    } else {
      expect(claims.map((h) => h.holdId)).toEqual([seat.holdId]);
    }
    if (seat.status === 'HELD') expect(claims[0]?.status).toBe('ACTIVE');
    if (seat.status === 'SOLD') {
      expect(claims[0]?.status).toBe('CONFIRMED');
      const owners = [...w.orders.values()].filter((o) => o.holdId === seat.holdId && (o.status === 'PAID' || o.status === 'TICKETED'));
      expect(owners).toHaveLength(1);
    }
  }
  for (const hold of w.holds.values()) {
    const expected = hold.status === 'ACTIVE' ? 'HELD' : hold.status === 'CONFIRMED' ? 'SOLD' : null;
    if (expected !== null) for (const seat of w.seatsOf(hold)) expect({ status: seat.status, holdId: seat.holdId }).toEqual({ status: expected, holdId: hold.holdId });
  }
  // Money is never lost: a successful payment has sold seats or is on its way back to the buyer.
  for (const payment of w.payments.values()) {
    const order = w.orders.get(payment.orderId) as Order;
    if (payment.status === 'SUCCEEDED') expect(['PAID', 'TICKETED']).toContain(order.status);
    if (payment.status === 'REFUND_PENDING') expect(order.status).toBe('CANCELLED');
    if (payment.status === 'REFUNDED') expect(order.status).toBe('REFUNDED');
    if (order.status === 'PAID' || order.status === 'TICKETED') expect(payment.status).toBe('SUCCEEDED');
  }
  for (const order of w.orders.values()) {
    const tickets = w.tickets.filter((t) => t.orderId === order.orderId);
    if (order.status === 'TICKETED') expect(tickets.map((t) => t.seatId).sort()).toEqual([...order.seatIds].sort());
    else expect(tickets).toHaveLength(0);
  }
  const live = [...w.orders.values()].filter(isLiveOrder).map((o) => o.holdId);
  expect(new Set(live).size, 'one live order per hold').toBe(live.length);
}

describe('booking core under random sequences of actions', () => {
  it('never oversells, never loses money, and tickets every paid order', () => {
    let sold = 0;
    let lateOutcomes = 0;
    fc.assert(
      fc.property(fc.array(action, { minLength: 10, maxLength: 80, size: 'max' }), (actions) => {
        const w = new World();
        for (const a of actions) {
          step(w, a);
          checkInvariants(w);
        }
        // At the end of the day, the ticket sweep tickets every PAID order.
        for (const order of [...w.orders.values()].filter((o) => o.status === 'PAID')) issue(w, order);
        checkInvariants(w);
        expect([...w.orders.values()].filter((o) => o.status === 'PAID')).toHaveLength(0);
        sold += [...w.seats.values()].filter((s) => s.status === 'SOLD').length;
        lateOutcomes += [...w.payments.values()].filter((p) => p.status === 'REFUND_PENDING' || p.status === 'REFUNDED').length;
      }),
      { numRuns: 250 },
    );
    // The generator must reach the interesting states, or the property proves little.
    expect(sold).toBeGreaterThan(100);
    expect(lateOutcomes).toBeGreaterThan(0);
    for (const outcome of ['SOLD', 'SOLD_LATE', 'REFUND_REQUIRED', 'CANCELLED', 'DUPLICATE']) expect(outcomes.get(outcome), outcome).toBeGreaterThan(0);
  });
});
