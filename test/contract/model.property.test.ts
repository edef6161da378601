import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planTicketIssue, refundInstead, settlePayment, unitsOf, type Hold, type Order, type Payment, type Show } from '../../src/domain/index.js';
import type { ShowAudit, Store } from '../../src/ports/engine/index.js';
import { storeFactories, type TestStoreHandle } from '../support/stores.js';
import { claimBase, ga, id, minute, newShow, newUser, orderAwaitingPayment, seated, T0 } from './fixtures.js';

/**
 * The booking loop as random sequences of buyer, clock and provider actions, applied the way the
 * application applies them (the pure domain decides plans, the store's named operations commit
 * them), on the configured backend. After every step the stored state must satisfy what an
 * auditor checks: every seat in at most one live hold, counted stock and per-user units equal to
 * what live holds and paid orders own, no money taken for an unpaid order, one ticket per unit.
 */
type Action =
  | { kind: 'seats'; user: number; seats: number[] }
  | { kind: 'best'; user: number; quantity: number }
  | { kind: 'units'; user: number; quantity: number }
  | { kind: 'release' | 'expire' | 'order'; hold: number }
  | { kind: 'pay'; order: number; ok: boolean }
  | { kind: 'issue'; order: number }
  | { kind: 'tick'; ms: number };

const action: fc.Arbitrary<Action> = fc.oneof(
  fc.record({ kind: fc.constant('seats' as const), user: fc.nat(2), seats: fc.uniqueArray(fc.nat(7), { minLength: 1, maxLength: 3 }) }),
  fc.record({ kind: fc.constant('best' as const), user: fc.nat(2), quantity: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ kind: fc.constant('units' as const), user: fc.nat(2), quantity: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ kind: fc.constantFrom('release' as const, 'expire' as const, 'order' as const), hold: fc.nat(20) }),
  fc.record({ kind: fc.constant('pay' as const), order: fc.nat(20), ok: fc.boolean() }),
  fc.record({ kind: fc.constant('issue' as const), order: fc.nat(20) }),
  fc.record({ kind: fc.constant('tick' as const), ms: fc.integer({ min: 0, max: 2 * minute }) }),
);

const userUnitsMax = 5;
const gaCapacity = 6;

function check(a: ShowAudit): void {
  const holds = new Map(a.holds.map((h) => [h.holdId, h]));
  const orders = a.orders;
  const liveOwner = (h: ShowAudit['holds'][number]) => h.status === 'ACTIVE' || (h.status === 'CONFIRMED' && orders.some((o) => o.holdId === h.holdId && (o.status === 'PAID' || o.status === 'TICKETED')));
  for (const seat of a.seats) {
    const owner = seat.holdId === null ? undefined : holds.get(seat.holdId);
    if (seat.status === 'AVAILABLE') expect(seat.holdId).toBeNull();
    if (seat.status === 'HELD') expect(owner?.status, `${seat.seatId} HELD`).toBe('ACTIVE');
    if (seat.status === 'SOLD') expect(owner?.status, `${seat.seatId} SOLD`).toBe('CONFIRMED');
  }
  const claimsOf = new Map<string, number>();
  for (const h of a.holds.filter(liveOwner)) for (const l of h.lines) if (l.kind === 'SEATS') for (const s of l.seatIds) claimsOf.set(s, (claimsOf.get(s) ?? 0) + 1);
  expect([...claimsOf].filter(([, n]) => n > 1), 'seats in two live holds').toEqual([]);
  const ownedUnits = a.holds.filter(liveOwner).reduce((n, h) => n + h.lines.reduce((m, l) => m + (l.kind === 'UNITS' ? l.quantity : 0), 0), 0);
  const section = a.sections.find((s) => s.sectionId === 'GA');
  expect(section?.available, 'GA stock = capacity - units of live holds').toBe(gaCapacity - ownedUnits);
  const perUser = new Map<string, number>();
  for (const h of a.holds.filter(liveOwner)) perUser.set(h.userId, (perUser.get(h.userId) ?? 0) + unitsOf(h.lines));
  for (const u of a.userUnits) expect(u.units, `units of ${u.userId}`).toBe(perUser.get(u.userId) ?? 0);
  for (const p of a.payments) {
    const order = orders.find((o) => o.orderId === p.orderId);
    if (p.status === 'SUCCEEDED') expect(['PAID', 'TICKETED'], `money taken for a ${order?.status} order`).toContain(order?.status);
  }
  const admitting = a.tickets.filter((k) => k.status !== 'INVALID' && k.seatId !== null).map((k) => k.seatId);
  expect(new Set(admitting).size).toBe(admitting.length);
  for (const o of orders.filter((x) => x.status === 'TICKETED')) expect(a.tickets.filter((k) => k.orderId === o.orderId)).toHaveLength(unitsOf(o.lines));
}

