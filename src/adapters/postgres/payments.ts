import type pg from 'pg';
import type { Hold, HoldStatus, PaymentStatus } from '../../domain/index.js';
import type { InventoryChanges, PaymentStore, SeatChange, SettlementPlan, StockChange } from '../../ports/engine/index.js';
import { orderRefunded, settlementDrafts, type Payer } from '../shared/outbox-drafts.js';
import { unexpected, type PgDb } from './db.js';
import { appendOutbox } from './outbox.js';
import { byStatusPage } from './orders.js';
import { loadHolds, toOrder, toPayment, type HoldRow, type OrderRow, type PaymentRow } from './rows.js';
import { giveBack, insertLines, moveUserUnits, refuse, takeSeats, takeUnits } from './stock.js';

/** Hold ACTIVE -> CONFIRMED: its seats HELD -> SOLD; units stay taken; the buyer's count unchanged. */
export async function sell(c: pg.ClientBase, hold: HoldRow): Promise<SeatChange[]> {
  const { rows } = await c.query<{ seat_id: string; version: number }>(
    // The hold's seat ids first, as an array (ARRAY(subquery) is an InitPlan), so the seats are
    // found by primary key whatever the statistics say: with a semi-join the planner, misled by
    // stale statistics after a big show's bulk insert, scanned the whole show (34 ms at 100,000 seats).
    `UPDATE seats SET status = 'SOLD', version = version + 1
     WHERE show_id = $1 AND seat_id = ANY (ARRAY(
       SELECT seat_id FROM hold_lines WHERE hold_id = $2 AND claim AND seat_id IS NOT NULL))
       AND hold_id = $2 AND status = 'HELD'
     RETURNING seat_id, version`, [hold.show_id, hold.hold_id]);
  return rows.map((r) => ({ seatId: r.seat_id, status: 'SOLD', holdId: hold.hold_id, version: r.version }));
}

/**
 * The hold's live UNITS lines become sold: each bucket they took from counts them (buckets locked
 * in key order, the lock order of stock.ts). One stock change per section, delta 0: units stay taken.
 */
export async function countSold(c: pg.ClientBase, hold: HoldRow): Promise<StockChange[]> {
  const { rows } = await c.query<{ section_id: string; q: number }>(
    `WITH lines AS (
       SELECT section_id, bucket, sum(quantity)::int AS q FROM hold_lines
       WHERE hold_id = $2 AND claim AND bucket IS NOT NULL GROUP BY section_id, bucket),
     locked AS (
       SELECT b.section_id, b.bucket FROM stock_buckets b JOIN lines l ON l.section_id = b.section_id AND l.bucket = b.bucket
       WHERE b.show_id = $1 ORDER BY b.section_id, b.bucket FOR UPDATE OF b),
     counted AS (
       UPDATE stock_buckets b SET sold = b.sold + l.q FROM lines l, locked k
       WHERE b.show_id = $1 AND b.section_id = l.section_id AND b.bucket = l.bucket AND k.section_id = l.section_id AND k.bucket = l.bucket
       RETURNING b.section_id, l.q)
     SELECT section_id, sum(q)::int AS q FROM counted GROUP BY section_id ORDER BY section_id`, [hold.show_id, hold.hold_id]);
  return rows.map((r) => ({ sectionId: r.section_id, delta: 0, sold: r.q }));
}

/**
 * Hold EXPIRED|RELEASED -> CONFIRMED (money arrived late): takes its inventory back all or
 * nothing, with the same conditional takes as a claim (seats still AVAILABLE, buckets with
 * enough), then renews the lines' live claims (the partial unique index refuses a seat someone
 * else claims) and counts the units for the buyer without the cap (the money is taken).
 */
