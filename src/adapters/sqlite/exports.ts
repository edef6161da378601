import type { Database as Db } from 'better-sqlite3';
import type { ExportStore } from '../../ports/engine/index.js';
import { toBargainOrderRow, toOrderRow, toTicketRow, type BargainOrderRow, type OrderRow, type TicketRow } from '../shared/export-rows.js';

/** The exports' keyset pages: each a range of orders_export / tickets_export (migration v15). */
export function sqliteExports(db: Db): ExportStore {
  const orderColumns = `o.order_id, u.username, o.status, o.amount_cents, o.payment_id, o.created_at, o.updated_at, o.contact_name, o.contact_phone, o.contact_email, o.discount_code, o.discount_cents,
    o.refunded_cents,
    coalesce((SELECT sum(n.amount_cents - max(x.difference_cents, 0)) FROM exchanges x JOIN orders n ON n.order_id = x.new_order_id WHERE x.old_order_id = o.order_id), 0) AS carried_out_cents,
    EXISTS (SELECT 1 FROM exchanges x WHERE x.new_order_id = o.order_id) AS from_exchange
    FROM orders o JOIN users u ON u.user_id = o.user_id WHERE o.show_id = ?`;
  const ticketColumns = `t.ticket_id, t.order_id, u.username, t.code, t.section_id, t.seat_id, t.status, t.issued_at, t.used_at
    FROM tickets t JOIN users u ON u.user_id = t.user_id WHERE t.show_id = ?`;
  const bargainColumns = `b.bargain_order_id, u.username, b.current_price_cents, b.cuts, b.order_id, o.status AS order_status, b.created_at
    FROM bargain_orders b JOIN users u ON u.user_id = b.user_id LEFT JOIN orders o ON o.order_id = b.order_id WHERE b.bargain_id = ?`;
  const q = {
    ordersFirst: db.prepare(`SELECT ${orderColumns} ORDER BY o.created_at, o.order_id LIMIT ?`),
    ordersAfter: db.prepare(`SELECT ${orderColumns} AND (o.created_at, o.order_id) > (?, ?) ORDER BY o.created_at, o.order_id LIMIT ?`),
    ticketsFirst: db.prepare(`SELECT ${ticketColumns} ORDER BY t.issued_at, t.ticket_id LIMIT ?`),
    ticketsAfter: db.prepare(`SELECT ${ticketColumns} AND (t.issued_at, t.ticket_id) > (?, ?) ORDER BY t.issued_at, t.ticket_id LIMIT ?`),
    bargainOrdersFirst: db.prepare(`SELECT ${bargainColumns} ORDER BY b.created_at, b.bargain_order_id LIMIT ?`),
    bargainOrdersAfter: db.prepare(`SELECT ${bargainColumns} AND (b.created_at, b.bargain_order_id) > (?, ?) ORDER BY b.created_at, b.bargain_order_id LIMIT ?`),
  };
  return {
    ordersPage: async (showId, after, limit) => {
      const rows = (after === null ? q.ordersFirst.all(showId, limit) : q.ordersAfter.all(showId, after.at, after.id, limit)) as OrderRow[];
      return rows.map(toOrderRow);
    },
    ticketsPage: async (showId, after, limit) => {
      const rows = (after === null ? q.ticketsFirst.all(showId, limit) : q.ticketsAfter.all(showId, after.at, after.id, limit)) as TicketRow[];
      return rows.map(toTicketRow);
    },
    bargainOrdersPage: async (bargainId, after, limit) => {
      const rows = (after === null ? q.bargainOrdersFirst.all(bargainId, limit) : q.bargainOrdersAfter.all(bargainId, after.at, after.id, limit)) as BargainOrderRow[];
      return rows.map(toBargainOrderRow);
    },
  };
}
