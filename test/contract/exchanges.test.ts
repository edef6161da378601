import { settledOutbox } from './settled-outbox.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hold, SettlementPlan, Show, Ticket } from '../../src/domain/index.js';
import type { Exchange, Refund, TicketDraft } from '../../src/ports/engine/index.js';
import { storeFactories, type TestStoreHandle } from '../support/stores.js';
import { audit, claimBase, ga, held, id, minute, newShow, newUser, orderAwaitingPayment, seated, T0 } from './fixtures.js';

/**
 * Exchanges (issue 25 item 4): swapExchange confirms the new hold, issues its tickets on a new
 * TICKETED order, revokes the old tickets and frees their seats, all in one transaction; a lapsed
 * new hold or a changed old ticket leaves everything as it was. Race: the swap against the new
 * hold's expiry — exactly one wins, never old tickets revoked without new ones.
 */
describe.each(storeFactories)('exchanges on $name', (factory) => {
  let h: TestStoreHandle;
  beforeAll(async () => {
    h = await factory.open();
  });
  afterAll(async () => h?.close());

  const draftsOf = (hold: Hold): TicketDraft[] => hold.lines.flatMap((line): TicketDraft[] => (line.kind === 'SEATS'
    ? line.seatIds.map((seatId) => ({ ticketId: id('tkt'), code: id('code'), sectionId: line.sectionId, seatId, paidCents: 0 }))
    : Array.from({ length: line.quantity }, () => ({ ticketId: id('tkt'), code: id('code'), sectionId: line.sectionId, seatId: null, paidCents: 0 }))));

  async function ticketed(hold: Hold): Promise<{ orderId: string; tickets: readonly Ticket[] }> {
    const { order, payment } = await orderAwaitingPayment(h.store, hold);
    const plan: SettlementPlan = {
      kind: 'SELL', now: T0 + 10,
      payment: { paymentId: payment.paymentId, receivedCents: null, from: 'PENDING', to: 'SUCCEEDED' },
      order: { orderId: order.orderId, from: 'PENDING_PAY', to: 'PAID' },
      hold: { holdId: hold.holdId, from: 'ACTIVE', to: 'CONFIRMED' },
    };
    if (!(await h.store.settlePayment(plan)).ok) throw new Error('settle');
    const issued = await h.store.issueTickets({ orderId: order.orderId, tickets: draftsOf(hold), now: T0 + 20 });
    if (!issued.ok) throw new Error(`issue: ${JSON.stringify(issued)}`);
    return { orderId: order.orderId, tickets: issued.tickets };
  }

  function swapInput(userId: string, old: { orderId: string; tickets: readonly Ticket[] }, oldShow: Show, newHold: Hold, now: number) {
    const tickets = draftsOf(newHold);
    const exchange: Exchange = {
      exchangeId: id('exg'), userId, oldOrderId: old.orderId, oldShowId: oldShow.showId, oldTicketIds: old.tickets.map((t) => t.ticketId),
      newOrderId: id('ord'), newShowId: newHold.showId, newHoldId: newHold.holdId, newTicketIds: tickets.map((t) => t.ticketId), differenceCents: 0, status: 'COMPLETED', createdAt: now,
    };
    return { exchange, tickets: tickets.map((t, i) => ({ ...t, paidCents: 100 + i })), amountCents: newHold.totalPriceCents, differenceRefund: null as Refund | null, now };
  }

  it('swaps in one step: new tickets VALID on a new TICKETED order, old ones INVALID, old seats free again, one outbox event', async () => {
    const show = await newShow(h.store, [seated('A', 1, 10)]);
    const userId = await newUser(h.store);
    const old = await ticketed(held(await h.store.claimSeats({ ...claimBase(show, userId), seatIds: ['A-1-1', 'A-1-2'] })));
    const newHold = held(await h.store.claimSeats({ ...claimBase(show, userId, { now: T0 + 100 }), seatIds: ['A-1-7', 'A-1-8'] }));
    const before = await h.store.doorCounts(show.showId);
    const input = swapInput(userId, old, show, newHold, T0 + 200);
    const head = await h.store.outboxHead();
    const swapped = await h.store.swapExchange(input);
    expect(swapped.ok).toBe(true);
    if (!swapped.ok) return;
    expect(swapped.newOrder).toMatchObject({ orderId: input.exchange.newOrderId, status: 'TICKETED', holdId: newHold.holdId, showId: show.showId });
    expect(swapped.tickets.map((t) => t.seatId)).toEqual(['A-1-7', 'A-1-8']);
    // The new tickets keep the paid prices they were given (issue 32).
    expect((await h.store.ticketsByOrder(input.exchange.newOrderId)).map((t) => t.paidCents)).toEqual([100, 101]);
    expect(swapped.changes.seats.map((s) => [s.seatId, s.status]).sort()).toEqual([['A-1-1', 'AVAILABLE'], ['A-1-2', 'AVAILABLE']]);
    expect(swapped.newShowChanges.seats.map((s) => [s.seatId, s.status]).sort()).toEqual([['A-1-7', 'SOLD'], ['A-1-8', 'SOLD']]);
    expect((await h.store.ticketsByOrder(old.orderId)).map((t) => t.status)).toEqual(['INVALID', 'INVALID']);
    expect((await h.store.ticketsByOrder(input.exchange.newOrderId)).map((t) => t.status)).toEqual(['VALID', 'VALID']);
    expect((await h.store.revokedTicketIds(show.showId, 10)).sort()).toEqual(old.tickets.map((t) => t.ticketId).sort());
    expect((await h.store.doorCounts(show.showId)).admitting).toBe(before.admitting);
    expect((await h.store.getHold(newHold.holdId))?.status).toBe('CONFIRMED');
    expect(await h.store.exchangesOfOrder(old.orderId)).toEqual([input.exchange]);
    // Found from the order it created (a refund follows the chain back to the payment), and not from the old one.
    expect(await h.store.exchangeIntoOrder(input.exchange.newOrderId)).toEqual(input.exchange);
    expect(await h.store.exchangeIntoOrder(old.orderId)).toBeNull();
    const events = await settledOutbox(h.store, head, 2, (e) => (e.type === 'exchange.completed' && e.data.orderId === old.orderId) || (e.type === 'tickets.issued' && e.data.orderId === input.exchange.newOrderId));
    expect(events.map((e) => e.type)).toEqual(['exchange.completed', 'tickets.issued']);
    expect(events[0]?.changes?.seats.map((s) => s.seatId).sort()).toEqual(['A-1-1', 'A-1-2']);
    expect(events[0]?.data).toMatchObject({ orderId: old.orderId, userId, showId: show.showId, oldTicketIds: input.exchange.oldTicketIds, newTicketIds: input.exchange.newTicketIds });
    // The old seat is for sale again (its live claim went with it).
    expect((await h.store.claimSeats({ ...claimBase(show, await newUser(h.store), { now: T0 + 300 }), seatIds: ['A-1-1'] })).ok).toBe(true);
    // Once: the old tickets are gone, so a second swap of the same order (another hold) changes nothing.
    const again = held(await h.store.claimSeats({ ...claimBase(show, userId, { now: T0 + 300 }), seatIds: ['A-1-9', 'A-1-10'] }));
    expect(await h.store.swapExchange(swapInput(userId, old, show, again, T0 + 400))).toEqual({ ok: false, stale: 'ticket' });
    expect((await h.store.getHold(again.holdId))?.status).toBe('ACTIVE');
  });

  it('a partial, cheaper swap (issue 32): only the named tickets go, the difference refund is written with the swap and settles keeping its reason', async () => {
    const show = await newShow(h.store, [seated('A', 1, 10)]);
    const userId = await newUser(h.store);
    const old = await ticketed(held(await h.store.claimSeats({ ...claimBase(show, userId), seatIds: ['A-1-1', 'A-1-2'] })));
    const given = old.tickets[0] as Ticket;
    const newHold = held(await h.store.claimSeats({ ...claimBase(show, userId, { now: T0 + 100 }), seatIds: ['A-1-9'] }));
    const base = swapInput(userId, { orderId: old.orderId, tickets: [given] }, show, newHold, T0 + 200);
    const refund: Refund = {
      refundId: id('rfd'), orderId: old.orderId, userId, showId: show.showId, paymentId: null, amountCents: 30, ticketIds: [], whole: false, status: 'PENDING',
      reason: 'exchange difference', requestedBy: 'BUYER', idempotencyKey: `exchange:${base.exchange.exchangeId}`, createdAt: T0 + 200, updatedAt: T0 + 200,
    };
    // A swap that does not commit writes no refund either.
    const lapsed = held(await h.store.claimSeats({ ...claimBase(show, userId, { now: T0 + 100, ttl: minute }), seatIds: ['A-1-8'] }));
    const stale = swapInput(userId, { orderId: old.orderId, tickets: [given] }, show, lapsed, lapsed.expiresAt + 1);
    expect(await h.store.swapExchange({ ...stale, differenceRefund: { ...refund, refundId: id('rfd'), idempotencyKey: 'stale' } })).toEqual({ ok: false, stale: 'hold' });
    expect(await h.store.refundsByOrder(old.orderId)).toEqual([]);
    const swapped = await h.store.swapExchange({ ...base, differenceRefund: refund });
    expect(swapped.ok).toBe(true);
    // The other ticket stays on the old order, which stays TICKETED; the swap's refund takes its part of what is left.
    expect((await h.store.ticketsByOrder(old.orderId)).map((t) => [t.ticketId, t.status])).toEqual(old.tickets.map((t) => [t.ticketId, t === given ? 'INVALID' : 'VALID']));
    expect((await h.store.getOrder(old.orderId))?.status).toBe('TICKETED');
    expect(await h.store.refundsByOrder(old.orderId)).toEqual([refund]);
    expect(await h.store.refundedCentsOfOrder(old.orderId)).toBe(30);
    // The auditor learns which orders gave tickets up (a partly exchanged order may later be REFUNDED beside a PARTIALLY_REFUNDED payment).
    expect((await audit(h.store, show.showId)).exchangedOutOrderIds).toEqual([old.orderId]);
    const settled = await h.store.settleRefund({ refundId: refund.refundId, outcome: 'REFUNDED', reason: null, now: T0 + 300 });
    expect(settled.ok && settled.refund).toMatchObject({ status: 'REFUNDED', reason: 'exchange difference', ticketIds: [] });
    expect((await h.store.getOrder(old.orderId))?.refundedCents).toBe(30);
    expect((await h.store.getOrder(old.orderId))?.status).toBe('TICKETED');
  });

  it('a dearer swap (issue 32): recorded PENDING, payExchange commits payment, order, hold, old and new tickets and the exchange at once; a changed old ticket rolls it all back; abandonExchange once', async () => {
    const show = await newShow(h.store, [seated('A', 1, 10)]);
    const userId = await newUser(h.store);
    const old = await ticketed(held(await h.store.claimSeats({ ...claimBase(show, userId), seatIds: ['A-1-1'] })));
    const begin = async (seatIds: string[], now: number) => {
      const hold = held(await h.store.claimSeats({ ...claimBase(show, userId, { now }), seatIds }));
      const { order, payment } = await orderAwaitingPayment(h.store, hold, now + 1);
      const exchange: Exchange = {
        exchangeId: id('exg'), userId, oldOrderId: old.orderId, oldShowId: show.showId, oldTicketIds: old.tickets.map((t) => t.ticketId),
        newOrderId: order.orderId, newShowId: show.showId, newHoldId: hold.holdId, newTicketIds: [], differenceCents: 100, status: 'PENDING', createdAt: now + 2,
      };
      await h.store.beginExchange(exchange);
      return { hold, order, payment, exchange };
    };
    const a = await begin(['A-1-5', 'A-1-6'], T0 + 100);
    expect(await h.store.exchangeIntoOrder(a.order.orderId)).toEqual(a.exchange);
    expect(await h.store.exchangesOfOrder(old.orderId)).toEqual([a.exchange]);
    // Pending: nothing of the old order moved.
    expect((await h.store.ticketsByOrder(old.orderId)).map((t) => t.status)).toEqual(['VALID']);
    const tickets = draftsOf(a.hold).map((t, i) => ({ ...t, paidCents: 500 + i }));
    const paid = await h.store.payExchange({ exchange: a.exchange, paymentId: a.payment.paymentId, tickets, amountCents: 1001, now: T0 + 200 });
    expect(paid.ok).toBe(true);
    if (!paid.ok) return;
    expect(paid.newOrder).toMatchObject({ orderId: a.order.orderId, status: 'TICKETED', amountCents: 1001 });
    expect(paid.exchange).toMatchObject({ status: 'COMPLETED', newTicketIds: tickets.map((t) => t.ticketId) });
    expect(await h.store.exchangeIntoOrder(a.order.orderId)).toEqual(paid.exchange);
    expect((await h.store.getPayment(a.payment.paymentId))?.status).toBe('SUCCEEDED');
    expect((await h.store.getHold(a.hold.holdId))?.status).toBe('CONFIRMED');
    expect((await h.store.ticketsByOrder(old.orderId)).map((t) => t.status)).toEqual(['INVALID']);
    expect((await h.store.ticketsByOrder(a.order.orderId)).map((t) => [t.status, t.paidCents])).toEqual([['VALID', 500], ['VALID', 501]]);
    expect(paid.changes.seats.map((s) => [s.seatId, s.status])).toEqual([['A-1-1', 'AVAILABLE']]);
    // Once: paid again, the payment is no longer PENDING.
    expect(await h.store.payExchange({ exchange: a.exchange, paymentId: a.payment.paymentId, tickets: draftsOf(a.hold), amountCents: 1001, now: T0 + 210 })).toEqual({ ok: false, stale: 'payment' });
    // A second dearer swap of the same (now INVALID) ticket: payExchange rolls everything back, stale ticket.
    const b = await begin(['A-1-8'], T0 + 300);
    expect(await h.store.payExchange({ exchange: b.exchange, paymentId: b.payment.paymentId, tickets: draftsOf(b.hold), amountCents: 100, now: T0 + 400 })).toEqual({ ok: false, stale: 'ticket' });
    expect((await h.store.getPayment(b.payment.paymentId))?.status).toBe('PENDING');
    expect((await h.store.getOrder(b.order.orderId))?.status).toBe('PENDING_PAY');
    expect((await h.store.getHold(b.hold.holdId))?.status).toBe('ACTIVE');
    expect(await h.store.ticketsByOrder(b.order.orderId)).toEqual([]);
    expect(await h.store.abandonExchange(b.exchange.exchangeId, T0 + 500)).toBe(true);
    expect(await h.store.abandonExchange(b.exchange.exchangeId, T0 + 510)).toBe(false);
    expect((await h.store.exchangeIntoOrder(b.order.orderId))?.status).toBe('ABANDONED');
    // A lapse of a pending exchange's hold abandons it with its order.
    const c = await begin(['A-1-9'], T0 + 600);
    const lapsed = await h.store.lapseHold({ holdId: c.hold.holdId, event: 'RELEASE', expectedExpiresAt: c.hold.expiresAt, now: T0 + 700 });
    expect(lapsed.ok).toBe(true);
    expect((await h.store.exchangeIntoOrder(c.order.orderId))?.status).toBe('ABANDONED');
  });

  it('to another show with general admission: units back to the old section, new units sold, the buyer\'s count moves', async () => {
    const showA = await newShow(h.store, [ga('G', 10, 4000)]);
    const showB = await newShow(h.store, [ga('G', 10, 4000)]);
    const userId = await newUser(h.store);
    const old = await ticketed(held(await h.store.claimUnits({ ...claimBase(showA, userId), sectionId: 'G', quantity: 2 })));
    const newHold = held(await h.store.claimUnits({ ...claimBase(showB, userId, { now: T0 + 100 }), sectionId: 'G', quantity: 2 }));
    const swapped = await h.store.swapExchange(swapInput(userId, old, showA, newHold, T0 + 200));
    expect(swapped.ok).toBe(true);
    const a = await audit(h.store, showA.showId);
    expect(a.sections[0]).toMatchObject({ available: 10 });
    expect(a.userUnits?.find((u) => u.userId === userId)?.units ?? 0).toBe(0);
    expect((await audit(h.store, showB.showId)).sections[0]).toMatchObject({ available: 8 });
  });

  it('a new hold that expired before the swap: stale hold, nothing changed (old tickets VALID, the hold as it was)', async () => {
    const show = await newShow(h.store, [seated('A', 1, 10)]);
    const userId = await newUser(h.store);
    const old = await ticketed(held(await h.store.claimSeats({ ...claimBase(show, userId), seatIds: ['A-1-3'] })));
    const newHold = held(await h.store.claimSeats({ ...claimBase(show, userId, { now: T0 + 100, ttl: minute }), seatIds: ['A-1-4'] }));
    const input = swapInput(userId, old, show, newHold, newHold.expiresAt + 1);
    expect(await h.store.swapExchange(input)).toEqual({ ok: false, stale: 'hold' });
    expect((await h.store.ticketsByOrder(old.orderId)).map((t) => t.status)).toEqual(['VALID']);
    expect(await h.store.getOrder(input.exchange.newOrderId)).toBeNull();
    expect(await h.store.exchangesOfOrder(old.orderId)).toEqual([]);
    expect((await h.store.getHold(newHold.holdId))?.status).toBe('ACTIVE');
    // A hold the buyer let go (or that lapsed) before its end is not ACTIVE: its seats are no longer the buyer's.
    const gone = held(await h.store.claimSeats({ ...claimBase(show, userId, { now: T0 + 100 }), seatIds: ['A-1-6'] }));
    expect((await h.store.lapseHold({ holdId: gone.holdId, event: 'RELEASE', expectedExpiresAt: gone.expiresAt, now: T0 + 150 })).ok).toBe(true);
    expect(await h.store.swapExchange(swapInput(userId, old, show, gone, T0 + 200))).toEqual({ ok: false, stale: 'hold' });
    expect((await h.store.ticketsByOrder(old.orderId)).map((t) => t.status)).toEqual(['VALID']);
    // Someone else's hold is not the buyer's to swap in.
    const theirs = held(await h.store.claimSeats({ ...claimBase(show, await newUser(h.store), { now: T0 + 100 }), seatIds: ['A-1-5'] }));
    expect(await h.store.swapExchange(swapInput(userId, old, show, theirs, T0 + 200))).toEqual({ ok: false, stale: 'hold' });
  });

  it('an old ticket no longer VALID rolls the whole swap back: the new hold stays ACTIVE, its seats HELD, no new order', async () => {
    const show = await newShow(h.store, [seated('A', 1, 10)]);
    const userId = await newUser(h.store);
    const old = await ticketed(held(await h.store.claimSeats({ ...claimBase(show, userId), seatIds: ['A-1-1', 'A-1-2'] })));
    const used = old.tickets[1] as Ticket;
    expect((await h.store.checkIn({ ticket: { ...used, status: 'USED', usedAt: T0 + 50 }, expectedStatus: 'VALID' })).ok).toBe(true);
    const newHold = held(await h.store.claimSeats({ ...claimBase(show, userId, { now: T0 + 100 }), seatIds: ['A-1-7', 'A-1-8'] }));
    const input = swapInput(userId, old, show, newHold, T0 + 200);
    expect(await h.store.swapExchange(input)).toEqual({ ok: false, stale: 'ticket' });
    expect((await h.store.ticketsByOrder(old.orderId)).map((t) => t.status)).toEqual(['VALID', 'USED']);
    expect((await h.store.getHold(newHold.holdId))?.status).toBe('ACTIVE');
    expect(await h.store.getOrder(input.exchange.newOrderId)).toBeNull();
    // The new seats are still only held: the buyer's release frees them.
    const released = await h.store.lapseHold({ holdId: newHold.holdId, event: 'RELEASE', expectedExpiresAt: newHold.expiresAt, now: T0 + 300 });
    expect(released.ok && released.changes?.seats.map((s) => s.status)).toEqual(['AVAILABLE', 'AVAILABLE']);
  });

  it('race: the swap against the new hold\'s expiry, many times: exactly one wins, never old tickets revoked without new ones', async () => {
    const show = await newShow(h.store, [seated('A', 10, 10)]);
    let swaps = 0;
    let expiries = 0;
    for (let i = 0; i < 8; i++) {
      const userId = await newUser(h.store);
      const old = await ticketed(held(await h.store.claimSeats({ ...claimBase(show, userId), seatIds: [`A-${i + 1}-1`] })));
      const newHold = held(await h.store.claimSeats({ ...claimBase(show, userId, { now: T0 + 100, ttl: minute }), seatIds: [`A-${i + 1}-5`] }));
      // Both at the same instant, just before the hold's end: each sees it due or not by its own clock.
      const input = swapInput(userId, old, show, newHold, newHold.expiresAt - 1);
      const [swapped, lapsed] = await Promise.all([
        h.store.swapExchange(input),
        h.store.lapseHold({ holdId: newHold.holdId, event: 'EXPIRE', expectedExpiresAt: newHold.expiresAt, now: newHold.expiresAt }),
      ]);
      expect(swapped.ok !== lapsed.ok).toBe(true);
      const oldStatuses = (await h.store.ticketsByOrder(old.orderId)).map((t) => t.status);
      const newTickets = await h.store.ticketsByOrder(input.exchange.newOrderId);
      if (swapped.ok) {
        swaps++;
        expect(oldStatuses).toEqual(['INVALID']);
        expect(newTickets.map((t) => t.status)).toEqual(['VALID']);
        expect((await h.store.getHold(newHold.holdId))?.status).toBe('CONFIRMED');
      } else {
        expiries++;
        expect(swapped).toEqual({ ok: false, stale: 'hold' });
        expect(oldStatuses).toEqual(['VALID']);
        expect(newTickets).toEqual([]);
        expect((await h.store.getHold(newHold.holdId))?.status).toBe('EXPIRED');
      }
    }
    expect(swaps + expiries).toBe(8);
  });
});
