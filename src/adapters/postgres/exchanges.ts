import type pg from 'pg';
import type { Ticket } from '../../domain/index.js';
import type { Exchange, ExchangeStore, InventoryChanges, PayExchangeOutcome, SeatChange, StockChange, SwapExchangeOutcome, TicketDraft } from '../../ports/engine/index.js';
import { exchangeCompleted, exchangeParams, toExchange, type ExchangeRow } from '../shared/exchange-records.js';
import { refundRequested } from '../shared/refund-records.js';
import { ticketsIssued } from '../shared/outbox-drafts.js';
import { unexpected, type PgDb } from './db.js';
import { appendOutbox } from './outbox.js';
import { countSold, sell } from './payments.js';
import { loadHolds, toOrder, type HoldRow, type OrderRow } from './rows.js';
import { moveUserUnits, refuse, returnUnits } from './stock.js';
import { countDoor } from './tickets.js';

interface OldTicket { ticket_id: string; section_id: string; seat_id: string | null }

/** Each old ticket VALID -> INVALID (else the transaction rolls back: refuse stale 'ticket'), its seat or unit given back. */
async function giveUp(c: pg.ClientBase, e: Exchange): Promise<InventoryChanges> {
  const oldHoldId = ((await c.query<{ hold_id: string }>('SELECT hold_id FROM orders WHERE order_id = $1', [e.oldOrderId])).rows[0])?.hold_id;
  const revoked = await c.query<OldTicket>(
    `UPDATE tickets SET status = 'INVALID' WHERE ticket_id = ANY($1::text[]) AND order_id = $2 AND status = 'VALID'
     RETURNING ticket_id, section_id, seat_id`, [e.oldTicketIds, e.oldOrderId]);
  if (revoked.rows.length !== e.oldTicketIds.length) return refuse({ ok: false, stale: 'ticket' } as const);
  const seats: SeatChange[] = [];
  const seatIds = revoked.rows.flatMap((t) => (t.seat_id === null ? [] : [t.seat_id])).sort();
  if (seatIds.length > 0) {
    const freed = await c.query<{ seat_id: string; version: number }>(
      `UPDATE seats SET status = 'AVAILABLE', hold_id = NULL, version = version + 1
       WHERE show_id = $1 AND seat_id = ANY($2::text[]) AND status = 'SOLD' RETURNING seat_id, version`, [e.oldShowId, seatIds]);
    for (const s of freed.rows) seats.push({ seatId: s.seat_id, status: 'AVAILABLE', holdId: null, version: Number(s.version) });
    // The seat's live claim goes with it, or its next hold would hit "one live claim per seat".
    await c.query('UPDATE hold_lines SET claim = NULL WHERE hold_id = $1 AND seat_id = ANY($2::text[]) AND claim', [oldHoldId, seatIds]);
  }
  // Counted units go back to their section's buckets, each up to its capacity (returnUnits), sections in key order.
  const stock: StockChange[] = [];
  const bySection = new Map<string, number>();
  for (const t of revoked.rows) bySection.set(t.section_id, (bySection.get(t.section_id) ?? 0) + 1);
  for (const [sectionId, n] of [...bySection].sort(([a], [b]) => a.localeCompare(b))) {
    const change = await returnUnits(c, e.oldShowId, sectionId, n);
    if (change !== null) stock.push(change);
  }
  await countDoor(c, e.oldShowId, -e.oldTicketIds.length, 0);
  await moveUserUnits(c, e.userId, e.oldShowId, -e.oldTicketIds.length);
  return { showId: e.oldShowId, seats, stock };
}

/** The new order's tickets, VALID, and the new show's door count. */
async function issue(c: pg.ClientBase, e: Exchange, drafts: readonly TicketDraft[], now: number): Promise<void> {
  const input = { tickets: drafts, now };
  await c.query(
    `INSERT INTO tickets (ticket_id, order_id, user_id, show_id, section_id, seat_id, seq, code, status, issued_at, buyer_key, paid_cents)
     SELECT id, $1, $2, $3, section_id, seat_id, n, code, 'VALID', $4, (SELECT username_key FROM users WHERE user_id = $2), paid
     FROM unnest($5::text[], $6::text[], $7::text[], $8::text[], $9::int[]) WITH ORDINALITY AS t(id, section_id, seat_id, code, paid, n)`,
    [e.newOrderId, e.userId, e.newShowId, input.now, input.tickets.map((t) => t.ticketId), input.tickets.map((t) => t.sectionId),
      input.tickets.map((t) => t.seatId), input.tickets.map((t) => t.code), input.tickets.map((t) => t.paidCents)]);
  await countDoor(c, e.newShowId, input.tickets.length, 0);
}

