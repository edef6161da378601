import type { SeatMapSpec } from '../../domain/index.js';
import type { AuditStore, ShowAudit, StuckReading } from '../../ports/engine/index.js';
import type { PgDb } from './db.js';
import { loadHolds, type HoldRow, type OrderRow } from './rows.js';
import { sectionAvailability } from './shows.js';

/**
 * The auditor's reads, in one REPEATABLE READ READ ONLY transaction so every list is of the same
 * moment (the invariants compare them with each other).
 */
export function pgAudit(db: PgDb): AuditStore {
  return {
    async audit(showId) {
      return db.read(async (c) => {
        await c.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
        try {
          const exists = await c.query<{ seat_map: string | SeatMapSpec }>('SELECT seat_map FROM shows WHERE show_id = $1', [showId]);
          const seatMap = exists.rows[0]?.seat_map;
          if (seatMap === undefined) return null;
          const seats = await c.query<{ seatId: string; sectionId: string; status: ShowAudit['seats'][number]['status']; holdId: string | null }>(
            'SELECT seat_id AS "seatId", section_id AS "sectionId", status, hold_id AS "holdId" FROM seats WHERE show_id = $1 ORDER BY seat_id COLLATE "C"', [showId]);
          const sections = await sectionAvailability(c, showId);
          const { rows: holdRows } = await c.query<HoldRow>('SELECT * FROM holds WHERE show_id = $1 ORDER BY created_at, hold_id COLLATE "C"', [showId]);
          const holds = await loadHolds(c, holdRows);
          const orders = await c.query<OrderRow>('SELECT * FROM orders WHERE show_id = $1 ORDER BY created_at, order_id COLLATE "C"', [showId]);
          const payments = await c.query<{ paymentId: string; orderId: string; status: string; amountCents: number; updatedAt: number }>(
            `SELECT p.payment_id AS "paymentId", p.order_id AS "orderId", p.status, p.amount_cents AS "amountCents", p.updated_at AS "updatedAt"
             FROM payments p JOIN orders o ON o.order_id = p.order_id WHERE o.show_id = $1 ORDER BY p.payment_id COLLATE "C"`, [showId]);
          const tickets = await c.query<{ ticketId: string; orderId: string; sectionId: string; seatId: string | null; status: string }>(
            `SELECT ticket_id AS "ticketId", order_id AS "orderId", section_id AS "sectionId", seat_id AS "seatId", status
             FROM tickets WHERE show_id = $1 ORDER BY ticket_id COLLATE "C"`, [showId]);
          const units = await c.query<{ userId: string; units: number }>(
            'SELECT user_id AS "userId", units FROM user_show_units WHERE show_id = $1 ORDER BY user_id COLLATE "C"', [showId]);
          // Tickets of the show's PENDING refunds (few at any moment): still taken until the provider answers.
          const pending = await c.query<{ ticket_ids: string }>("SELECT ticket_ids FROM refunds WHERE status = 'PENDING' AND show_id = $1 ORDER BY refund_id COLLATE \"C\"", [showId]);
          const exchangedOut = await c.query<{ old_order_id: string }>(
            `SELECT x.old_order_id FROM orders o JOIN exchanges x ON x.old_order_id = o.order_id AND x.status = 'COMPLETED' WHERE o.show_id = $1 GROUP BY x.old_order_id ORDER BY x.old_order_id COLLATE "C"`, [showId]);
          const audit: ShowAudit = {
            seatMap: typeof seatMap === 'string' ? JSON.parse(seatMap) as SeatMapSpec : seatMap,
            seats: seats.rows,
            sections: sections.map((s) => ({ sectionId: s.sectionId, kind: s.kind, sellBy: s.sellBy, capacity: s.capacity, available: s.available })),
            holds: holds.map((h) => ({ holdId: h.holdId, userId: h.userId, status: h.status, expiresAt: h.expiresAt, lines: h.lines })),
            orders: orders.rows.map((o) => ({ orderId: o.order_id, holdId: o.hold_id, userId: o.user_id, status: o.status, amountCents: o.amount_cents, updatedAt: o.updated_at, lines: o.lines })),
            payments: payments.rows,
            tickets: tickets.rows,
            userUnits: units.rows,
            pendingRefundTicketIds: pending.rows.flatMap((r) => JSON.parse(r.ticket_ids) as string[]),
            exchangedOutOrderIds: exchangedOut.rows.map((r) => r.old_order_id),
          };
          return audit;
        } finally {
          await c.query('COMMIT');
        }
      });
    },
    async auditPending(now) {
      const { rows } = await db.query<{ paid: number; refund: number; overdue: number; pending: number }>(
        `SELECT (SELECT count(*) FROM orders WHERE status = 'PAID')::int AS paid,
                (SELECT count(*) FROM payments WHERE status = 'REFUND_PENDING')::int AS refund,
                (SELECT count(*) FROM holds WHERE status = 'ACTIVE' AND expires_at <= $1)::int AS overdue,
                (SELECT count(*) FROM payments WHERE status = 'PENDING')::int AS pending`, [now]);
      const r = rows[0] as { paid: number; refund: number; overdue: number; pending: number };
      return { paidOrders: r.paid, refundPending: r.refund, overdueActiveHolds: r.overdue, pendingPayments: r.pending };
    },
    async auditShowIds(after, limit) {
      const { rows } = await db.query<{ show_id: string }>(
        'SELECT show_id FROM shows WHERE show_id COLLATE "C" > $1 ORDER BY show_id COLLATE "C" LIMIT $2', [after ?? '', limit]);
      return rows.map((r) => r.show_id);
    },
    async stuckFigures(now, countMax): Promise<StuckReading> {
      // Each figure is an index range (orders_by_status, payments_by_status, holds_active_by_expiry), counts capped by LIMIT.
      const { rows } = await db.query<Record<string, number | null>>(
        `SELECT (SELECT count(*) FROM (SELECT 1 FROM orders WHERE status = 'PENDING_PAY' LIMIT $2) x)::int AS "pendingPay",
                (SELECT min(updated_at) FROM orders WHERE status = 'PENDING_PAY') AS "pendingPayOldest",
                (SELECT count(*) FROM (SELECT 1 FROM orders WHERE status = 'PAID' LIMIT $2) x)::int AS paid,
                (SELECT min(updated_at) FROM orders WHERE status = 'PAID') AS "paidOldest",
                (SELECT count(*) FROM (SELECT 1 FROM holds WHERE status = 'ACTIVE' AND expires_at <= $1 LIMIT $2) x)::int AS overdue,
                (SELECT min(expires_at) FROM holds WHERE status = 'ACTIVE' AND expires_at <= $1) AS "overdueOldest",
                (SELECT count(*) FROM (SELECT 1 FROM payments WHERE status = 'PENDING' LIMIT $2) x)::int AS "pendingPayments",
                (SELECT min(updated_at) FROM payments WHERE status = 'PENDING') AS "pendingPaymentsOldest"`, [now, countMax]);
      const r = rows[0] as Record<string, number | null>;
      const figure = (count: string, oldest: string) => ({ count: r[count] ?? 0, oldest: r[oldest] ?? null });
      return {
        pendingPay: figure('pendingPay', 'pendingPayOldest'),
        paidNotTicketed: figure('paid', 'paidOldest'),
        overdueHolds: figure('overdue', 'overdueOldest'),
        pendingPayments: figure('pendingPayments', 'pendingPaymentsOldest'),
      };
    },
  };
}