describe.each(storeFactories)('the booking loop as a model on $name', (factory) => {
  let h: TestStoreHandle;
  beforeAll(async () => {
    h = await factory.open();
  });
  afterAll(async () => h?.close());

  async function run(store: Store, actions: readonly Action[]): Promise<void> {
    const show: Show = await newShow(store, [seated('A', 2, 4), ga('GA', gaCapacity)], userUnitsMax);
    const users = [await newUser(store), await newUser(store), await newUser(store)];
    const holds: Hold[] = [];
    const orders: { order: Order; payment: Payment }[] = [];
    let now = T0;
    const base = (user: number) => claimBase(show, users[user] as string, { now, ttl: minute, userUnitsMax });
    for (const a of actions) {
      if (a.kind === 'tick') now += a.ms;
      if (a.kind === 'seats') {
        const o = await store.claimSeats({ ...base(a.user), seatIds: a.seats.map((n) => `A-${1 + Math.floor(n / 4)}-${1 + (n % 4)}`) });
        if (o.ok) holds.push(o.hold);
      }
      if (a.kind === 'best') {
        const o = await store.claimBestAvailable({ ...base(a.user), quantity: a.quantity, adjacentOnly: false });
        if (o.ok) holds.push(o.hold);
      }
      if (a.kind === 'units') {
        const o = await store.claimUnits({ ...base(a.user), sectionId: 'GA', quantity: a.quantity });
        if (o.ok) holds.push(o.hold);
      }
      const hold = 'hold' in a ? holds[a.hold % Math.max(1, holds.length)] : undefined;
      if (hold !== undefined && (a.kind === 'release' || a.kind === 'expire')) {
        const current = await store.getHold(hold.holdId);
        if (current?.status === 'ACTIVE') await store.lapseHold({ holdId: hold.holdId, event: a.kind === 'release' ? 'RELEASE' : 'EXPIRE', expectedExpiresAt: current.expiresAt, now: a.kind === 'expire' ? Math.max(now, current.expiresAt) : now });
      }
      if (hold !== undefined && a.kind === 'order') {
        const current = await store.getHold(hold.holdId);
        if (current?.status === 'ACTIVE' && current.expiresAt > now && (await store.liveOrderOfHold(hold.holdId)) === null) orders.push(await orderAwaitingPayment(store, current, now));
      }
      const placed = 'order' in a ? orders[a.order % Math.max(1, orders.length)] : undefined;
      if (placed !== undefined && a.kind === 'pay') {
        const [payment, order, held] = await Promise.all([store.getPayment(placed.payment.paymentId), store.getOrder(placed.order.orderId), store.getHold(placed.order.holdId)]);
        if (payment === null || order === null || held === null) throw new Error('lost a row');
        const report = { paymentId: payment.paymentId, orderId: order.orderId, status: a.ok ? 'SUCCEEDED' as const : 'FAILED' as const, amountCents: payment.amountCents };
        const settled = settlePayment({ report, payment, order, hold: held, now });
        if (settled.ok && settled.value.plan !== null) {
          const applied = await store.settlePayment(settled.value.plan);
          if (!applied.ok && 'code' in applied) {
            const instead = refundInstead(payment, now);
            if (instead.ok && instead.value.plan !== null) expect((await store.settlePayment(instead.value.plan)).ok).toBe(true);
          }
        }
      }
      if (placed !== undefined && a.kind === 'issue') {
        const order = await store.getOrder(placed.order.orderId);
        if (order !== null) {
          const identities = Array.from({ length: unitsOf(order.lines) }, () => ({ ticketId: id('tkt'), code: id('code') }));
          const drafts = planTicketIssue(order, identities, now);
          if (drafts.ok) expect((await store.issueTickets({ orderId: order.orderId, tickets: drafts.value, now })).ok).toBe(true);
        }
      }
      const read = await store.audit(show.showId);
      if (read === null) throw new Error('show gone');
      check(read);
    }
  }

  it('keeps every invariant after every step of random buyer, clock and provider actions', async () => {
    await fc.assert(fc.asyncProperty(fc.array(action, { minLength: 5, maxLength: 30 }), (actions) => run(h.store, actions)), { numRuns: 40 });
  }, 120_000);
});