async function sellLate(c: pg.ClientBase, hold: HoldRow): Promise<{ seats: SeatChange[]; stock: StockChange[] }> {
  const { rows: lines } = await c.query<{ line_no: number; section_id: string; seat_id: string | null; quantity: number }>(
    'SELECT line_no, section_id, seat_id, quantity FROM hold_lines WHERE hold_id = $1 ORDER BY line_no', [hold.hold_id]);
  const seatIds = lines.flatMap((l) => (l.seat_id === null ? [] : [l.seat_id]));
  let seats: SeatChange[] = [];
  if (seatIds.length > 0) {
    seats = await takeSeats(c, hold.show_id, hold.hold_id, seatIds, 'SOLD');
    if (seats.length < seatIds.length) refuse({ ok: false, code: 'INVENTORY_TAKEN' } as const);
    await c.query('UPDATE hold_lines SET claim = true WHERE hold_id = $1 AND seat_id IS NOT NULL', [hold.hold_id]);
  }
  const units = new Map<string, number>();
  for (const l of lines) if (l.seat_id === null) units.set(l.section_id, (units.get(l.section_id) ?? 0) + l.quantity);
  const stock: StockChange[] = [];
  if (units.size > 0) {
    // The buckets given back at the lapse may no longer have room: take from any, and record them.
    await c.query('DELETE FROM hold_lines WHERE hold_id = $1 AND seat_id IS NULL', [hold.hold_id]);
    let next = Math.max(0, ...lines.map((l) => l.line_no)) + 1;
    for (const [sectionId, quantity] of [...units].sort(([a], [b]) => a.localeCompare(b))) {
      const take = await takeUnits(c, hold.show_id, sectionId, quantity);
      if (!take.ok) refuse({ ok: false, code: 'INVENTORY_TAKEN' } as const);
      await insertLines(c, hold.hold_id, hold.show_id, take.takes.map((t) => ({ sectionId, seatId: null, bucket: t.bucket, quantity: t.quantity })), next);
      next += take.takes.length;
      stock.push({ sectionId, delta: -quantity, buckets: take.buckets });
    }
    // The renewed lines are sold at once: their buckets count them.
    for (const sold of await countSold(c, hold)) {
      const taken = stock.find((s) => s.sectionId === sold.sectionId);
      if (taken !== undefined) stock[stock.indexOf(taken)] = { ...taken, sold: sold.sold ?? 0 };
    }
  }
  // The counter last, after the seats and buckets (the lock order of stock.ts).
  await moveUserUnits(c, hold.user_id, hold.show_id, hold.units);
  return { seats, stock };
}

