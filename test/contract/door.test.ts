import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hold, SettlementPlan, Ticket } from '../../src/domain/index.js';
import type { TicketDraft } from '../../src/ports/engine/index.js';
import { storeFactories, type TestStoreHandle } from '../support/stores.js';
import { claimBase, ga, held, id, newShow, orderAwaitingPayment, seated, T0 } from './fixtures.js';

/** Conformance of the door's reads: a ticket by its printed code, the live counts, the attendee search. */
describe.each(storeFactories)('door reads on $name', (factory) => {
  let h: TestStoreHandle;
  beforeAll(async () => {
    h = await factory.open();
  });
  afterAll(async () => h?.close());

  async function user(username: string): Promise<string> {
    const userId = id('user');
    const inserted = await h.store.insertUser({ userId, username, passwordHash: 'x', role: 'BUYER', createdAt: T0 });
    if (!inserted.ok) throw new Error('insertUser refused');
    return userId;
  }

  /** A paid and ticketed hold: its tickets. */
  async function ticketed(hold: Hold): Promise<Ticket[]> {
    const { order, payment } = await orderAwaitingPayment(h.store, hold);
    const plan: SettlementPlan = {
      kind: 'SELL', now: T0 + 10,
      payment: { paymentId: payment.paymentId, receivedCents: null, from: 'PENDING', to: 'SUCCEEDED' },
      order: { orderId: order.orderId, from: 'PENDING_PAY', to: 'PAID' },
      hold: { holdId: hold.holdId, from: 'ACTIVE', to: 'CONFIRMED' },
    };
    if (!(await h.store.settlePayment(plan)).ok) throw new Error('settle failed');
    const drafts: TicketDraft[] = hold.lines.flatMap((line): TicketDraft[] => (line.kind === 'SEATS'
      ? line.seatIds.map((seatId) => ({ ticketId: id('tkt'), code: id('CODE').toUpperCase(), sectionId: line.sectionId, seatId, paidCents: 0 }))
      : Array.from({ length: line.quantity }, () => ({ ticketId: id('tkt'), code: id('CODE').toUpperCase(), sectionId: line.sectionId, seatId: null, paidCents: 0 }))));
    const issued = await h.store.issueTickets({ orderId: order.orderId, tickets: drafts, now: T0 + 20 });
    if (!issued.ok) throw new Error(`issue failed: ${JSON.stringify(issued)}`);
    return [...issued.tickets];
  }

  const used = (ticket: Ticket, nonce: string): Ticket =>
    ({ ...ticket, status: 'USED', usedAt: T0 + 40, checkInNonce: nonce, checkedInBy: 'steward', checkInGate: null, checkInDevice: null });

  it('finds a ticket by its code within its show only', async () => {
    const show = await newShow(h.store, [seated('A', 1, 10)]);
    const other = await newShow(h.store, [seated('A', 1, 10)]);
    const [ticket] = await ticketed(held(await h.store.claimSeats({ ...claimBase(show, await user(id('u'))), seatIds: ['A-1-3'] })));
    if (ticket === undefined) throw new Error('no ticket');
    expect(await h.store.ticketByCode(show.showId, ticket.code)).toMatchObject({ ticketId: ticket.ticketId, seatId: 'A-1-3', status: 'VALID' });
    expect(await h.store.ticketByCode(other.showId, ticket.code)).toBeNull();
    expect(await h.store.ticketByCode(show.showId, 'NOSUCHCODE23')).toBeNull();
  });

  it('counts admitting and checked-in tickets as they are issued and used, once per ticket whatever the races', async () => {
    const show = await newShow(h.store, [seated('A', 1, 10), ga('G', 50)]);
    expect(await h.store.doorCounts(show.showId)).toEqual({ admitting: 0, checkedIn: 0 });
    const seats = await ticketed(held(await h.store.claimSeats({ ...claimBase(show, await user(id('u'))), seatIds: ['A-1-1', 'A-1-2'] })));
    const places = await ticketed(held(await h.store.claimUnits({ ...claimBase(show, await user(id('u'))), sectionId: 'G', quantity: 3 })));
    expect(await h.store.doorCounts(show.showId)).toEqual({ admitting: 5, checkedIn: 0 });
    const [first, second] = [seats[0] as Ticket, places[0] as Ticket];
    // Two scans of one ticket at once: one admits, and the count rises once.
    const both = await Promise.all([h.store.checkIn({ ticket: used(first, 'n1'), expectedStatus: 'VALID' }), h.store.checkIn({ ticket: used(first, 'n2'), expectedStatus: 'VALID' })]);
    expect(both.filter((b) => b.ok)).toHaveLength(1);
    expect(await h.store.checkIn({ ticket: used(second, 'n3'), expectedStatus: 'VALID' })).toMatchObject({ ok: true });
    expect(await h.store.doorCounts(show.showId)).toEqual({ admitting: 5, checkedIn: 2 });
    // A ticket no longer valid leaves both counts.
    expect(await h.store.checkIn({ ticket: { ...used(second, 'n3'), status: 'INVALID' }, expectedStatus: 'USED' })).toMatchObject({ ok: true });
    expect(await h.store.doorCounts(show.showId)).toEqual({ admitting: 4, checkedIn: 1 });
  });

  it('pages a show\'s attendees by buyer name, a prefix ignoring case, leaving out an excluded ticket', async () => {
    const show = await newShow(h.store, [seated('A', 2, 10)]);
    const other = await newShow(h.store, [seated('A', 1, 10)]);
    const tag = id('p').toLowerCase().replace(/[^a-z]/g, '').slice(0, 6);
    const [alice, alan, bob] = await Promise.all([user(`${tag}alice`), user(`${tag}Alan`), user(`${tag}bob`)]);
    const ticketsOf = async (userId: string, seatIds: string[], on = show) =>
      ticketed(held(await h.store.claimSeats({ ...claimBase(on, userId), seatIds })));
    const aliceTickets = await ticketsOf(alice as string, ['A-1-1', 'A-1-2']);
    await ticketsOf(alan as string, ['A-2-5']);
    await ticketsOf(bob as string, ['A-1-9']);
    await ticketsOf(alice as string, ['A-1-1'], other);
    const page = (keyPrefix: string, limit = 10, offset = 0, excludeTicketId: string | null = null) =>
      h.store.attendeesByName({ showId: show.showId, keyPrefix, excludeTicketId, limit, offset })
        .then((rows) => rows.map((r) => `${r.username}:${r.ticket.seatId}`));
    expect(await page(`${tag}al`)).toEqual([`${tag}Alan:A-2-5`, `${tag}alice:A-1-1`, `${tag}alice:A-1-2`]);
    expect(await page(`${tag}AL`.toLowerCase())).toHaveLength(3);
    expect(await page(`${tag}b`)).toEqual([`${tag}bob:A-1-9`]);
    expect(await page(`${tag}alice`, 1, 1)).toEqual([`${tag}alice:A-1-2`]);
    expect(await page(`${tag}al`, 10, 0, (aliceTickets[0] as Ticket).ticketId)).toEqual([`${tag}Alan:A-2-5`, `${tag}alice:A-1-2`]);
    expect(await page('')).toHaveLength(4);
    expect(await page(`${tag}z`)).toEqual([]);
  });
});
