import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hold, SettlementPlan, Show, Ticket } from '../../src/domain/index.js';
import type { Refund, TicketDraft } from '../../src/ports/engine/index.js';
import { storeFactories, type TestStoreHandle } from '../support/stores.js';
import { audit, claimBase, ga, held, id, newShow, newUser, orderAwaitingPayment, seated, T0 } from './fixtures.js';

/**
 * Refunds (issue 25): requestRefund revokes tickets at once and parks their seats REFUND_PENDING;
 * settleRefund gives seats and units back exactly once (REFUNDED) or reinstates the tickets
 * (REFUSED). Races: a refund and a check-in of one ticket, two refunds of one ticket.
 */
describe.each(storeFactories)('refunds on $name', (factory) => {
  let h: TestStoreHandle;
  beforeAll(async () => {
    h = await factory.open();
  });
  afterAll(async () => h?.close());

  /** A ticketed order for the hold. */
  async function ticketed(hold: Hold): Promise<{ orderId: string; paymentId: string; tickets: readonly Ticket[] }> {
    const { order, payment } = await orderAwaitingPayment(h.store, hold);
    const plan: SettlementPlan = {
      kind: 'SELL', now: T0 + 10,
      payment: { paymentId: payment.paymentId, receivedCents: null, from: 'PENDING', to: 'SUCCEEDED' },
      order: { orderId: order.orderId, from: 'PENDING_PAY', to: 'PAID' },
      hold: { holdId: hold.holdId, from: 'ACTIVE', to: 'CONFIRMED' },
    };
    if (!(await h.store.settlePayment(plan)).ok) throw new Error('settle');
    const drafts: TicketDraft[] = hold.lines.flatMap((line): TicketDraft[] => (line.kind === 'SEATS'
      ? line.seatIds.map((seatId) => ({ ticketId: id('tkt'), code: id('code'), sectionId: line.sectionId, seatId, paidCents: 0 }))
      : Array.from({ length: line.quantity }, () => ({ ticketId: id('tkt'), code: id('code'), sectionId: line.sectionId, seatId: null, paidCents: 0 }))));
    const issued = await h.store.issueTickets({ orderId: order.orderId, tickets: drafts, now: T0 + 20 });
    if (!issued.ok) throw new Error(`issue: ${JSON.stringify(issued)}`);
    return { orderId: order.orderId, paymentId: payment.paymentId, tickets: issued.tickets };
  }

  const refundOf = (show: Show, userId: string, order: { orderId: string; paymentId: string }, ticketIds: string[], whole: boolean, amountCents: number, key: string | null = id('key')): Refund => ({
    refundId: id('rfd'), orderId: order.orderId, userId, showId: show.showId, paymentId: order.paymentId, amountCents, ticketIds, whole,
    status: 'PENDING', reason: null, requestedBy: 'BUYER', idempotencyKey: key, createdAt: T0 + 100, updatedAt: T0 + 100,
  });

  it('a whole refund revokes the tickets at once, then frees the seats exactly once when the provider confirms', async () => {
    const show = await newShow(h.store, [seated('A', 1, 10)]);
    const userId = await newUser(h.store);
    const hold = held(await h.store.claimSeats({ ...claimBase(show, userId), seatIds: ['A-1-1', 'A-1-2'] }));
    const order = await ticketed(hold);
    const before = await h.store.doorCounts(show.showId);
    const refund = refundOf(show, userId, order, order.tickets.map((t) => t.ticketId), true, 10_000);
    const asked = await h.store.requestRefund({ refund, orderFrom: 'TICKETED', now: T0 + 100 });
    expect(asked.ok).toBe(true);
    if (!asked.ok) return;
    expect(asked.order.status).toBe('REFUND_PENDING');
    expect(asked.changes.seats.map((s) => [s.seatId, s.status]).sort()).toEqual([['A-1-1', 'REFUND_PENDING'], ['A-1-2', 'REFUND_PENDING']]);
    expect((await h.store.ticketsByOrder(order.orderId)).map((t) => t.status)).toEqual(['INVALID', 'INVALID']);
    expect((await h.store.revokedTicketIds(show.showId, 10)).sort()).toEqual(order.tickets.map((t) => t.ticketId).sort());
    expect((await h.store.doorCounts(show.showId)).admitting).toBe(before.admitting - 2);

    const settled = await h.store.settleRefund({ refundId: refund.refundId, outcome: 'REFUNDED', reason: null, now: T0 + 200 });
    expect(settled.ok).toBe(true);
    if (!settled.ok) return;
    expect(settled.changes.seats.map((s) => [s.seatId, s.status]).sort()).toEqual([['A-1-1', 'AVAILABLE'], ['A-1-2', 'AVAILABLE']]);
    const stored = await h.store.getOrder(order.orderId);
    expect(stored).toMatchObject({ status: 'REFUNDED', refundedCents: 10_000 });
    // Exactly once: a second confirmation changes nothing.
    expect(await h.store.settleRefund({ refundId: refund.refundId, outcome: 'REFUNDED', reason: null, now: T0 + 201 })).toEqual({ ok: false, stale: 'refund' });
    // The seat is free for good: another buyer can hold it (its old claim went with it).
    const other = await h.store.claimSeats({ ...claimBase(show, await newUser(h.store), { now: T0 + 300 }), seatIds: ['A-1-1'] });
    expect(other.ok).toBe(true);
    expect((await h.store.getRefund(refund.refundId))?.status).toBe('REFUNDED');
  });

  it('the payment row follows its confirmed refunds (issue 32): PARTIALLY_REFUNDED, then REFUNDED; a refused refund moves nothing; two settling at once end REFUNDED', async () => {
    const show = await newShow(h.store, [seated('A', 1, 10)]);
    const userId = await newUser(h.store);
    const hold = held(await h.store.claimSeats({ ...claimBase(show, userId), seatIds: ['A-1-5', 'A-1-6', 'A-1-7'] }));
    const order = await ticketed(hold);
    const [t1, t2, t3] = order.tickets.map((t) => t.ticketId) as [string, string, string];
    const paymentStatus = async (): Promise<string | undefined> => (await h.store.getPayment(order.paymentId))?.status;
    const refused = refundOf(show, userId, order, [t1], false, 5000);
    expect((await h.store.requestRefund({ refund: refused, orderFrom: 'TICKETED', now: T0 + 100 })).ok).toBe(true);
    expect((await h.store.settleRefund({ refundId: refused.refundId, outcome: 'REFUSED', reason: 'no', now: T0 + 110 })).ok).toBe(true);
    expect(await paymentStatus()).toBe('SUCCEEDED');
    const first = refundOf(show, userId, order, [t1], false, 5000);
    expect((await h.store.requestRefund({ refund: first, orderFrom: 'TICKETED', now: T0 + 120 })).ok).toBe(true);
    expect((await h.store.settleRefund({ refundId: first.refundId, outcome: 'REFUNDED', reason: null, now: T0 + 130 })).ok).toBe(true);
    expect(await paymentStatus()).toBe('PARTIALLY_REFUNDED');
    // The last two tickets, refunded apart and confirmed at the same moment: whichever settles last sees both.
    const second = refundOf(show, userId, order, [t2], false, 5000);
    const third = refundOf(show, userId, order, [t3], true, 5000);
    expect((await h.store.requestRefund({ refund: second, orderFrom: 'TICKETED', now: T0 + 140 })).ok).toBe(true);
    expect((await h.store.requestRefund({ refund: third, orderFrom: 'TICKETED', now: T0 + 141 })).ok).toBe(true);
    const both = await Promise.all([second, third].map((r) => h.store.settleRefund({ refundId: r.refundId, outcome: 'REFUNDED', reason: null, now: T0 + 150 })));
    expect(both.every((b) => b.ok)).toBe(true);
    expect(await paymentStatus()).toBe('REFUNDED');
  });

  it('a partial refund of counted units gives them back to the stock once; the order stays TICKETED with refundedCents', async () => {
    const show = await newShow(h.store, [ga('G', 10, 4000)]);
    const userId = await newUser(h.store);
    const hold = held(await h.store.claimUnits({ ...claimBase(show, userId), sectionId: 'G', quantity: 3 }));
    const order = await ticketed(hold);
    const first = order.tickets[0] as Ticket;
    const refund = refundOf(show, userId, order, [first.ticketId], false, 4000);
    const asked = await h.store.requestRefund({ refund, orderFrom: 'TICKETED', now: T0 + 100 });
    expect(asked.ok && asked.order.status).toBe('TICKETED');
    expect((await audit(h.store, show.showId)).sections[0]).toMatchObject({ available: 7 });
    const settled = await h.store.settleRefund({ refundId: refund.refundId, outcome: 'REFUNDED', reason: null, now: T0 + 200 });
    expect(settled.ok && settled.changes.stock).toEqual([expect.objectContaining({ sectionId: 'G', delta: 1 })]);
    // Settled once: the unit goes back once, the money is counted once.
    expect(await h.store.settleRefund({ refundId: refund.refundId, outcome: 'REFUNDED', reason: null, now: T0 + 201 })).toEqual({ ok: false, stale: 'refund' });
    const after = await audit(h.store, show.showId);
    expect(after.sections[0]).toMatchObject({ available: 8 });
    expect(after.userUnits?.find((u) => u.userId === userId)?.units).toBe(2);
    expect(await h.store.getOrder(order.orderId)).toMatchObject({ status: 'TICKETED', refundedCents: 4000 });
    expect(await h.store.refundedCentsOfOrder(order.orderId)).toBe(4000);
    // A second partial refund is a refund of its own (its own id), of another ticket.
    const second = { ...refundOf(show, userId, order, [(order.tickets[1] as Ticket).ticketId], false, 4000), createdAt: T0 + 300, updatedAt: T0 + 300 };
    expect((await h.store.requestRefund({ refund: second, orderFrom: 'TICKETED', now: T0 + 300 })).ok).toBe(true);
    expect((await h.store.refundsByOrder(order.orderId)).map((r) => r.refundId)).toEqual([refund.refundId, second.refundId]);
  });

  it('a refund the provider refuses makes the tickets valid again, the seats SOLD and the order TICKETED', async () => {
    const show = await newShow(h.store, [seated('A', 1, 10)]);
    const userId = await newUser(h.store);
    const hold = held(await h.store.claimSeats({ ...claimBase(show, userId), seatIds: ['A-1-3'] }));
    const order = await ticketed(hold);
    const refund = refundOf(show, userId, order, order.tickets.map((t) => t.ticketId), true, 5000);
    expect((await h.store.requestRefund({ refund, orderFrom: 'TICKETED', now: T0 + 100 })).ok).toBe(true);
    const refused = await h.store.settleRefund({ refundId: refund.refundId, outcome: 'REFUSED', reason: 'declined', now: T0 + 200 });
    expect(refused.ok && refused.refund).toMatchObject({ status: 'REFUSED', reason: 'declined' });
    expect((await h.store.ticketsByOrder(order.orderId)).map((t) => t.status)).toEqual(['VALID']);
    expect((await audit(h.store, show.showId)).seats.find((s) => s.seatId === 'A-1-3')?.status).toBe('SOLD');
    expect((await h.store.getOrder(order.orderId))?.status).toBe('TICKETED');
    expect(await h.store.revokedTicketIds(show.showId, 10)).toEqual([]);
  });

  it('the same key again is the same refund (REFUND_EXISTS), nothing written twice', async () => {
    const show = await newShow(h.store, [seated('A', 1, 10)]);
    const userId = await newUser(h.store);
    const order = await ticketed(held(await h.store.claimSeats({ ...claimBase(show, userId), seatIds: ['A-1-4', 'A-1-5'] })));
    const key = id('key');
    const first = refundOf(show, userId, order, [(order.tickets[0] as Ticket).ticketId], false, 5000, key);
    expect((await h.store.requestRefund({ refund: first, orderFrom: 'TICKETED', now: T0 + 100 })).ok).toBe(true);
    const again = await h.store.requestRefund({ refund: refundOf(show, userId, order, [(order.tickets[1] as Ticket).ticketId], false, 5000, key), orderFrom: 'TICKETED', now: T0 + 101 });
    expect(again).toMatchObject({ ok: false, code: 'REFUND_EXISTS', refund: { refundId: first.refundId } });
    expect((await h.store.ticketsByOrder(order.orderId)).map((t) => t.status).sort()).toEqual(['INVALID', 'VALID']);
  });

  it('race: a refund and a check-in of the same ticket, 10 rounds: exactly one wins each time', async () => {
    const show = await newShow(h.store, [seated('R', 1, 10)]);
    const staff = await newUser(h.store);
    for (let round = 0; round < 10; round++) {
      const userId = await newUser(h.store);
      const order = await ticketed(held(await h.store.claimSeats({ ...claimBase(show, userId), seatIds: [`R-1-${round + 1}`] })));
      const ticket = order.tickets[0] as Ticket;
      const used: Ticket = { ...ticket, status: 'USED', usedAt: T0 + 150, checkInNonce: id('n'), checkedInBy: staff, checkInGate: null, checkInDevice: null };
      // Either goes first (a serialising store runs them in call order): alternate which is asked first.
      const askRefund = () => h.store.requestRefund({ refund: refundOf(show, userId, order, [ticket.ticketId], true, 5000), orderFrom: 'TICKETED', now: T0 + 150 });
      const askCheckIn = () => h.store.checkIn({ ticket: used, expectedStatus: 'VALID' });
      const [refund, checkIn] = round % 2 === 0
        ? await Promise.all([askRefund(), askCheckIn()])
        : await Promise.all([askCheckIn(), askRefund()]).then(([c, r]) => [r, c] as const);
      expect([refund.ok, checkIn.ok].filter(Boolean), `round ${round}`).toHaveLength(1);
      const stored = await h.store.getTicket(ticket.ticketId);
      expect(stored?.status).toBe(refund.ok ? 'INVALID' : 'USED');
      if (!refund.ok) expect(refund).toEqual({ ok: false, stale: 'ticket' });
    }
  });

  it('race: two refunds of the same ticket at once, 10 rounds: exactly one refund is recorded', async () => {
    const show = await newShow(h.store, [seated('S', 1, 10)]);
    for (let round = 0; round < 10; round++) {
      const userId = await newUser(h.store);
      const order = await ticketed(held(await h.store.claimSeats({ ...claimBase(show, userId), seatIds: [`S-1-${round + 1}`] })));
      const ids = order.tickets.map((t) => t.ticketId);
      // Different keys (two devices): the ticket's VALID -> INVALID (and the order's move) lets one through.
      const both = await Promise.all([
        h.store.requestRefund({ refund: refundOf(show, userId, order, ids, round % 2 === 0, 5000), orderFrom: 'TICKETED', now: T0 + 150 }),
        h.store.requestRefund({ refund: refundOf(show, userId, order, ids, round % 2 === 0, 5000), orderFrom: 'TICKETED', now: T0 + 150 }),
      ]);
      expect(both.filter((b) => b.ok), `round ${round}`).toHaveLength(1);
      expect(await h.store.refundsByOrder(order.orderId)).toHaveLength(1);
    }
  });

  it('cancels a show once; lists its active holds and refundable orders; counts the progress', async () => {
    const show = await newShow(h.store, [seated('C', 1, 10)]);
    const userId = await newUser(h.store);
    const order = await ticketed(held(await h.store.claimSeats({ ...claimBase(show, userId), seatIds: ['C-1-1'] })));
    const hold = held(await h.store.claimSeats({ ...claimBase(show, await newUser(h.store)), seatIds: ['C-1-2'] }));
    const both = await Promise.all([h.store.cancelShow({ showId: show.showId, reason: 'storm', now: T0 + 50 }), h.store.cancelShow({ showId: show.showId, reason: 'again', now: T0 + 51 })]);
    expect(both.filter((b) => b.ok)).toHaveLength(1);
    const winner = both.find((b) => b.ok);
    // The loser is told the show was cancelled, as the winner stored it (either may commit first).
    expect(both.find((b) => !b.ok)).toMatchObject({ ok: false, code: 'SHOW_CANCELLED', show: { cancelledAt: winner?.ok ? winner.show.cancelledAt : -1, cancelReason: winner?.ok ? winner.show.cancelReason : '' } });
    expect(await h.store.cancelShow({ showId: 'shw_none', reason: 'x', now: T0 })).toEqual({ ok: false, code: 'SHOW_NOT_FOUND' });
    expect((await h.store.getShow(show.showId))?.cancelledAt).toBe(winner?.ok ? winner.show.cancelledAt : -1);
    expect((await h.store.activeHoldsOfShow(show.showId, 10)).map((x) => x.holdId)).toEqual([hold.holdId]);
    expect((await h.store.refundableOrdersOfShow(show.showId, null, 10)).map((o) => o.orderId)).toEqual([order.orderId]);
    expect(await h.store.unfinishedCancellations(1000)).toContain(show.showId);
    expect(await h.store.cancellationProgress(show.showId)).toEqual({ ordersByStatus: { TICKETED: 1 }, ordersToRefund: 1, refundsByStatus: {}, activeHolds: 1 });
    // The cancellation's refund of the order: once per (order, key), whoever asks again.
    const refund = { ...refundOf(show, userId, order, order.tickets.map((t) => t.ticketId), true, 5000, `cancel:${show.showId}`), requestedBy: 'ORGANIZER' as const };
    expect((await h.store.requestRefund({ refund, orderFrom: 'TICKETED', now: T0 + 60 })).ok).toBe(true);
    const second = await h.store.requestRefund({ refund: { ...refund, refundId: id('rfd') }, orderFrom: 'TICKETED', now: T0 + 61 });
    expect(second).toMatchObject({ ok: false, code: 'REFUND_EXISTS', refund: { refundId: refund.refundId } });
    expect(await h.store.refundableOrdersOfShow(show.showId, null, 10)).toEqual([]);
    expect((await h.store.cancellationProgress(show.showId)).refundsByStatus).toEqual({ PENDING: 1 });
  });
});
