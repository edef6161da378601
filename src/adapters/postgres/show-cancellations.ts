import type { CancelShowOutcome, CancellationProgress, ShowCancellationStore } from '../../ports/engine/index.js';
import { showChanged } from '../shared/outbox-drafts.js';
import { showCancelled } from '../shared/refund-records.js';
import { toShow, type ShowRow } from '../shared/records.js';
import { appendAuditEntry } from './change-log.js';
import { unexpected, type PgDb } from './db.js';
import { appendOutbox } from './outbox.js';
import { loadHolds, toOrder, type HoldRow, type OrderRow } from './rows.js';

/** A show's refundable orders: TICKETED with a ticket still VALID. */
const refundable = "o.status = 'TICKETED' AND EXISTS (SELECT 1 FROM tickets t WHERE t.order_id = o.order_id AND t.status = 'VALID')";

export function pgShowCancellations(db: PgDb, origin: string): ShowCancellationStore {
  const counts = (rows: { status: string; n: string }[]): Record<string, number> => Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
  return {
    async cancelShow(input) {
      const result = await db.tx('cancelShow', async (c): Promise<CancelShowOutcome> => {
        // The one guard of "cancelled once": only a show not cancelled yet moves (the row lock orders two cancels).
        const { rows } = await c.query<ShowRow>(
          'UPDATE shows SET cancelled_at = $2, cancel_reason = $3, version = version + 1 WHERE show_id = $1 AND cancelled_at IS NULL RETURNING *',
          [input.showId, input.now, input.reason]);
        if (rows[0] === undefined) {
          const stored = await c.query<ShowRow>('SELECT * FROM shows WHERE show_id = $1', [input.showId]);
          return stored.rows[0] === undefined ? { ok: false, code: 'SHOW_NOT_FOUND' } : { ok: false, code: 'SHOW_CANCELLED', show: toShow(stored.rows[0]) };
        }
        const show = toShow(rows[0]);
        await appendOutbox(c, origin, input.now, [showCancelled(show.showId, input.reason), showChanged(show)]);
        await appendAuditEntry(c, input.audit);
        return { ok: true, show };
      });
      return result.ok ? result.value : unexpected('cancelShow', result);
    },
    async activeHoldsOfShow(showId, limit) {
      const { rows } = await db.query<HoldRow>("SELECT * FROM holds WHERE show_id = $1 AND status = 'ACTIVE' ORDER BY hold_id COLLATE \"C\" LIMIT $2", [showId, limit]);
      return db.read((c) => loadHolds(c, rows));
    },
    async refundableOrdersOfShow(showId, afterOrderId, limit) {
      const { rows } = await db.query<OrderRow>(
        `SELECT * FROM orders o WHERE o.show_id = $1 AND o.order_id COLLATE "C" > $2 AND ${refundable} ORDER BY o.order_id COLLATE "C" LIMIT $3`, [showId, afterOrderId ?? '', limit]);
      return rows.map(toOrder);
    },
    async cancellationProgress(showId): Promise<CancellationProgress> {
      const [orders, toRefund, refunds, holds] = await Promise.all([
        db.query<{ status: string; n: string }>('SELECT status, count(*) AS n FROM orders WHERE show_id = $1 GROUP BY status', [showId]),
        db.query<{ n: string }>(`SELECT count(*) AS n FROM orders o WHERE o.show_id = $1 AND ${refundable}`, [showId]),
        db.query<{ status: string; n: string }>('SELECT status, count(*) AS n FROM refunds WHERE show_id = $1 GROUP BY status', [showId]),
        db.query<{ n: string }>("SELECT count(*) AS n FROM holds WHERE show_id = $1 AND status = 'ACTIVE'", [showId]),
      ]);
      return {
        ordersByStatus: counts(orders.rows), ordersToRefund: Number(toRefund.rows[0]?.n ?? 0),
        refundsByStatus: counts(refunds.rows), activeHolds: Number(holds.rows[0]?.n ?? 0),
      };
    },
    async unfinishedCancellations(limit) {
      const { rows } = await db.query<{ show_id: string }>(
        `SELECT s.show_id FROM shows s WHERE s.cancelled_at IS NOT NULL AND (
           EXISTS (SELECT 1 FROM orders o WHERE o.show_id = s.show_id AND (o.status = 'PAID' OR (${refundable})))
           OR EXISTS (SELECT 1 FROM refunds r WHERE r.show_id = s.show_id AND r.status = 'PENDING')
           OR EXISTS (SELECT 1 FROM holds h WHERE h.show_id = s.show_id AND h.status = 'ACTIVE'))
         ORDER BY s.cancelled_at, s.show_id COLLATE "C" LIMIT $1`, [limit]);
      return rows.map((r) => r.show_id);
    },
  };
}
