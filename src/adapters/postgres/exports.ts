import type { ExportStore } from '../../ports/engine/index.js';
import { toBargainOrderRow, toOrderRow, toTicketRow, type BargainOrderRow, type OrderRow, type TicketRow } from '../shared/export-rows.js';
import type { PgDb } from './db.js';

/**
 * The exports' keyset pages: each a range of orders_export / tickets_export (migration 9). The
 * first page passes a NULL position; the row comparison is in byte order like the index.
 */
export function pgExports(db: PgDb): ExportStore {
  return {
    async ordersPage(showId, after, limit) {
      const { rows } = await db.query<OrderRow>(
        `SELECT o.order_id, u.username, o.status, o.amount_cents, o.payment_id, o.created_at, o.updated_at, o.contact_name, o.contact_phone, o.contact_email, o.discount_code, o.discount_cents,
         o.refunded_cents,
         coalesce((SELECT sum(n.amount_cents - greatest(x.difference_cents, 0)) FROM exchanges x JOIN orders n ON n.order_id = x.new_order_id WHERE x.old_order_id = o.order_id), 0) AS carried_out_cents,
         EXISTS (SELECT 1 FROM exchanges x WHERE x.new_order_id = o.order_id) AS from_exchange
         FROM orders o JOIN users u ON u.user_id = o.user_id WHERE o.show_id = $1
           AND ($2::bigint IS NULL OR (o.created_at, o.order_id COLLATE "C") > ($2::bigint, $3::text COLLATE "C"))
         ORDER BY o.created_at, o.order_id COLLATE "C" LIMIT $4`, [showId, after?.at ?? null, after?.id ?? null, limit]);
      return rows.map(toOrderRow);
    },
    async ticketsPage(showId, after, limit) {
      const { rows } = await db.query<TicketRow>(
        `SELECT t.ticket_id, t.order_id, u.username, t.code, t.section_id, t.seat_id, t.status, t.issued_at, t.used_at
         FROM tickets t JOIN users u ON u.user_id = t.user_id WHERE t.show_id = $1
           AND ($2::bigint IS NULL OR (t.issued_at, t.ticket_id COLLATE "C") > ($2::bigint, $3::text COLLATE "C"))
         ORDER BY t.issued_at, t.ticket_id COLLATE "C" LIMIT $4`, [showId, after?.at ?? null, after?.id ?? null, limit]);
      return rows.map(toTicketRow);
    },
    async bargainOrdersPage(bargainId, after, limit) {
      const { rows } = await db.query<BargainOrderRow>(
        `SELECT b.bargain_order_id, u.username, b.current_price_cents, b.cuts, b.order_id, o.status AS order_status, b.created_at
         FROM bargain_orders b JOIN users u ON u.user_id = b.user_id LEFT JOIN orders o ON o.order_id = b.order_id WHERE b.bargain_id = $1
           AND ($2::bigint IS NULL OR (b.created_at, b.bargain_order_id COLLATE "C") > ($2::bigint, $3::text COLLATE "C"))
         ORDER BY b.created_at, b.bargain_order_id COLLATE "C" LIMIT $4`, [bargainId, after?.at ?? null, after?.id ?? null, limit]);
      return rows.map(toBargainOrderRow);
    },
  };
}
