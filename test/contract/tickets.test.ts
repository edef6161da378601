import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hold, SettlementPlan } from '../../src/domain/index.js';
import type { TicketDraft } from '../../src/ports/engine/index.js';
import { storeFactories, type TestStoreHandle } from '../support/stores.js';
import { audit, claimBase, held, id, newShow, newUser, orderAwaitingPayment, seated, T0 } from './fixtures.js';

/** Conformance of ticket issue and check-in: one admitting ticket per seat, whatever the drafts say. */
describe.each(storeFactories)('tickets on $name', (factory) => {
  let h: TestStoreHandle;
  beforeAll(async () => {
    h = await factory.open();
  });
  afterAll(async () => h?.close());

  /** A paid order for the hold; returns its id. */
  async function paid(hold: Hold): Promise<string> {
    const { order, payment } = await orderAwaitingPayment(h.store, hold);
    const plan: SettlementPlan = {
      kind: 'SELL', now: T0 + 10,
      payment: { paymentId: payment.paymentId, receivedCents: null, from: 'PENDING', to: 'SUCCEEDED' },
      order: { orderId: order.orderId, from: 'PENDING_PAY', to: 'PAID' },
      hold: { holdId: hold.holdId, from: 'ACTIVE', to: 'CONFIRMED' },
    };
    const settled = await h.store.settlePayment(plan);
    if (!settled.ok) throw new Error(`settle: ${JSON.stringify(settled)}`);
    return order.orderId;
  }

  const drafts = (hold: Hold, seatIdFor: (seatId: string | null) => string | null = (s) => s): TicketDraft[] =>
    hold.lines.flatMap((line) => (line.kind === 'SEATS'
      ? line.seatIds.map((seatId) => ({ ticketId: id('tkt'), code: id('code'), sectionId: line.sectionId, seatId: seatIdFor(seatId), paidCents: 0 }))
      : Array.from({ length: line.quantity }, () => ({ ticketId: id('tkt'), code: id('code'), sectionId: line.sectionId, seatId: null, paidCents: 0 }))));

  it('issues an order\'s tickets once: a second issue is stale', async () => {
    const show = await newShow(h.store, [seated('A', 1, 10)]);
    const hold = held(await h.store.claimSeats({ ...claimBase(show, await newUser(h.store)), seatIds: ['A-1-1', 'A-1-2'] }));
    const orderId = await paid(hold);
    const both = await Promise.all([h.store.issueTickets({ orderId, tickets: drafts(hold), now: T0 + 20 }), h.store.issueTickets({ orderId, tickets: drafts(hold), now: T0 + 20 })]);
    expect(both.filter((b) => b.ok)).toHaveLength(1);
    expect(both.find((b) => !b.ok)).toEqual({ ok: false, stale: 'order' });
    expect((await h.store.ticketsByOrder(orderId)).map((t) => t.seatId)).toEqual(['A-1-1', 'A-1-2']);
  });

  it('keeps each ticket\'s paid price as issued (issue 32), on issue and on every read', async () => {
    const show = await newShow(h.store, [seated('A', 1, 10)]);
    const hold = held(await h.store.claimSeats({ ...claimBase(show, await newUser(h.store)), seatIds: ['A-1-3', 'A-1-4', 'A-1-5'] }));
    const orderId = await paid(hold);
    const prices = [334, 333, 333];
    const issued = await h.store.issueTickets({ orderId, tickets: drafts(hold).map((d, i) => ({ ...d, paidCents: prices[i] ?? 0 })), now: T0 + 20 });
    expect(issued.ok && issued.tickets.map((t) => t.paidCents)).toEqual(prices);
    const stored = await h.store.ticketsByOrder(orderId);
    expect(stored.map((t) => [t.seatId, t.paidCents])).toEqual([['A-1-3', 334], ['A-1-4', 333], ['A-1-5', 333]]);
    expect((await h.store.getTicket(stored[0]?.ticketId ?? ''))?.paidCents).toBe(334);
  });

  it('refuses a second admitting ticket for a seat (one admitting ticket per seat), even when drafts name it', async () => {
    const show = await newShow(h.store, [seated('A', 1, 10)]);
    const first = held(await h.store.claimSeats({ ...claimBase(show, await newUser(h.store)), seatIds: ['A-1-1'] }));
    const second = held(await h.store.claimSeats({ ...claimBase(show, await newUser(h.store)), seatIds: ['A-1-2'] }));
    const firstOrder = await paid(first);
    const secondOrder = await paid(second);
    expect((await h.store.issueTickets({ orderId: firstOrder, tickets: drafts(first), now: T0 + 20 })).ok).toBe(true);
    // A buggy caller names A-1-1 again for the second order: the store refuses it whole.
    const wrong = await h.store.issueTickets({ orderId: secondOrder, tickets: drafts(second, () => 'A-1-1'), now: T0 + 21 }).catch((error: unknown) => ({ ok: false as const, thrown: String(error) }));
    expect(wrong.ok).toBe(false);
    const a = await audit(h.store, show.showId);
    expect(a.tickets.filter((t) => t.seatId === 'A-1-1' && t.status !== 'INVALID')).toHaveLength(1);
    expect(a.orders.find((o) => o.orderId === secondOrder)?.status).toBe('PAID');
  });

  it('picks different seats for 20 orders of a section sold by QUANTITY issued in parallel, nearest the front, together where possible', async () => {
    const show = await newShow(h.store, [seated('Q', 5, 10, 'QUANTITY')]);
    const users = await Promise.all(Array.from({ length: 20 }, () => newUser(h.store)));
    const holds = (await Promise.all(users.map((u) => h.store.claimUnits({ ...claimBase(show, u), sectionId: 'Q', quantity: 2 })))).map(held);
    const orderIds = await Promise.all(holds.map(paid));
    const issued = await Promise.all(orderIds.map((orderId, i) => h.store.issueTickets({ orderId, tickets: drafts(holds[i] as Hold), now: T0 + 30 })));
    expect(issued.filter((x) => !x.ok)).toEqual([]);
    const seats = issued.flatMap((x) => (x.ok ? x.tickets.map((t) => t.seatId) : []));
    expect(seats.every((s) => s !== null)).toBe(true);
    expect(new Set(seats).size).toBe(40);
    // Side by side: both tickets of an order in one row, next to each other.
    const together = issued.filter((x) => {
      if (!x.ok) return false;
      const [a, b] = x.tickets.map((t) => (t.seatId as string).split('-').map(Number));
      return a !== undefined && b !== undefined && a[1] === b[1] && Math.abs((a[2] as number) - (b[2] as number)) === 1;
    });
    expect(together.length).toBeGreaterThanOrEqual(18);
    const a = await audit(h.store, show.showId);
    expect(a.seats.filter((s) => s.status === 'SOLD')).toHaveLength(40);
    expect(a.sections[0]).toMatchObject({ capacity: 50, available: 10 });
  });

  it('checks a ticket in once: a second check-in on the stale status is refused', async () => {
    const show = await newShow(h.store, [seated('A', 1, 10)]);
    const hold = held(await h.store.claimSeats({ ...claimBase(show, await newUser(h.store)), seatIds: ['A-1-5'] }));
    const orderId = await paid(hold);
    const issued = await h.store.issueTickets({ orderId, tickets: drafts(hold), now: T0 + 20 });
    if (!issued.ok) throw new Error('issue failed');
    const ticket = issued.tickets[0];
    if (ticket === undefined) throw new Error('no ticket');
    const used = { ...ticket, status: 'USED' as const, usedAt: T0 + 40, checkInNonce: 'n1', checkedInBy: 'steward', checkInGate: null, checkInDevice: null };
    const both = await Promise.all([h.store.checkIn({ ticket: used, expectedStatus: 'VALID' }), h.store.checkIn({ ticket: { ...used, checkInNonce: 'n2' }, expectedStatus: 'VALID' })]);
    expect(both.filter((b) => b.ok)).toHaveLength(1);
    expect(both.find((b) => !b.ok)).toEqual({ ok: false, stale: 'ticket' });
  });
});
