import type { Database as Db } from 'better-sqlite3';
import type { AuditStore, PendingAudit, ShowAudit } from '../../ports/engine/index.js';
import * as records from './records.js';
import type { Shared } from './shared.js';

/** Plain-data reads for the test auditor: everything of one show, and store-wide work left to settle. */
export function sqliteAudit(db: Db, shared: Shared): AuditStore {
  const q = {
    show: db.prepare('SELECT 1 FROM shows WHERE show_id = ?'),
    seats: db.prepare('SELECT seat_id, section, status, hold_id FROM seats WHERE show_id = ? ORDER BY seat_id'),
    sections: db.prepare('SELECT * FROM sections WHERE show_id = ? ORDER BY position'),
    holds: db.prepare('SELECT * FROM holds WHERE show_id = ? ORDER BY hold_id'),
    orders: db.prepare('SELECT * FROM orders WHERE show_id = ? ORDER BY order_id'),
    payments: db.prepare('SELECT p.* FROM payments p JOIN orders o ON o.order_id = p.order_id WHERE o.show_id = ? ORDER BY p.payment_id'),
    tickets: db.prepare('SELECT * FROM tickets WHERE show_id = ? ORDER BY ticket_id'),
    units: db.prepare('SELECT user_id, units FROM user_show_units WHERE show_id = ? ORDER BY user_id'),
    pending: db.prepare(`SELECT
        (SELECT count(*) FROM orders WHERE status = 'PAID') AS paidOrders,
        (SELECT count(*) FROM payments WHERE status = 'REFUND_PENDING') AS refundPending,
        (SELECT count(*) FROM holds WHERE status = 'ACTIVE' AND expires_at <= ?) AS overdueActiveHolds,
        (SELECT count(*) FROM payments WHERE status = 'PENDING') AS pendingPayments`),
  };
  return {
    async audit(showId): Promise<ShowAudit | null> {
      if (q.show.get(showId) === undefined) return null;
      return {
        seats: (q.seats.all(showId) as records.SeatRow[]).map((s) => ({ seatId: s.seat_id, sectionId: s.section, status: s.status, holdId: s.hold_id })),
        sections: (q.sections.all(showId) as records.SectionRow[]).map((s) => ({
          sectionId: s.section_id, kind: s.kind, sellBy: s.sell_by, capacity: s.capacity, available: s.available,
        })),
        holds: (q.holds.all(showId) as records.HoldRow[]).map((h) => ({
          holdId: h.hold_id, userId: h.user_id, status: h.status, expiresAt: h.expires_at, lines: shared.linesOf(h.hold_id),
        })),
        orders: (q.orders.all(showId) as records.OrderRow[]).map((o) => ({
          orderId: o.order_id, holdId: o.hold_id, userId: o.user_id, status: o.status, amountCents: o.amount_cents, lines: shared.linesOf(o.hold_id),
        })),
        payments: (q.payments.all(showId) as records.PaymentRow[]).map((p) => ({ paymentId: p.payment_id, orderId: p.order_id, status: p.status, amountCents: p.amount_cents })),
        tickets: (q.tickets.all(showId) as records.TicketRow[]).map((t) => ({
          ticketId: t.ticket_id, orderId: t.order_id, sectionId: t.section_id, seatId: t.seat_id, status: t.status,
        })),
        userUnits: (q.units.all(showId) as { user_id: string; units: number }[]).map((u) => ({ userId: u.user_id, units: u.units })),
      };
    },
    auditPending: async (now): Promise<PendingAudit> => q.pending.get(now) as PendingAudit,
  };
}