export function pgPayments(db: PgDb, origin: string): PaymentStore {
  return {
    // READ COMMITTED, compare-and-set on every row of the plan, in the lock order hold, payment,
    // order, then counter and inventory (the hold first, as lapseHold does, so a settlement and a
    // lapse of one hold queue on that row instead of deadlocking). Each UPDATE carries the
    // expected prior status in its WHERE; PostgreSQL re-checks it on the newest committed version
    // after any wait, so a row someone else moved yields 0 rows and the whole plan rolls back.
    async settlePayment(plan: SettlementPlan) {
      const result = await db.tx('settlePayment', async (c) => {
        let holdRow: HoldRow | undefined;
        if (plan.hold !== null) {
          const { rows } = await c.query<HoldRow>('SELECT * FROM holds WHERE hold_id = $1 FOR UPDATE', [plan.hold.holdId]);
          holdRow = rows[0];
          if (holdRow === undefined || holdRow.status !== plan.hold.from) refuse({ ok: false, stale: 'hold' } as const);
        }
        const payment = await c.query<PaymentRow>(
          `UPDATE payments SET status = $3, updated_at = $4, received_cents = coalesce($5, received_cents)
           WHERE payment_id = $1 AND status = $2 RETURNING *`,
          [plan.payment.paymentId, plan.payment.from, plan.payment.to, plan.now, plan.payment.receivedCents]);
        if (payment.rows[0] === undefined) refuse({ ok: false, stale: 'payment' } as const);
        let order = null;
        if (plan.order !== null) {
          const { rows } = await c.query<OrderRow>(
            'UPDATE orders SET status = $3, updated_at = $4 WHERE order_id = $1 AND status = $2 RETURNING *',
            [plan.order.orderId, plan.order.from, plan.order.to, plan.now]);
          if (rows[0] === undefined) refuse({ ok: false, stale: 'order' } as const);
          order = toOrder(rows[0] as OrderRow);
        }
        let hold: Hold | null = null;
        let changes: InventoryChanges | null = null;
        if (plan.hold !== null && holdRow !== undefined) {
          const { from, to } = plan.hold as { from: HoldStatus; to: HoldStatus };
          const moved = await c.query<HoldRow>('UPDATE holds SET status = $3 WHERE hold_id = $1 AND status = $2 RETURNING *', [holdRow.hold_id, from, to]);
          if (moved.rows[0] === undefined) refuse({ ok: false, stale: 'hold' } as const);
          if (from === 'ACTIVE' && to === 'CONFIRMED') {
            const seats = await sell(c, holdRow);
            changes = { showId: holdRow.show_id, seats, stock: await countSold(c, holdRow) };
          } else if ((from === 'EXPIRED' || from === 'RELEASED') && to === 'CONFIRMED') {
            changes = { showId: holdRow.show_id, ...(await sellLate(c, holdRow)) };
          } else if (from === 'ACTIVE' && (to === 'RELEASED' || to === 'EXPIRED')) {
            changes = { showId: holdRow.show_id, ...(await giveBack(c, holdRow.show_id, holdRow.hold_id)) };
            await moveUserUnits(c, holdRow.user_id, holdRow.show_id, -holdRow.units);
          }
          hold = (await loadHolds(c, moved.rows))[0] ?? null;
        }
        let payer: Payer | null = null;
        if (order?.status === 'PAID') {
          const { rows } = await c.query<Payer>(
            'SELECT u.username, s.currency FROM orders o JOIN users u ON u.user_id = o.user_id JOIN shows s ON s.show_id = o.show_id WHERE o.order_id = $1', [order.orderId]);
          payer = rows[0] ?? null;
        }
        await appendOutbox(c, origin, plan.now, settlementDrafts(hold, plan.hold !== null, order, payer, changes));
        return { ok: true, payment: toPayment(payment.rows[0] as PaymentRow), order, hold, changes } as const;
      });
      if (result.ok) return result.value;
      // A seat re-claimed by a late sale that someone else claims meanwhile.
      if (result.kind === 'unique' && result.constraint === 'hold_lines_one_live_claim') return { ok: false, code: 'INVENTORY_TAKEN' };
      if (result.kind === 'check' && result.constraint === 'stock_within_capacity') return { ok: false, code: 'INVENTORY_TAKEN' };
      return unexpected('settlePayment', result);
    },

    // Two compare-and-set UPDATEs (payment, then the order part); stock untouched (see the port).
    async completeRefund(input) {
      const result = await db.tx('completeRefund', async (c) => {
        const payment = await c.query<PaymentRow>(
          "UPDATE payments SET status = 'REFUNDED', updated_at = $2 WHERE payment_id = $1 AND status = 'REFUND_PENDING' RETURNING *", [input.paymentId, input.now]);
        if (payment.rows[0] === undefined) refuse({ ok: false, stale: 'payment' } as const);
        if (input.order !== null) {
          const order = await c.query<{ show_id: string; status: string }>('UPDATE orders SET status = $3, updated_at = $4 WHERE order_id = $1 AND status = $2 RETURNING show_id, status',
            [input.order.orderId, input.order.from, input.order.to, input.now]);
          const moved = order.rows[0];
          if (moved === undefined) refuse({ ok: false, stale: 'order' } as const);
          if (moved.status === 'REFUNDED') await appendOutbox(c, origin, input.now, [orderRefunded(input.order.orderId, moved.show_id, input.paymentId)]);
        }
        return { ok: true, payment: toPayment(payment.rows[0] as PaymentRow) } as const;
      });
      return result.ok ? result.value : unexpected('completeRefund', result);
    },

    async getPayment(paymentId) {
      const { rows } = await db.query<PaymentRow>('SELECT * FROM payments WHERE payment_id = $1', [paymentId]);
      return rows[0] === undefined ? null : toPayment(rows[0]);
    },
    async paymentsByStatus(status: PaymentStatus, updatedBefore, after, limit) {
      return (await db.read((c) => byStatusPage<PaymentRow>(c, 'payments', status, updatedBefore, after, limit))).map(toPayment);
    },
  };
}
