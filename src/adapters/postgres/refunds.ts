import type pg from 'pg';
import { paymentAfterRefund, type PaymentStatus } from '../../domain/index.js';
import type {
  InventoryChanges, Refund, RefundStore, RequestRefundOutcome, SeatChange, SettleRefundOutcome, StockChange,
} from '../../ports/engine/index.js';
import { refundCompleted, refundFailed, refundRequested, toRefund, type RefundRow } from '../shared/refund-records.js';
import { unexpected, type PgDb } from './db.js';
import { appendOutbox } from './outbox.js';
import { toOrder, type OrderRow } from './rows.js';
import { moveUserUnits, refuse, returnUnits } from './stock.js';
import { countDoor } from './tickets.js';

interface RefundTicket { ticket_id: string; show_id: string; section_id: string; seat_id: string | null; hold_id: string }

const ticketColumns = 't.ticket_id, t.show_id, t.section_id, t.seat_id, o.hold_id';

/**
 * Refunds on READ COMMITTED: every step is a conditional UPDATE on the row's expected status, so
 * of a refund and a check-in (or two refunds) of one ticket the second waits for the first's row
 * lock, then finds the status changed and rolls its whole plan back.
 */
export function pgRefunds(db: PgDb, origin: string): RefundStore {
  const existing = async (c: pg.ClientBase, refund: Refund): Promise<Refund | null> => {
    const { rows } = await c.query<RefundRow>('SELECT * FROM refunds WHERE refund_id = $1 OR (order_id = $2 AND idempotency_key = $3)',
      [refund.refundId, refund.orderId, refund.idempotencyKey]);
    return rows[0] === undefined ? null : toRefund(rows[0]);
  };
  const orderHold = async (c: pg.ClientBase, orderId: string): Promise<string> =>
    ((await c.query<{ hold_id: string }>('SELECT hold_id FROM orders WHERE order_id = $1', [orderId])).rows[0] as { hold_id: string }).hold_id;

  return {
    async requestRefund(input) {
      const r = input.refund;
      const result = await db.tx('requestRefund', async (c): Promise<RequestRefundOutcome> => {
        const found = await existing(c, r);
        if (found !== null) return { ok: false, code: 'REFUND_EXISTS', refund: found };
        const inserted = await c.query(
          `INSERT INTO refunds (refund_id, order_id, user_id, show_id, payment_id, amount_cents, ticket_ids, whole, status, reason, requested_by,
             idempotency_key, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'PENDING', NULL, $9, $10, $11, $11) ON CONFLICT DO NOTHING`,
          [r.refundId, r.orderId, r.userId, r.showId, r.paymentId, r.amountCents, JSON.stringify(r.ticketIds), r.whole, r.requestedBy, r.idempotencyKey, input.now]);
        if (inserted.rowCount === 0) return refuse({ ok: false, code: 'REFUND_EXISTS', refund: (await existing(c, r)) as Refund } as const);
        // The order row first (the lock order of settlePayment and issueTickets: order, then tickets, then seats).
        const order = await c.query<OrderRow>(
          `UPDATE orders SET status = CASE WHEN $3 THEN 'REFUND_PENDING' ELSE status END, updated_at = $4
           WHERE order_id = $1 AND status = $2 RETURNING *`, [r.orderId, input.orderFrom, r.whole, input.now]);
        const orderRow = order.rows[0];
        if (orderRow === undefined) return refuse({ ok: false, stale: 'order' } as const);
        const revoked = await c.query<RefundTicket>(
          `UPDATE tickets t SET status = 'INVALID' FROM orders o
           WHERE t.ticket_id = ANY($1::text[]) AND t.order_id = $2 AND t.status = 'VALID' AND o.order_id = t.order_id
           RETURNING ${ticketColumns}`, [r.ticketIds, r.orderId]);
        if (revoked.rows.length !== r.ticketIds.length) return refuse({ ok: false, stale: 'ticket' } as const);
        const seatIds = revoked.rows.flatMap((t) => (t.seat_id === null ? [] : [t.seat_id])).sort();
        const seats = await c.query<{ seat_id: string; hold_id: string; version: number }>(
          `UPDATE seats SET status = 'REFUND_PENDING', version = version + 1
           WHERE show_id = $1 AND seat_id = ANY($2::text[]) AND status = 'SOLD' RETURNING seat_id, hold_id, version`, [r.showId, seatIds]);
        await countDoor(c, r.showId, -r.ticketIds.length, 0);
        const changes: InventoryChanges = {
          showId: r.showId, stock: [],
          seats: seats.rows.map((s): SeatChange => ({ seatId: s.seat_id, status: 'REFUND_PENDING', holdId: s.hold_id, version: Number(s.version) })),
        };
        await appendOutbox(c, origin, input.now, [refundRequested(r, changes)]);
        return { ok: true, refund: r, order: toOrder(orderRow), changes };
      });
      return result.ok ? result.value : unexpected('requestRefund', result);
    },

    async settleRefund(input) {
      const result = await db.tx('settleRefund', async (c): Promise<SettleRefundOutcome> => {
        const { rows } = await c.query<RefundRow>(
          "UPDATE refunds SET status = $2, reason = coalesce($3, reason), updated_at = $4 WHERE refund_id = $1 AND status = 'PENDING' RETURNING *",
          [input.refundId, input.outcome, input.reason, input.now]);
        if (rows[0] === undefined) return { ok: false, stale: 'refund' };
        const refund = toRefund(rows[0]);
        const holdId = await orderHold(c, refund.orderId);
        const seats: SeatChange[] = [];
        const stock: StockChange[] = [];
        if (input.outcome === 'REFUNDED') {
          const order = await c.query(
            `UPDATE orders SET refunded_cents = refunded_cents + $2, updated_at = $3, status = CASE WHEN $4 THEN 'REFUNDED' ELSE status END
             WHERE order_id = $1 AND (NOT $4 OR status = 'REFUND_PENDING')`, [refund.orderId, refund.amountCents, input.now, refund.whole]);
          if (order.rowCount !== 1) return refuse({ ok: false, stale: 'refund' } as const);
          const { rows: tickets } = await c.query<RefundTicket>(
            `SELECT ${ticketColumns} FROM tickets t JOIN orders o ON o.order_id = t.order_id WHERE t.ticket_id = ANY($1::text[])`, [refund.ticketIds]);
          const seatIds = tickets.flatMap((t) => (t.seat_id === null ? [] : [t.seat_id])).sort();
          if (seatIds.length > 0) {
            const freed = await c.query<{ seat_id: string; version: number }>(
              `UPDATE seats SET status = 'AVAILABLE', hold_id = NULL, version = version + 1
               WHERE show_id = $1 AND seat_id = ANY($2::text[]) AND status = 'REFUND_PENDING' RETURNING seat_id, version`, [refund.showId, seatIds]);
            for (const s of freed.rows) seats.push({ seatId: s.seat_id, status: 'AVAILABLE', holdId: null, version: Number(s.version) });
            // The seat's live claim goes with it, or its next hold would hit "one live claim per seat".
            await c.query('UPDATE hold_lines SET claim = NULL WHERE hold_id = $1 AND seat_id = ANY($2::text[]) AND claim', [holdId, seatIds]);
          }
          // Counted units (tickets of counted sections, seated or not) go back to their section's buckets, each up to its capacity (returnUnits).
          const bySection = new Map<string, number>();
          for (const t of tickets) bySection.set(t.section_id, (bySection.get(t.section_id) ?? 0) + 1);
          for (const [sectionId, n] of [...bySection].sort(([a], [b]) => a.localeCompare(b))) {
            const change = await returnUnits(c, refund.showId, sectionId, n);
            if (change !== null) stock.push(change);
          }
          await moveUserUnits(c, refund.userId, refund.showId, -refund.ticketIds.length);
          // The payment the money went back through says so (issue 32). Its row is locked first, so
          // two refunds of one payment settling at once sum each other's (READ COMMITTED reads the
          // other's commit after the lock): the last one sees every REFUNDED refund, this one included.
          const through = input.through ?? null;
          if (through !== null && through.amountCents > 0) {
            await c.query('UPDATE refunds SET source_payment_id = $2, source_cents = $3 WHERE refund_id = $1', [refund.refundId, through.paymentId, through.amountCents]);
          }
          // The refund's payment first, then the second one (a dearer exchange's source), in that order every time.
          const paymentIds = refund.amountCents > 0 ? [refund.paymentId, through?.paymentId ?? null] : [];
          for (const paymentId of paymentIds) {
            if (paymentId === null) continue;
            const { rows: paid } = await c.query<{ status: PaymentStatus; amount_cents: number }>(
              'SELECT status, amount_cents FROM payments WHERE payment_id = $1 FOR UPDATE', [paymentId]);
            const payment = paid[0];
            if (payment !== undefined) {
              // What went back through it: refunds through it (less a part paid through a second payment), and parts of others paid through it.
              const { rows: sum } = await c.query<{ cents: number }>(
                `SELECT coalesce(sum(CASE WHEN payment_id = $1 THEN amount_cents - source_cents ELSE source_cents END), 0)::int AS cents FROM refunds
                 WHERE (payment_id = $1 OR source_payment_id = $1) AND status = 'REFUNDED'`, [paymentId]);
              const next = paymentAfterRefund(payment.status, payment.amount_cents, sum[0]?.cents ?? 0);
              if (next !== null) await c.query('UPDATE payments SET status = $2, updated_at = $3 WHERE payment_id = $1 AND status = $4', [paymentId, next, input.now, payment.status]);
            }
          }
        } else {
          const back = await c.query<RefundTicket>(
            `UPDATE tickets t SET status = 'VALID' FROM orders o
             WHERE t.ticket_id = ANY($1::text[]) AND t.status = 'INVALID' AND o.order_id = t.order_id RETURNING ${ticketColumns}`, [refund.ticketIds]);
          const seatIds = back.rows.flatMap((t) => (t.seat_id === null ? [] : [t.seat_id])).sort();
          const resold = await c.query<{ seat_id: string; hold_id: string; version: number }>(
            `UPDATE seats SET status = 'SOLD', version = version + 1
             WHERE show_id = $1 AND seat_id = ANY($2::text[]) AND status = 'REFUND_PENDING' RETURNING seat_id, hold_id, version`, [refund.showId, seatIds]);
          for (const s of resold.rows) seats.push({ seatId: s.seat_id, status: 'SOLD', holdId: s.hold_id, version: Number(s.version) });
          await countDoor(c, refund.showId, back.rows.length, 0);
          if (refund.whole) {
            await c.query("UPDATE orders SET status = 'TICKETED', updated_at = $2 WHERE order_id = $1 AND status = 'REFUND_PENDING'", [refund.orderId, input.now]);
          }
        }
        const changes: InventoryChanges = { showId: refund.showId, seats, stock };
        await appendOutbox(c, origin, input.now, [input.outcome === 'REFUNDED' ? refundCompleted(refund, changes) : refundFailed(refund, changes)]);
        return { ok: true, refund, changes };
      });
      return result.ok ? result.value : unexpected('settleRefund', result);
    },

    async getRefund(refundId) {
      const { rows } = await db.query<RefundRow>('SELECT * FROM refunds WHERE refund_id = $1', [refundId]);
      return rows[0] === undefined ? null : toRefund(rows[0]);
    },
    async refundsByOrder(orderId) {
      const { rows } = await db.query<RefundRow>('SELECT * FROM refunds WHERE order_id = $1 ORDER BY created_at, refund_id COLLATE "C"', [orderId]);
      return rows.map(toRefund);
    },
    async pendingRefunds(updatedBefore, after, limit) {
      const { rows } = await db.query<RefundRow>(
        `SELECT * FROM refunds WHERE status = 'PENDING' AND updated_at <= $1 AND (updated_at, refund_id COLLATE "C") > ($2, $3::text COLLATE "C")
         ORDER BY updated_at, refund_id COLLATE "C" LIMIT $4`, [updatedBefore, after?.at ?? -1, after?.id ?? '', limit]);
      return rows.map(toRefund);
    },
    async refundedCentsOfOrder(orderId) {
      const { rows } = await db.query<{ n: string }>("SELECT coalesce(sum(amount_cents), 0) AS n FROM refunds WHERE order_id = $1 AND status IN ('PENDING','REFUNDED')", [orderId]);
      return Number(rows[0]?.n ?? 0);
    },
  };
}