function ticketsOf(e: Exchange, drafts: readonly TicketDraft[], now: number): Ticket[] {
  const input = { tickets: drafts, now };
  return input.tickets.map((draft) => ({
    ticketId: draft.ticketId, orderId: e.newOrderId, userId: e.userId, showId: e.newShowId, sectionId: draft.sectionId, seatId: draft.seatId,
    code: draft.code, status: 'VALID', issuedAt: input.now, usedAt: null, checkInNonce: null, checkedInBy: null, checkInGate: null, checkInDevice: null,
    paidCents: draft.paidCents,
  }));
}

/**
 * The exchange swap on READ COMMITTED, one transaction: the new hold's conditional confirm and the
 * old tickets' conditional revoke are row-locked compare-and-sets, so an expiry (or a check-in,
 * refund or second exchange) racing it either waits and finds the row changed, or wins and this
 * swap rolls back whole.
 */
export function pgExchanges(db: PgDb, origin: string): ExchangeStore {
  return {
    async swapExchange(input) {
      const e = input.exchange;
      const result = await db.tx('swapExchange', async (c): Promise<SwapExchangeOutcome> => {
        // The hold row first (the lock order of settlePayment: hold, then its seats).
        const moved = await c.query<HoldRow>(
          `UPDATE holds SET status = 'CONFIRMED' WHERE hold_id = $1 AND user_id = $2 AND status = 'ACTIVE' AND expires_at > $3 RETURNING *`,
          [e.newHoldId, e.userId, input.now]);
        const holdRow = moved.rows[0];
        if (holdRow === undefined) return { ok: false, stale: 'hold' };
        const soldSeats = await sell(c, holdRow);
        const sold: InventoryChanges = { showId: e.newShowId, seats: soldSeats, stock: await countSold(c, holdRow) };
        const hold = (await loadHolds(c, [holdRow]))[0];
        if (hold === undefined) return refuse({ ok: false, stale: 'hold' } as const);
        const freed = await giveUp(c, e);
        // The new side: an order born TICKETED on the confirmed hold, and its tickets.
        const order = await c.query<OrderRow>(
          `INSERT INTO orders (order_id, user_id, show_id, hold_id, idempotency_key, lines, amount_cents, status, payment_id, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, 'TICKETED', NULL, $8, $8) RETURNING *`,
          [e.newOrderId, e.userId, e.newShowId, e.newHoldId, `exchange:${e.exchangeId}`, JSON.stringify(hold.lines), input.amountCents, input.now]);
        const newOrder = toOrder(order.rows[0] as OrderRow);
        await issue(c, e, input.tickets, input.now);
        await c.query(`INSERT INTO exchanges (exchange_id, user_id, old_order_id, old_show_id, old_ticket_ids, new_order_id, new_show_id, new_hold_id,
          new_ticket_ids, difference_cents, created_at, status) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`, exchangeParams(e));
        const tickets = ticketsOf(e, input.tickets, input.now);
        const refund = input.differenceRefund;
        // The difference of a cheaper swap, recorded with the swap (unique (order_id, idempotency_key): a second one rolls the swap back).
        if (refund !== null) {
          await c.query(
            `INSERT INTO refunds (refund_id, order_id, user_id, show_id, payment_id, amount_cents, ticket_ids, whole, status, reason, requested_by,
               idempotency_key, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, '[]', false, 'PENDING', $7, $8, $9, $10, $10)`,
            [refund.refundId, refund.orderId, refund.userId, refund.showId, refund.paymentId, refund.amountCents, refund.reason, refund.requestedBy, refund.idempotencyKey, input.now]);
        }
        await appendOutbox(c, origin, input.now, [
          exchangeCompleted(e, freed), ticketsIssued(newOrder, tickets, sold),
          ...(refund === null ? [] : [refundRequested(refund, { showId: refund.showId, seats: [], stock: [] })]),
        ]);
        return { ok: true, exchange: e, newOrder, tickets, changes: freed, newShowChanges: sold };
      });
      return result.ok ? result.value : unexpected('swapExchange', result);
    },
    async beginExchange(exchange) {
      const result = await db.tx('beginExchange', (c) => c.query(`INSERT INTO exchanges (exchange_id, user_id, old_order_id, old_show_id, old_ticket_ids, new_order_id, new_show_id, new_hold_id,
        new_ticket_ids, difference_cents, created_at, status) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`, exchangeParams({ ...exchange, status: 'PENDING' })));
      if (!result.ok) unexpected('beginExchange', result);
    },
    async payExchange(input) {
      const e = input.exchange;
      const result = await db.tx('payExchange', async (c): Promise<PayExchangeOutcome> => {
        // The lock order of settlePayment: the hold row, then the payment, the order, the seats.
        const { rows: held } = await c.query<HoldRow>('SELECT * FROM holds WHERE hold_id = $1 FOR UPDATE', [e.newHoldId]);
        const paid = await c.query(`UPDATE payments SET status = 'SUCCEEDED', updated_at = $2 WHERE payment_id = $1 AND status = 'PENDING'`, [input.paymentId, input.now]);
        // The payment's verdict first, as SQLite decides it: a repeated payment is stale 'payment' whatever its hold became.
        if (paid.rowCount !== 1) return { ok: false, stale: 'payment' };
        if (held[0] === undefined || held[0].status !== 'ACTIVE' || held[0].user_id !== e.userId) return refuse({ ok: false, stale: 'hold' } as const);
        const order = await c.query<OrderRow>(
          `UPDATE orders SET status = 'TICKETED', amount_cents = $2, updated_at = $3 WHERE order_id = $1 AND status = 'PENDING_PAY' RETURNING *`,
          [e.newOrderId, input.amountCents, input.now]);
        if (order.rows[0] === undefined) return refuse({ ok: false, stale: 'order' } as const);
        const moved = await c.query<HoldRow>(`UPDATE holds SET status = 'CONFIRMED' WHERE hold_id = $1 AND status = 'ACTIVE' RETURNING *`, [e.newHoldId]);
        const holdRow = moved.rows[0];
        if (holdRow === undefined) return refuse({ ok: false, stale: 'hold' } as const);
        const soldSeats = await sell(c, holdRow);
        const sold: InventoryChanges = { showId: e.newShowId, seats: soldSeats, stock: await countSold(c, holdRow) };
        const freed = await giveUp(c, e);
        await issue(c, e, input.tickets, input.now);
        const newTicketIds = input.tickets.map((t) => t.ticketId);
        const completed = await c.query(`UPDATE exchanges SET status = 'COMPLETED', new_ticket_ids = $2 WHERE exchange_id = $1 AND status = 'PENDING'`,
          [e.exchangeId, JSON.stringify(newTicketIds)]);
        if (completed.rowCount !== 1) return refuse({ ok: false, stale: 'exchange' } as const);
        const done: Exchange = { ...e, newTicketIds, status: 'COMPLETED' };
        const newOrder = toOrder(order.rows[0] as OrderRow);
        const tickets = ticketsOf(e, input.tickets, input.now);
        await appendOutbox(c, origin, input.now, [exchangeCompleted(done, freed), ticketsIssued(newOrder, tickets, sold)]);
        return { ok: true, exchange: done, newOrder, tickets, changes: freed, newShowChanges: sold };
      });
      return result.ok ? result.value : unexpected('payExchange', result);
    },
    async abandonExchange(exchangeId) {
      const result = await db.tx('abandonExchange', (c) => c.query(`UPDATE exchanges SET status = 'ABANDONED' WHERE exchange_id = $1 AND status = 'PENDING'`, [exchangeId]));
      return result.ok ? result.value.rowCount === 1 : unexpected('abandonExchange', result);
    },
    async exchangesOfOrder(orderId) {
      const { rows } = await db.query<ExchangeRow>('SELECT * FROM exchanges WHERE old_order_id = $1 ORDER BY created_at, exchange_id COLLATE "C"', [orderId]);
      return rows.map(toExchange);
    },
    async exchangeIntoOrder(orderId) {
      const { rows } = await db.query<ExchangeRow>('SELECT * FROM exchanges WHERE new_order_id = $1', [orderId]);
      const row = rows[0];
      return row === undefined ? null : toExchange(row);
    },
  };
}
