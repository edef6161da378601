import type { Database as Db } from 'better-sqlite3';
import type { CancelShowInput, CancelShowOutcome, CancellationProgress, ShowCancellationStore } from '../../ports/engine/index.js';
import { showChanged } from '../shared/outbox-drafts.js';
import { showCancelled } from '../shared/refund-records.js';
import { sqliteChangeLogWriter } from './change-log.js';
import type { GroupCommit } from './group-commit.js';
import type { OutboxWriter } from './outbox.js';
import * as records from './records.js';
import type { Shared } from './shared.js';

/** A show's refundable orders: TICKETED with a ticket still VALID. */
const refundable = "o.status = 'TICKETED' AND EXISTS (SELECT 1 FROM tickets t WHERE t.order_id = o.order_id AND t.status = 'VALID')";

export function sqliteShowCancellations(db: Db, gc: GroupCommit, shared: Shared, ob: OutboxWriter): ShowCancellationStore {
  const q = {
    // The one guard of "cancelled once": only a show not cancelled yet moves.
    cancel: db.prepare(`UPDATE shows SET cancelled_at = ?, cancel_reason = ?, version = version + 1
      WHERE show_id = ? AND ready = 1 AND cancelled_at IS NULL RETURNING *`),
    show: db.prepare('SELECT * FROM shows WHERE show_id = ? AND ready = 1'),
    holds: db.prepare("SELECT * FROM holds WHERE show_id = ? AND status = 'ACTIVE' ORDER BY hold_id LIMIT ?"),
    orders: db.prepare(`SELECT * FROM orders o WHERE o.show_id = ? AND o.order_id > ? AND ${refundable} ORDER BY o.order_id LIMIT ?`),
    byStatus: db.prepare('SELECT status, count(*) AS n FROM orders WHERE show_id = ? GROUP BY status'),
    toRefund: db.prepare(`SELECT count(*) AS n FROM orders o WHERE o.show_id = ? AND ${refundable}`).pluck(),
    refunds: db.prepare('SELECT status, count(*) AS n FROM refunds WHERE show_id = ? GROUP BY status'),
    activeHolds: db.prepare("SELECT count(*) AS n FROM holds WHERE show_id = ? AND status = 'ACTIVE'").pluck(),
    unfinished: db.prepare(`SELECT s.show_id FROM shows s WHERE s.cancelled_at IS NOT NULL AND (
        EXISTS (SELECT 1 FROM orders o WHERE o.show_id = s.show_id AND (o.status = 'PAID' OR (${refundable})))
        OR EXISTS (SELECT 1 FROM refunds r WHERE r.show_id = s.show_id AND r.status = 'PENDING')
        OR EXISTS (SELECT 1 FROM holds h WHERE h.show_id = s.show_id AND h.status = 'ACTIVE'))
      ORDER BY s.cancelled_at, s.show_id LIMIT ?`).pluck(),
  };
  const auditLog = sqliteChangeLogWriter(db);
  const counts = (rows: { status: string; n: number }[]): Record<string, number> => Object.fromEntries(rows.map((r) => [r.status, r.n]));
  return {
    cancelShow: (input: CancelShowInput) =>
      gc.write('cancelShow', (): CancelShowOutcome => {
        const row = q.cancel.get(input.now, input.reason, input.showId) as records.ShowRow | undefined;
        if (row === undefined) {
          const stored = q.show.get(input.showId) as records.ShowRow | undefined;
          return stored === undefined ? { ok: false, code: 'SHOW_NOT_FOUND' } : { ok: false, code: 'SHOW_CANCELLED', show: records.toShow(stored) };
        }
        const show = records.toShow(row);
        ob.append(input.now, [showCancelled(show.showId, input.reason), showChanged(show)]);
        auditLog.append(input.audit);
        return { ok: true, show };
      }),
    activeHoldsOfShow: async (showId, limit) => (q.holds.all(showId, limit) as records.HoldRow[]).map((row) => shared.hold(row)),
    refundableOrdersOfShow: async (showId, afterOrderId, limit) => (q.orders.all(showId, afterOrderId ?? '', limit) as records.OrderRow[]).map((row) => shared.order(row)),
    cancellationProgress: async (showId): Promise<CancellationProgress> => ({
      ordersByStatus: counts(q.byStatus.all(showId) as { status: string; n: number }[]),
      ordersToRefund: q.toRefund.get(showId) as number,
      refundsByStatus: counts(q.refunds.all(showId) as { status: string; n: number }[]),
      activeHolds: q.activeHolds.get(showId) as number,
    }),
    unfinishedCancellations: async (limit) => q.unfinished.all(limit) as string[],
  };
}
