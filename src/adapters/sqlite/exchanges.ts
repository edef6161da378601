import type { Database as Db } from 'better-sqlite3';
import type { Ticket } from '../../domain/index.js';
import type { Exchange, ExchangeStore, InventoryChanges, PayExchangeInput, PayExchangeOutcome, SeatChange, StockChange, SwapExchangeInput, SwapExchangeOutcome, TicketDraft } from '../../ports/engine/index.js';
import { exchangeCompleted, exchangeParams, toExchange, type ExchangeRow } from '../shared/exchange-records.js';
import { refundRequested } from '../shared/refund-records.js';
import { ticketsIssued } from '../shared/outbox-drafts.js';
import { Rollback, type GroupCommit } from './group-commit.js';
import type { OutboxWriter } from './outbox.js';
import * as records from './records.js';
import type { Shared } from './shared.js';
import type { ShowCache } from './shows.js';

interface OldTicket { ticket_id: string; show_id: string; section_id: string; seat_id: string | null; hold_id: string }

/** The exchange swap as one transaction of compare-and-set steps (see ExchangeStore). */
export function sqliteExchanges(db: Db, gc: GroupCommit, shows: ShowCache, shared: Shared, ob: OutboxWriter): ExchangeStore {
  const q = {
    // Guard: only the buyer's ACTIVE, unexpired hold is confirmed (an expiry that came first wins).
    confirmHold: db.prepare(`UPDATE holds SET status = 'CONFIRMED' WHERE hold_id = ? AND user_id = ? AND status = 'ACTIVE' AND expires_at > ? RETURNING *`),
    orderInsert: db.prepare(`INSERT INTO orders (order_id, user_id, show_id, hold_id, idempotency_key, amount_cents, status, payment_id, created_at, updated_at)
      VALUES (?, ?, ?, ?, ?, ?, 'TICKETED', NULL, ?, ?) RETURNING *`),
    ticketInsert: db.prepare(`INSERT INTO tickets (ticket_id, order_id, user_id, show_id, section_id, seat_id, seq, code, status, issued_at, buyer_key, paid_cents)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'VALID', ?, (SELECT username_key FROM users WHERE user_id = ?), ?)`),
    countIssued: db.prepare(`INSERT INTO show_door_counts (show_id, admitting, checked_in) VALUES (?, ?, 0)
      ON CONFLICT (show_id) DO UPDATE SET admitting = admitting + excluded.admitting`),
    // Guard: only a VALID ticket of the old order is revoked (a check-in, refund or exchange that came first wins).
    revoke: db.prepare(`UPDATE tickets SET status = 'INVALID' WHERE ticket_id = ? AND order_id = ? AND status = 'VALID'
      RETURNING ticket_id, show_id, section_id, seat_id, (SELECT hold_id FROM orders WHERE order_id = tickets.order_id) AS hold_id`),
    doorDown: db.prepare('UPDATE show_door_counts SET admitting = admitting - ? WHERE show_id = ?'),
    seatFree: db.prepare(`UPDATE seats SET status = 'AVAILABLE', hold_id = NULL, version = version + 1
      WHERE show_id = ? AND seat_id = ? AND status = 'SOLD' RETURNING version`),
    unclaimSeat: db.prepare('UPDATE hold_lines SET claim = NULL WHERE hold_id = ? AND seat_id = ? AND claim = 1'),
    stockUp: db.prepare('UPDATE sections SET available = available + ?, stock_version = stock_version + 1 WHERE show_id = ? AND section_id = ? RETURNING available, stock_version'),
    unitsDown: db.prepare('UPDATE user_show_units SET units = units - ? WHERE user_id = ? AND show_id = ?'),
    insert: db.prepare(`INSERT INTO exchanges (exchange_id, user_id, old_order_id, old_show_id, old_ticket_ids, new_order_id, new_show_id, new_hold_id,
      new_ticket_ids, difference_cents, created_at, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    payment: db.prepare(`UPDATE payments SET status = 'SUCCEEDED', updated_at = ? WHERE payment_id = ? AND status = 'PENDING'`),
    orderTicketed: db.prepare(`UPDATE orders SET status = 'TICKETED', amount_cents = ?, updated_at = ? WHERE order_id = ? AND status = 'PENDING_PAY' RETURNING *`),
    confirmPending: db.prepare(`UPDATE holds SET status = 'CONFIRMED' WHERE hold_id = ? AND user_id = ? AND status = 'ACTIVE' RETURNING *`),
    complete: db.prepare(`UPDATE exchanges SET status = 'COMPLETED', new_ticket_ids = ? WHERE exchange_id = ? AND status = 'PENDING'`),
    abandon: db.prepare(`UPDATE exchanges SET status = 'ABANDONED' WHERE exchange_id = ? AND status = 'PENDING'`),
    refundInsert: db.prepare(`INSERT INTO refunds (refund_id, order_id, user_id, show_id, payment_id, amount_cents, ticket_ids, whole, status, reason,
        requested_by, idempotency_key, created_at, updated_at)
      VALUES (@refundId, @orderId, @userId, @showId, @paymentId, @amountCents, '[]', 0, 'PENDING', @reason, @requestedBy, @idempotencyKey, @createdAt, @updatedAt)`),
    ofOrder: db.prepare('SELECT * FROM exchanges WHERE old_order_id = ? ORDER BY created_at, exchange_id'),
    intoOrder: db.prepare('SELECT * FROM exchanges WHERE new_order_id = ?'),
  };
  const counted = (showId: string, sectionId: string): boolean => shows.get(showId)?.sections.get(sectionId)?.counted ?? false;

  function swap(input: SwapExchangeInput): SwapExchangeOutcome {
    const e = input.exchange;
    const holdRow = q.confirmHold.get(e.newHoldId, e.userId, input.now) as records.HoldRow | undefined;
    if (holdRow === undefined) return { ok: false, stale: 'hold' };
    const sold = shared.sell(holdRow);
    if (sold === false) throw new Rollback<SwapExchangeOutcome>({ ok: false, stale: 'hold' });
    // The old side first: a ticket that is no longer VALID undoes the whole swap.
    const freed = giveUp(e);
    // The new side: an order born TICKETED on the confirmed hold, and its tickets.
    const orderRow = q.orderInsert.get(e.newOrderId, e.userId, e.newShowId, e.newHoldId, `exchange:${e.exchangeId}`, input.amountCents, input.now, input.now) as records.OrderRow;
    const tickets = issue(e, input.tickets, input.now);
    q.insert.run(...exchangeParams(e));
    const newOrder = shared.order(orderRow);
    const refund = input.differenceRefund;
    // The difference of a cheaper swap, recorded with the swap (unique (order_id, idempotency_key): a second one rolls the swap back).
    if (refund !== null) q.refundInsert.run({ ...refund });
    ob.append(input.now, [
      exchangeCompleted(e, freed), ticketsIssued(newOrder, tickets, sold),
      ...(refund === null ? [] : [refundRequested(refund, { showId: refund.showId, seats: [], stock: [] })]),
    ]);
    return { ok: true, exchange: e, newOrder, tickets, changes: freed, newShowChanges: sold };
  }

  /** Each old ticket VALID -> INVALID (else the whole transaction rolls back, stale 'ticket'), its seat or unit given back. */
  function giveUp(e: Exchange): InventoryChanges {
    const seats: SeatChange[] = [];
    const bySection = new Map<string, number>();
    for (const ticketId of e.oldTicketIds) {
      const t = q.revoke.get(ticketId, e.oldOrderId) as OldTicket | undefined;
      if (t === undefined) throw new Rollback<{ ok: false; stale: 'ticket' }>({ ok: false, stale: 'ticket' });
      if (t.seat_id !== null) {
        const freed = q.seatFree.get(t.show_id, t.seat_id) as { version: number } | undefined;
        if (freed !== undefined) seats.push({ seatId: t.seat_id, status: 'AVAILABLE', holdId: null, version: freed.version });
        q.unclaimSeat.run(t.hold_id, t.seat_id);
      }
      bySection.set(t.section_id, (bySection.get(t.section_id) ?? 0) + 1);
    }
    const stock: StockChange[] = [];
    for (const [sectionId, n] of bySection) {
      const after = q.stockUp.get(n, e.oldShowId, sectionId) as records.StockRow;
      if (counted(e.oldShowId, sectionId)) stock.push({ sectionId, delta: n, buckets: [records.toBucket(after)] });
    }
    q.doorDown.run(e.oldTicketIds.length, e.oldShowId);
    q.unitsDown.run(e.oldTicketIds.length, e.userId, e.oldShowId);
    return { showId: e.oldShowId, seats, stock };
  }

  /** The new order's tickets, VALID, and the new show's door count. */
  function issue(e: Exchange, drafts: readonly TicketDraft[], now: number): Ticket[] {
    const tickets: Ticket[] = drafts.map((draft, i) => {
      q.ticketInsert.run(draft.ticketId, e.newOrderId, e.userId, e.newShowId, draft.sectionId, draft.seatId, i + 1, draft.code, now, e.userId, draft.paidCents);
      return {
        ticketId: draft.ticketId, orderId: e.newOrderId, userId: e.userId, showId: e.newShowId, sectionId: draft.sectionId, seatId: draft.seatId,
        code: draft.code, status: 'VALID', issuedAt: now, usedAt: null, checkInNonce: null, checkedInBy: null, checkInGate: null, checkInDevice: null,
        paidCents: draft.paidCents,
      };
    });
    q.countIssued.run(e.newShowId, tickets.length);
    return tickets;
  }

  function pay(input: PayExchangeInput): PayExchangeOutcome {
    const e = input.exchange;
    if (q.payment.run(input.now, input.paymentId).changes !== 1) return { ok: false, stale: 'payment' };
    const holdRow = q.confirmPending.get(e.newHoldId, e.userId) as records.HoldRow | undefined;
    if (holdRow === undefined) throw new Rollback<PayExchangeOutcome>({ ok: false, stale: 'hold' });
    const sold = shared.sell(holdRow);
    if (sold === false) throw new Rollback<PayExchangeOutcome>({ ok: false, stale: 'hold' });
    const freed = giveUp(e);
    const orderRow = q.orderTicketed.get(input.amountCents, input.now, e.newOrderId) as records.OrderRow | undefined;
    if (orderRow === undefined) throw new Rollback<PayExchangeOutcome>({ ok: false, stale: 'order' });
    const tickets = issue(e, input.tickets, input.now);
    if (q.complete.run(JSON.stringify(input.tickets.map((t) => t.ticketId)), e.exchangeId).changes !== 1) throw new Rollback<PayExchangeOutcome>({ ok: false, stale: 'exchange' });
    const done: Exchange = { ...e, newTicketIds: input.tickets.map((t) => t.ticketId), status: 'COMPLETED' };
    const newOrder = shared.order(orderRow);
    ob.append(input.now, [exchangeCompleted(done, freed), ticketsIssued(newOrder, tickets, sold)]);
    return { ok: true, exchange: done, newOrder, tickets, changes: freed, newShowChanges: sold };
  }

  return {
    swapExchange: (input) => gc.write('swapExchange', () => swap(input)),
    beginExchange: (exchange) => gc.write('beginExchange', () => {
      q.insert.run(...exchangeParams({ ...exchange, status: 'PENDING' }));
    }),
    payExchange: (input) => gc.write('payExchange', () => pay(input)),
    abandonExchange: (exchangeId) => gc.write('abandonExchange', () => q.abandon.run(exchangeId).changes === 1),
    exchangesOfOrder: async (orderId) => (q.ofOrder.all(orderId) as ExchangeRow[]).map(toExchange),
    exchangeIntoOrder: async (orderId) => {
      const row = q.intoOrder.get(orderId) as ExchangeRow | undefined;
      return row === undefined ? null : toExchange(row);
    },
  };
}
