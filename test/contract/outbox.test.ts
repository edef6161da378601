import { settledOutbox } from './settled-outbox.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hold, SettlementPlan } from '../../src/domain/index.js';
import type { OutboxEvent, TicketDraft } from '../../src/ports/engine/index.js';
import { storeFactories, type TestStoreHandle } from '../support/stores.js';
import { claimBase, ga, held, id, minute, newOrder, newShow, orderAwaitingPayment, seated, T0 } from './fixtures.js';

/**
 * Conformance of the outbox (issue 22): each change of state writes its row(s) in the operation's
 * own transaction, with the same payload on every adapter; a refused or stale operation writes
 * none; readers page in position order; relay cursors move by compare-and-set only.
 */
describe.each(storeFactories)('outbox on $name', (factory) => {
  let h: TestStoreHandle;
  beforeAll(async () => {
    h = await factory.open();
  });
  afterAll(async () => h?.close());

  /** Every row of the show after `from` (of the types `only` names), once `count` are there (or 5 s). */
  const rowsOf = (from: string, showId: string, count: number, only?: readonly string[]): Promise<OutboxEvent[]> =>
    settledOutbox(h.store, from, count, (e) => e.showId === showId && (only === undefined || only.includes(e.type)));

  const user = async (): Promise<{ userId: string; username: string }> => {
    const username = id('buyer');
    const userId = id('user');
    if (!(await h.store.insertUser({ userId, username, passwordHash: 'x', role: 'BUYER', createdAt: T0 })).ok) throw new Error('insertUser refused');
    return { userId, username };
  };

  it('a seat claim writes hold.created with the seats as changed (versions included), and a refused claim writes nothing', async () => {
    const show = await newShow(h.store, [seated('A', 1, 10, 'SEAT', 2500)]);
    const from = await h.store.outboxHead();
    const alice = await user();
    const outcome = await h.store.claimSeats({ ...claimBase(show, alice.userId), seatIds: ['A-1-1', 'A-1-2'] });
    const hold = held(outcome);
    // Refused (taken) and refused (per-buyer cap): no row.
    const bob = await user();
    expect((await h.store.claimSeats({ ...claimBase(show, bob.userId), seatIds: ['A-1-2', 'A-1-3'] })).ok).toBe(false);
    expect((await h.store.claimSeats({ ...claimBase(show, bob.userId, { userUnitsMax: 1 }), seatIds: ['A-1-4', 'A-1-5'] })).ok).toBe(false);
    const rows = await rowsOf(from, show.showId, 1, ['hold.created']);
    expect(rows).toHaveLength(1);
    const [row] = rows as [OutboxEvent];
    expect(row).toMatchObject({ type: 'hold.created', showId: show.showId, createdAt: T0 });
    expect(row.data).toEqual({ holdId: hold.holdId, showId: show.showId, userId: alice.userId, seatIds: ['A-1-1', 'A-1-2'], quantity: 2, expiresAt: hold.expiresAt, totalPriceCents: 5000 });
    expect(row.changes).toEqual(outcome.ok ? outcome.changes : null);
    expect(row.changes?.seats.map((s) => s.version)).toEqual([1, 1]);
    expect(typeof row.eventId).toBe('string');
    expect(row.origin.length).toBeGreaterThan(0);
  });

  it('best-available and units claims write hold.created; a units claim carries its stock change', async () => {
    const show = await newShow(h.store, [seated('A', 2, 6), ga('G', 20, 1000)]);
    const from = await h.store.outboxHead();
    const u = await user();
    const best = held(await h.store.claimBestAvailable({ ...claimBase(show, u.userId), quantity: 2, adjacentOnly: true }));
    const units = await h.store.claimUnits({ ...claimBase(show, u.userId), sectionId: 'G', quantity: 3 });
    expect((await h.store.claimUnits({ ...claimBase(show, u.userId), sectionId: 'G', quantity: 30 })).ok).toBe(false);
    const rows = await rowsOf(from, show.showId, 2, ['hold.created']);
    expect(rows.map((r) => [r.type, r.data.holdId])).toEqual([['hold.created', best.holdId], ['hold.created', held(units).holdId]]);
    expect(rows[1]?.changes).toMatchObject({ showId: show.showId, seats: [], stock: [{ sectionId: 'G', delta: -3 }] });
    // The bucket taken from, as stored after the take: the other processes' read models apply it as it is.
    const buckets = rows[1]?.changes?.stock[0]?.buckets ?? [];
    // (PostgreSQL may take 3 from two of its 16 small buckets: each moved once.)
    expect(buckets.length).toBeGreaterThanOrEqual(1);
    for (const b of buckets) expect(b.version).toBe(1);
    expect(buckets).toEqual(units.ok ? units.changes.stock[0]?.buckets : null);
    expect(rows[1]?.data).toMatchObject({ quantity: 3, seatIds: [], totalPriceCents: 3000 });
  });

  it('a release writes hold.released and order.cancelled (changes on the hold row only); an expiry hold.expired; a stale lapse nothing', async () => {
    const show = await newShow(h.store, [seated('A', 1, 10)]);
    const u = await user();
    const released = held(await h.store.claimSeats({ ...claimBase(show, u.userId), seatIds: ['A-1-1'] }));
    const expiring = held(await h.store.claimSeats({ ...claimBase(show, u.userId, { ttl: minute }), seatIds: ['A-1-2'] }));
    const order = newOrder(released);
    expect((await h.store.openOrder(order)).ok).toBe(true);
    const from = await h.store.outboxHead();
    const lapse = await h.store.lapseHold({ holdId: released.holdId, event: 'RELEASE', expectedExpiresAt: released.expiresAt, now: T0 + 5 });
    expect(lapse.ok).toBe(true);
    // Stale: already released.
    expect((await h.store.lapseHold({ holdId: released.holdId, event: 'RELEASE', expectedExpiresAt: released.expiresAt, now: T0 + 6 })).ok).toBe(false);
    expect((await h.store.lapseHold({ holdId: expiring.holdId, event: 'EXPIRE', expectedExpiresAt: expiring.expiresAt, now: T0 + 2 * minute })).ok).toBe(true);
    const rows = await rowsOf(from, show.showId, 3, ['hold.released', 'order.cancelled', 'hold.expired']);
    expect(rows.map((r) => r.type)).toEqual(['hold.released', 'order.cancelled', 'hold.expired']);
    expect(rows[0]?.changes).toEqual(lapse.ok ? lapse.changes : null);
    expect(rows[1]).toMatchObject({ changes: null, data: { orderId: order.orderId, holdId: released.holdId, status: 'CANCELLED' } });
    expect(rows[2]?.changes?.seats).toEqual([{ seatId: 'A-1-2', status: 'AVAILABLE', holdId: null, version: 2 }]);
    expect(rows.map((r) => r.createdAt)).toEqual([T0 + 5, T0 + 5, T0 + 2 * minute]);
  });

  it('order created, paid (with amount, currency and the buyer\'s username), tickets issued, checked in: one row each; a stale settlement writes none', async () => {
    const show = await newShow(h.store, [seated('A', 1, 10, 'SEAT', 3000)]);
    const buyer = await user();
    const hold: Hold = held(await h.store.claimSeats({ ...claimBase(show, buyer.userId), seatIds: ['A-1-5'] }));
    const from = await h.store.outboxHead();
    const { order, payment } = await orderAwaitingPayment(h.store, hold);
    const plan: SettlementPlan = {
      kind: 'SELL', now: T0 + 10,
      payment: { paymentId: payment.paymentId, receivedCents: null, from: 'PENDING', to: 'SUCCEEDED' },
      order: { orderId: order.orderId, from: 'PENDING_PAY', to: 'PAID' },
      hold: { holdId: hold.holdId, from: 'ACTIVE', to: 'CONFIRMED' },
    };
    const settled = await h.store.settlePayment(plan);
    expect(settled.ok).toBe(true);
    // The same callback again: stale, no second order.paid.
    expect((await h.store.settlePayment(plan)).ok).toBe(false);
    const drafts: TicketDraft[] = [{ ticketId: id('tkt'), code: id('CODE').toUpperCase(), sectionId: 'A', seatId: 'A-1-5', paidCents: 0 }];
    const issued = await h.store.issueTickets({ orderId: order.orderId, tickets: drafts, now: T0 + 20 });
    if (!issued.ok) throw new Error('issue failed');
    const ticket = issued.tickets[0];
    if (ticket === undefined) throw new Error('no ticket');
    const used = { ...ticket, status: 'USED' as const, usedAt: T0 + 40, checkInNonce: 'n1', checkedInBy: 'steward', checkInGate: 'North', checkInDevice: null };
    expect((await h.store.checkIn({ ticket: used, expectedStatus: 'VALID' })).ok).toBe(true);
    expect((await h.store.checkIn({ ticket: used, expectedStatus: 'VALID' })).ok).toBe(false);
    const rows = await rowsOf(from, show.showId, 4, ['order.created', 'order.paid', 'tickets.issued', 'ticket.checked_in']);
    expect(rows.map((r) => r.type)).toEqual(['order.created', 'order.paid', 'tickets.issued', 'ticket.checked_in']);
    expect(rows[0]?.data).toMatchObject({ orderId: order.orderId, holdId: hold.holdId, amountCents: 3000 });
    expect(rows[1]?.data).toMatchObject({ orderId: order.orderId, showId: show.showId, amountCents: 3000, currency: show.currency, username: buyer.username, paymentId: payment.paymentId });
    expect(rows[1]?.changes).toEqual(settled.ok ? settled.changes : null);
    expect(rows[1]?.changes?.seats).toEqual([{ seatId: 'A-1-5', status: 'SOLD', holdId: hold.holdId, version: 2 }]);
    expect(rows[2]?.data).toEqual({ orderId: order.orderId, showId: show.showId, userId: buyer.userId, ticketIds: [ticket.ticketId], seatIds: ['A-1-5'] });
    expect(rows[3]?.data).toEqual({ ticketId: ticket.ticketId, orderId: order.orderId, showId: show.showId, status: 'USED', usedAt: T0 + 40, gate: 'North' });
  });

  it('the outbox row is in the same transaction: a late sale refused INVENTORY_TAKEN (after moving the payment and the order) leaves no order.paid; the sale that commits has its row', async () => {
    const show = await newShow(h.store, [seated('A', 1, 4)]);
    const alice = await user();
    const bob = await user();
    const hold = held(await h.store.claimSeats({ ...claimBase(show, alice.userId, { ttl: minute }), seatIds: ['A-1-1'] }));
    const { order, payment } = await orderAwaitingPayment(h.store, hold);
    expect((await h.store.lapseHold({ holdId: hold.holdId, event: 'EXPIRE', expectedExpiresAt: hold.expiresAt, now: T0 + 2 * minute })).ok).toBe(true);
    const from = await h.store.outboxHead();
    // Bob takes the seat; alice's money then arrives late.
    const bobs = held(await h.store.claimSeats({ ...claimBase(show, bob.userId, { now: T0 + 3 * minute }), seatIds: ['A-1-1'] }));
    const late: SettlementPlan = {
      kind: 'SELL_LATE', now: T0 + 4 * minute,
      payment: { paymentId: payment.paymentId, receivedCents: null, from: 'PENDING', to: 'SUCCEEDED' },
      order: { orderId: order.orderId, from: 'CANCELLED', to: 'PAID' },
      hold: { holdId: hold.holdId, from: 'EXPIRED', to: 'CONFIRMED' },
    };
    expect(await h.store.settlePayment(late)).toEqual({ ok: false, code: 'INVENTORY_TAKEN' });
    // Bob gives it back: now the late sale commits, with exactly one order.paid.
    expect((await h.store.lapseHold({ holdId: bobs.holdId, event: 'RELEASE', expectedExpiresAt: bobs.expiresAt, now: T0 + 5 * minute })).ok).toBe(true);
    const sold = await h.store.settlePayment({ ...late, now: T0 + 6 * minute });
    expect(sold.ok).toBe(true);
    const rows = await rowsOf(from, show.showId, 1, ['order.paid']);
    expect(rows.map((r) => [r.type, r.createdAt])).toEqual([['order.paid', T0 + 6 * minute]]);
    expect(rows[0]?.changes?.seats).toEqual([{ seatId: 'A-1-1', status: 'SOLD', holdId: hold.holdId, version: 5 }]);
  });

  it('an aborted order writes order.cancelled; a show edit show.changed; a new show show.changed', async () => {
    const from = await h.store.outboxHead();
    const show = await newShow(h.store, [seated('A', 1, 4)]);
    const u = await user();
    const hold = held(await h.store.claimSeats({ ...claimBase(show, u.userId), seatIds: ['A-1-1'] }));
    const order = newOrder(hold);
    expect((await h.store.openOrder(order)).ok).toBe(true);
    expect((await h.store.abortOrder({ orderId: order.orderId, now: T0 + 7 })).ok).toBe(true);
    const edited = await h.store.updateShow({ showId: show.showId, expectedVersion: show.version, now: T0 + 8, details: {
      title: 'Edited', description: show.description, imageUrl: show.imageUrl, venue: show.venue, city: show.city, startsAt: show.startsAt, saleStartsAt: show.saleStartsAt, saleEndsAt: show.saleEndsAt,
    } });
    expect(edited.ok).toBe(true);
    // Stale edit (same expected version): no row.
    expect((await h.store.updateShow({ showId: show.showId, expectedVersion: show.version, now: T0 + 9, details: { ...show, title: 'Again' } })).ok).toBe(false);
    const rows = await rowsOf(from, show.showId, 5);
    expect(rows.map((r) => r.type)).toEqual(['show.changed', 'hold.created', 'order.created', 'order.cancelled', 'show.changed']);
    expect(rows[4]).toMatchObject({ createdAt: T0 + 8, data: { showId: show.showId, version: show.version + 1 } });
  });

  it('pages in position order after a position; the head is after every committed row', async () => {
    const show = await newShow(h.store, [ga('G', 100)]);
    const from = await h.store.outboxHead();
    const u = await user();
    for (let i = 0; i < 5; i++) held(await h.store.claimUnits({ ...claimBase(show, u.userId), sectionId: 'G', quantity: 1 }));
    const all = await rowsOf(from, show.showId, 5, ['hold.created']);
    expect(all).toHaveLength(5);
    // Pages of 2 from the same position give the same rows in the same order.
    const ids: string[] = [];
    let position: string | null = from;
    for (let pages = 0; pages < 10_000; pages++) {
      const page = await h.store.readOutbox(position, 2);
      expect(page.events.length).toBeLessThanOrEqual(2);
      ids.push(...page.events.filter((e) => e.showId === show.showId && e.type === 'hold.created').map((e) => e.eventId));
      if (page.events.length < 2 || ids.length >= 5) break;
      position = page.position;
    }
    expect(ids).toEqual(all.map((e) => e.eventId));
    expect(new Set(ids).size).toBe(5);
    // Nothing after the head of now (once PostgreSQL's head has passed these rows).
    for (let tries = 0; tries < 250; tries++) {
      const head = await h.store.outboxHead();
      const after = await h.store.readOutbox(head, 100);
      if (after.events.filter((e) => e.showId === show.showId).length === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error('the head never passed the rows');
  });

  it('moves a relay cursor by compare-and-set only (two relays never move it backwards), and prunes only rows every cursor passed', async () => {
    const name = id('sink');
    expect(await h.store.relayCursor(name)).toBeNull();
    const show = await newShow(h.store, [ga('G', 100)]);
    const start = await h.store.outboxHead();
    const u = await user();
    for (let i = 0; i < 3; i++) held(await h.store.claimUnits({ ...claimBase(show, u.userId, { now: T0 - 10 * 86_400_000 }), sectionId: 'G', quantity: 1 }));
    const rows = await rowsOf(start, show.showId, 3, ['hold.created']);
    const [a, b] = rows as [OutboxEvent, OutboxEvent, OutboxEvent];
    expect(await h.store.advanceRelayCursor(name, null, a.position)).toEqual({ ok: true });
    expect(await h.store.advanceRelayCursor(name, null, b.position)).toEqual({ ok: false, stale: 'cursor' });
    expect(await h.store.advanceRelayCursor(name, a.position, b.position)).toEqual({ ok: true });
    // A second relay that read `a` is too late: the cursor stays at b.
    expect(await h.store.advanceRelayCursor(name, a.position, a.position)).toEqual({ ok: false, stale: 'cursor' });
    expect(await h.store.relayCursor(name)).toBe(b.position);
    // Old enough, but the third row is not yet delivered to this cursor (nor, maybe, to other tests' cursors).
    await h.store.pruneOutbox(T0, 10_000);
    const left = await rowsOf(start, show.showId, 1, ['hold.created']);
    expect(left.map((e) => e.eventId)).toContain(rows[2]?.eventId);
    expect(left.map((e) => e.eventId)).not.toContain(a.eventId);
  });
});
