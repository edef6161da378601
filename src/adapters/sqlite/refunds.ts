import type { Database as Db } from 'better-sqlite3';
import { paymentAfterRefund, type PaymentStatus } from '../../domain/index.js';
import type {
  InventoryChanges, KeysetPosition, Refund, RefundStore, RequestRefundInput, RequestRefundOutcome, SeatChange, SettleRefundInput, SettleRefundOutcome, StockChange,
} from '../../ports/engine/index.js';
import { refundCompleted, refundFailed, refundRequested, toRefund, type RefundRow } from '../shared/refund-records.js';
import { Rollback, type GroupCommit } from './group-commit.js';
import type { OutboxWriter } from './outbox.js';
import * as records from './records.js';
import { isUniqueViolation, type Shared } from './shared.js';
import type { ShowCache } from './shows.js';

interface RefundTicket { ticket_id: string; show_id: string; section_id: string; seat_id: string | null; hold_id: string }

/** Refunds as compare-and-set steps: each ticket, order and refund row moves only from the status the plan read. */
export function sqliteRefunds(db: Db, gc: GroupCommit, shows: ShowCache, shared: Shared, ob: OutboxWriter): RefundStore {
  const q = {
    insert: db.prepare(`INSERT INTO refunds (refund_id, order_id, user_id, show_id, payment_id, amount_cents, ticket_ids, whole, status, reason,
        requested_by, idempotency_key, created_at, updated_at)
      VALUES (@refundId, @orderId, @userId, @showId, @paymentId, @amountCents, @ticketIds, @whole, 'PENDING', NULL, @requestedBy, @idempotencyKey, @createdAt, @updatedAt)`),
    existing: db.prepare('SELECT * FROM refunds WHERE refund_id = ? OR (order_id = ? AND idempotency_key = ?)'),
    // The guard of "refund vs check-in" and "refund vs refund": only a VALID ticket of this order is revoked.
    revoke: db.prepare(`UPDATE tickets SET status = 'INVALID' WHERE ticket_id = ? AND order_id = ? AND status = 'VALID'
      RETURNING ticket_id, show_id, section_id, seat_id, (SELECT hold_id FROM orders WHERE order_id = tickets.order_id) AS hold_id`),
    reinstate: db.prepare(`UPDATE tickets SET status = 'VALID' WHERE ticket_id = ? AND status = 'INVALID'
      RETURNING ticket_id, show_id, section_id, seat_id, (SELECT hold_id FROM orders WHERE order_id = tickets.order_id) AS hold_id`),
    ticket: db.prepare(`SELECT ticket_id, show_id, section_id, seat_id, (SELECT hold_id FROM orders WHERE order_id = tickets.order_id) AS hold_id
      FROM tickets WHERE ticket_id = ?`),
    doorCount: db.prepare('UPDATE show_door_counts SET admitting = admitting + ? WHERE show_id = ?'),
    orderMove: db.prepare('UPDATE orders SET status = ?, updated_at = ? WHERE order_id = ? AND status = ? RETURNING *'),
    paymentOf: db.prepare('SELECT status, amount_cents FROM payments WHERE payment_id = ?'),
    // What went back through a payment: refunds through it (less a part paid through a second payment), and parts of others paid through it.
    refundedOfPayment: db.prepare(`SELECT coalesce(sum(CASE WHEN payment_id = @p THEN amount_cents - source_cents ELSE source_cents END), 0) FROM refunds
      WHERE (payment_id = @p OR source_payment_id = @p) AND status = 'REFUNDED'`).pluck(),
    through: db.prepare('UPDATE refunds SET source_payment_id = ?, source_cents = ? WHERE refund_id = ?'),
    paymentMove: db.prepare('UPDATE payments SET status = ?, updated_at = ? WHERE payment_id = ? AND status = ?'),
    orderRefunded: db.prepare('UPDATE orders SET refunded_cents = refunded_cents + ?, updated_at = ? WHERE order_id = ? RETURNING *'),
    order: db.prepare('SELECT * FROM orders WHERE order_id = ?'),
    seatPending: db.prepare(`UPDATE seats SET status = 'REFUND_PENDING', version = version + 1
      WHERE show_id = ? AND seat_id = ? AND status = 'SOLD' RETURNING hold_id, version`),
    seatResold: db.prepare(`UPDATE seats SET status = 'SOLD', version = version + 1
      WHERE show_id = ? AND seat_id = ? AND status = 'REFUND_PENDING' RETURNING hold_id, version`),
    seatFree: db.prepare(`UPDATE seats SET status = 'AVAILABLE', hold_id = NULL, version = version + 1
      WHERE show_id = ? AND seat_id = ? AND status = 'REFUND_PENDING' RETURNING version`),
    // The seat's live claim goes with it, or the next hold of the seat would hit "one live claim per seat".
    unclaimSeat: db.prepare('UPDATE hold_lines SET claim = NULL WHERE hold_id = ? AND seat_id = ? AND claim = 1'),
    stockUp: db.prepare('UPDATE sections SET available = available + ?, stock_version = stock_version + 1 WHERE show_id = ? AND section_id = ? RETURNING available, stock_version'),
    unitsDown: db.prepare('UPDATE user_show_units SET units = units - ? WHERE user_id = ? AND show_id = ?'),
    settle: db.prepare(`UPDATE refunds SET status = ?, reason = coalesce(?, reason), updated_at = ? WHERE refund_id = ? AND status = 'PENDING' RETURNING *`),
    get: db.prepare('SELECT * FROM refunds WHERE refund_id = ?'),
    byOrder: db.prepare('SELECT * FROM refunds WHERE order_id = ? ORDER BY created_at, refund_id'),
    pending: db.prepare(`SELECT * FROM refunds WHERE status = 'PENDING' AND updated_at <= ? AND (updated_at, refund_id) > (?, ?)
      ORDER BY updated_at, refund_id LIMIT ?`),
    taken: db.prepare("SELECT coalesce(sum(amount_cents), 0) AS n FROM refunds WHERE order_id = ? AND status IN ('PENDING','REFUNDED')").pluck(),
  };
  const counted = (showId: string, sectionId: string): boolean => shows.get(showId)?.sections.get(sectionId)?.counted ?? false;
  const ticketsOf = (refund: Refund): RefundTicket[] => refund.ticketIds.map((id) => q.ticket.get(id) as RefundTicket);

  function request(input: RequestRefundInput): RequestRefundOutcome {
    const r = input.refund;
    const found = q.existing.get(r.refundId, r.orderId, r.idempotencyKey) as RefundRow | undefined;
    if (found !== undefined) return { ok: false, code: 'REFUND_EXISTS', refund: toRefund(found) };
    try {
      q.insert.run({ ...r, ticketIds: JSON.stringify(r.ticketIds), whole: r.whole ? 1 : 0 });
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      return { ok: false, code: 'REFUND_EXISTS', refund: toRefund(q.existing.get(r.refundId, r.orderId, r.idempotencyKey) as RefundRow) };
    }
    const stale = (entity: 'order' | 'ticket'): Rollback<RequestRefundOutcome> => new Rollback<RequestRefundOutcome>({ ok: false, stale: entity });
    let orderRow = q.order.get(r.orderId) as records.OrderRow | undefined;
    if (orderRow === undefined || orderRow.status !== input.orderFrom) throw stale('order');
    if (r.whole) {
      orderRow = q.orderMove.get('REFUND_PENDING', input.now, r.orderId, input.orderFrom) as records.OrderRow | undefined;
      if (orderRow === undefined) throw stale('order');
    }
    const seats: SeatChange[] = [];
    for (const ticketId of r.ticketIds) {
      const t = q.revoke.get(ticketId, r.orderId) as RefundTicket | undefined;
      if (t === undefined) throw stale('ticket');
      if (t.seat_id === null) continue;
      const seat = q.seatPending.get(t.show_id, t.seat_id) as { hold_id: string; version: number } | undefined;
      if (seat !== undefined) seats.push({ seatId: t.seat_id, status: 'REFUND_PENDING', holdId: seat.hold_id, version: seat.version });
    }
    q.doorCount.run(-r.ticketIds.length, r.showId);
    const changes: InventoryChanges = { showId: r.showId, seats, stock: [] };
    ob.append(input.now, [refundRequested(r, changes)]);
    return { ok: true, refund: r, order: shared.order(orderRow), changes };
  }

  function settle(input: SettleRefundInput): SettleRefundOutcome {
    const row = q.settle.get(input.outcome, input.reason, input.now, input.refundId) as RefundRow | undefined;
    if (row === undefined) return { ok: false, stale: 'refund' };
    const refund = toRefund(row);
    const seats: SeatChange[] = [];
    const stock: StockChange[] = [];
    if (input.outcome === 'REFUNDED') {
      const bySection = new Map<string, number>();
      for (const t of ticketsOf(refund)) {
        if (t.seat_id !== null) {
          const freed = q.seatFree.get(t.show_id, t.seat_id) as { version: number } | undefined;
          if (freed !== undefined) seats.push({ seatId: t.seat_id, status: 'AVAILABLE', holdId: null, version: freed.version });
          q.unclaimSeat.run(t.hold_id, t.seat_id);
        }
        bySection.set(t.section_id, (bySection.get(t.section_id) ?? 0) + 1);
      }
      for (const [sectionId, n] of bySection) {
        const after = q.stockUp.get(n, refund.showId, sectionId) as records.StockRow;
        if (counted(refund.showId, sectionId)) stock.push({ sectionId, delta: n, buckets: [records.toBucket(after)] });
      }
      q.unitsDown.run(refund.ticketIds.length, refund.userId, refund.showId);
      q.orderRefunded.run(refund.amountCents, input.now, refund.orderId);
      if (refund.whole && q.orderMove.get('REFUNDED', input.now, refund.orderId, 'REFUND_PENDING') === undefined) {
        throw new Rollback<SettleRefundOutcome>({ ok: false, stale: 'refund' });
      }
      // The payment the money went back through says so (issue 32): its REFUNDED refunds, summed now
      // (this one included), make it PARTIALLY_REFUNDED or REFUNDED by the payment machine.
      const through = input.through ?? null;
      if (through !== null && through.amountCents > 0) q.through.run(through.paymentId, through.amountCents, refund.refundId);
      const paymentIds = refund.amountCents > 0 ? [refund.paymentId, through?.paymentId ?? null] : [];
      for (const paymentId of paymentIds) {
        if (paymentId === null) continue;
        const payment = q.paymentOf.get(paymentId) as { status: PaymentStatus; amount_cents: number } | undefined;
        const next = payment === undefined ? null : paymentAfterRefund(payment.status, payment.amount_cents, q.refundedOfPayment.get({ p: paymentId }) as number);
        if (payment !== undefined && next !== null) q.paymentMove.run(next, input.now, paymentId, payment.status);
      }
    } else {
      for (const t of refund.ticketIds) {
        const back = q.reinstate.get(t) as RefundTicket | undefined;
        if (back?.seat_id === null || back === undefined) continue;
        const seat = q.seatResold.get(back.show_id, back.seat_id) as { hold_id: string; version: number } | undefined;
        if (seat !== undefined) seats.push({ seatId: back.seat_id, status: 'SOLD', holdId: seat.hold_id, version: seat.version });
      }
      q.doorCount.run(refund.ticketIds.length, refund.showId);
      if (refund.whole) q.orderMove.run('TICKETED', input.now, refund.orderId, 'REFUND_PENDING');
    }
    const changes: InventoryChanges = { showId: refund.showId, seats, stock };
    ob.append(input.now, [input.outcome === 'REFUNDED' ? refundCompleted(refund, changes) : refundFailed(refund, changes)]);
    return { ok: true, refund, changes };
  }

  return {
    requestRefund: (input) => gc.write('requestRefund', () => request(input)),
    settleRefund: (input) => gc.write('settleRefund', () => settle(input)),
    getRefund: async (refundId) => {
      const row = q.get.get(refundId) as RefundRow | undefined;
      return row === undefined ? null : toRefund(row);
    },
    refundsByOrder: async (orderId) => (q.byOrder.all(orderId) as RefundRow[]).map(toRefund),
    pendingRefunds: async (updatedBefore, after: KeysetPosition | null, limit) =>
      (q.pending.all(updatedBefore, after?.at ?? -1, after?.id ?? '', limit) as RefundRow[]).map(toRefund),
    refundedCentsOfOrder: async (orderId) => q.taken.get(orderId) as number,
  };
}
