import type { Database as Db } from 'better-sqlite3';
import type { ActivitySummary, BargainRecord, Hold, Order } from '../../domain/index.js';
import { bargainSectionId } from '../../domain/index.js';
import type {
  Bargain, BargainCut, BargainOrder, BargainStore, CutBargainOutcome, OrderBargainOutcome, ShowStore, StartBargainOutcome, UpdateBargainOutcome,
} from '../../ports/engine/index.js';
import { holdCreated, orderCreated, showChanged } from '../shared/outbox-drafts.js';
import { sqliteChangeLogWriter } from './change-log.js';
import { Rollback, type GroupCommit } from './group-commit.js';
import type { OutboxWriter } from './outbox.js';
import * as records from './records.js';
import { isUniqueViolation } from './shared.js';

interface BargainRow extends records.ShowRow {
  goods: string;
  original_price_cents: number;
  floor_price_cents: number;
  cut_min_cents: number;
  cut_max_cents: number;
  min_cuts: number;
  offline: 0 | 1;
  b_created_at: number;
}

interface BargainOrderRow {
  bargain_order_id: string;
  bargain_id: string;
  user_id: string;
  current_price_cents: number;
  cuts: number;
  order_id: string | null;
  created_at: number;
}

const toRecord = (r: BargainRow): BargainRecord => ({
  bargainId: r.show_id, goods: r.goods, originalPriceCents: r.original_price_cents, floorPriceCents: r.floor_price_cents,
  cutMinCents: r.cut_min_cents, cutMaxCents: r.cut_max_cents, minCuts: r.min_cuts, offline: r.offline === 1, createdAt: r.b_created_at,
});
const toBargain = (r: BargainRow): Bargain => ({ show: records.toShow(r), record: toRecord(r) });
const toBargainOrder = (r: BargainOrderRow): BargainOrder => ({
  bargainOrderId: r.bargain_order_id, bargainId: r.bargain_id, userId: r.user_id, currentPriceCents: r.current_price_cents,
  cuts: r.cuts, orderId: r.order_id, createdAt: r.created_at,
});

/**
 * Bargains on SQLite. Each decision is one unit of the group commit (one write lock); the guards
 * are in the statements and the schema: the cut's clamp to the floor in its UPDATE (backed by
 * CHECK current >= floor), one cut per helper by a unique index, one bargain order per buyer by
 * another, the stock by a conditional decrement (backed by the sections' CHECK), one order per
 * bargain order by the conditional link (and order_id UNIQUE).
 */
export function sqliteBargains(db: Db, gc: GroupCommit, showStore: ShowStore, ob: OutboxWriter): BargainStore {
  const auditLog = sqliteChangeLogWriter(db);
  const q = {
    insert: db.prepare(`INSERT INTO bargains (bargain_id, goods, original_price_cents, floor_price_cents, cut_min_cents, cut_max_cents, min_cuts, offline, created_at)
      VALUES (@bargainId, @goods, @originalPriceCents, @floorPriceCents, @cutMinCents, @cutMaxCents, @minCuts, @offline, @createdAt)`),
    bargain: db.prepare(`SELECT s.*, b.goods, b.original_price_cents, b.floor_price_cents, b.cut_min_cents, b.cut_max_cents, b.min_cuts, b.offline,
        b.created_at AS b_created_at
      FROM bargains b JOIN shows s ON s.show_id = b.bargain_id AND s.ready = 1 WHERE b.bargain_id = ?`),
    list: db.prepare(`SELECT s.show_id, s.title, s.image_url, s.sale_starts_at, s.sale_ends_at, b.offline
      FROM bargains b JOIN shows s ON s.show_id = b.bargain_id AND s.ready = 1
      WHERE @hidden = 1 OR (b.offline = 0 AND s.sale_ends_at > @now)
      ORDER BY
        CASE WHEN b.offline = 1 OR @now >= s.sale_ends_at THEN 2 WHEN @now < s.sale_starts_at THEN 1 ELSE 0 END,
        CASE WHEN b.offline = 1 OR @now >= s.sale_ends_at THEN -s.sale_ends_at WHEN @now < s.sale_starts_at THEN s.sale_starts_at ELSE s.sale_ends_at END,
        s.show_id
      LIMIT @limit`),
    startInsert: db.prepare(`INSERT INTO bargain_orders (bargain_order_id, bargain_id, user_id, current_price_cents, floor_price_cents, cuts, order_id, created_at)
      VALUES (?, ?, ?, ?, ?, 0, NULL, ?) ON CONFLICT (bargain_id, user_id) DO NOTHING`),
    orderOf: db.prepare('SELECT * FROM bargain_orders WHERE bargain_id = ? AND user_id = ?'),
    bargainOrder: db.prepare('SELECT * FROM bargain_orders WHERE bargain_order_id = ?'),
    cuts: db.prepare(`SELECT c.helper_id, u.username, c.amount_cents, c.cut_at FROM bargain_cuts c JOIN users u ON u.user_id = c.helper_id
      WHERE c.bargain_order_id = ? ORDER BY c.cut_at, c.rowid LIMIT ?`),
    // The floor clamp: the price falls by the draw but never below the floor, and only while above it.
    cut: db.prepare(`UPDATE bargain_orders SET current_price_cents = max(floor_price_cents, current_price_cents - @draw), cuts = cuts + 1
      WHERE bargain_order_id = @id AND order_id IS NULL AND current_price_cents > floor_price_cents
      RETURNING current_price_cents, cuts`),
    cutInsert: db.prepare('INSERT INTO bargain_cuts (bargain_order_id, helper_id, amount_cents, cut_at) VALUES (?, ?, ?, ?)'),
    orderByKey: db.prepare('SELECT order_id FROM orders WHERE user_id = ? AND idempotency_key = ?'),
    unitsUp: db.prepare(`INSERT INTO user_show_units (user_id, show_id, units) SELECT @userId, @showId, 1
      ON CONFLICT (user_id, show_id) DO UPDATE SET units = units + 1 WHERE units + 1 <= 1`),
    // The stock check: a conditional decrement; CHECK (available BETWEEN 0 AND capacity) backs it.
    stockDown: db.prepare('UPDATE sections SET available = available - 1 WHERE show_id = ? AND section_id = ? AND available >= 1'),
    stock: db.prepare('SELECT available FROM sections WHERE show_id = ? AND section_id = ?'),
    holdInsert: db.prepare(`INSERT INTO holds (hold_id, show_id, user_id, total_price_cents, units, status, created_at, expires_at, extensions)
      VALUES (?, ?, ?, ?, 1, 'ACTIVE', ?, ?, 0)`),
    lineInsert: db.prepare(`INSERT INTO hold_lines (hold_id, line_no, show_id, section_id, seat_id, quantity, claim) VALUES (?, 0, ?, ?, NULL, 1, 1)`),
    orderInsert: db.prepare(`INSERT INTO orders (order_id, user_id, show_id, hold_id, idempotency_key, amount_cents, status, payment_id, created_at, updated_at, kind, activity_id)
      VALUES (?, ?, ?, ?, ?, ?, 'INIT', NULL, ?, ?, 'BARGAIN', ?)`),
    // One order per bargain order: linked only while unlinked.
    link: db.prepare('UPDATE bargain_orders SET order_id = ? WHERE bargain_order_id = ? AND order_id IS NULL'),
    showUpdate: db.prepare(`UPDATE shows SET title = @title, description = @description, image_url = @imageUrl, sale_ends_at = @saleEndsAt,
        starts_at = @saleEndsAt, version = version + 1
      WHERE show_id = @id AND ready = 1 AND version = @expectedVersion`),
    offline: db.prepare('UPDATE bargains SET offline = ? WHERE bargain_id = ?'),
  };
  const bargain = (id: string): BargainRow | undefined => q.bargain.get(id) as BargainRow | undefined;
  const bargainOrder = (id: string): BargainOrderRow | undefined => q.bargainOrder.get(id) as BargainOrderRow | undefined;
  const closed = (row: BargainRow, now: number): 'ACTIVITY_OFFLINE' | 'SALE_NOT_OPEN' | null =>
    row.offline === 1 ? 'ACTIVITY_OFFLINE' : now < row.sale_starts_at || now >= row.sale_ends_at ? 'SALE_NOT_OPEN' : null;

  return {
    async createBargain({ show, record, audit }) {
      await gc.write('createBargain', () => {
        q.insert.run({ ...record, offline: record.offline ? 1 : 0 });
      });
      await showStore.createShow({ show, audit });
    },

    getBargain: async (id) => {
      const row = bargain(id);
      return row === undefined ? null : toBargain(row);
    },

    listBargainActivities: async (limit, now, withHidden) =>
      (q.list.all({ limit, now, hidden: withHidden ? 1 : 0 }) as { show_id: string; title: string; image_url: string | null; sale_starts_at: number; sale_ends_at: number; offline: 0 | 1 }[])
        .map((r): ActivitySummary => ({
          activityId: r.show_id, kind: 'BARGAIN', title: r.title, imageUrl: r.image_url, saleStartsAt: r.sale_starts_at, saleEndsAt: r.sale_ends_at, offline: r.offline === 1,
        })),

    startBargain: (input) =>
      gc.write('startBargain', (): StartBargainOutcome => {
        const row = bargain(input.bargainId);
        if (row === undefined) return { ok: false, code: 'BARGAIN_NOT_FOUND' };
        const existing = q.orderOf.get(input.bargainId, input.userId) as BargainOrderRow | undefined;
        if (existing !== undefined) return { ok: true, created: false, bargainOrder: toBargainOrder(existing) };
        const refusal = closed(row, input.now);
        if (refusal !== null) return { ok: false, code: refusal };
        q.startInsert.run(input.bargainOrderId, input.bargainId, input.userId, row.original_price_cents, row.floor_price_cents, input.now);
        return { ok: true, created: true, bargainOrder: toBargainOrder(q.orderOf.get(input.bargainId, input.userId) as BargainOrderRow) };
      }),

    getBargainOrder: async (id) => {
      const row = bargainOrder(id);
      return row === undefined ? null : toBargainOrder(row);
    },

    getBargainOrderOf: async (bargainId, userId) => {
      const row = q.orderOf.get(bargainId, userId) as BargainOrderRow | undefined;
      return row === undefined ? null : toBargainOrder(row);
    },

    listBargainCuts: async (id, limit) =>
      (q.cuts.all(id, limit) as { helper_id: string; username: string; amount_cents: number; cut_at: number }[])
        .map((r): BargainCut => ({ helperId: r.helper_id, helperName: r.username, amountCents: r.amount_cents, cutAt: r.cut_at })),

    cutBargain: (input) =>
      gc.write('cutBargain', (): CutBargainOutcome => {
        const order = bargainOrder(input.bargainOrderId);
        if (order === undefined) return { ok: false, code: 'BARGAIN_ORDER_NOT_FOUND' };
        const row = bargain(order.bargain_id);
        if (row === undefined) return { ok: false, code: 'BARGAIN_ORDER_NOT_FOUND' };
        const refusal = closed(row, input.now);
        if (refusal !== null) return { ok: false, code: refusal };
        if (order.order_id !== null) return { ok: false, code: 'BARGAIN_CLOSED' };
        if (order.user_id === input.helperId) return { ok: false, code: 'CANNOT_CUT_OWN' };
        const after = q.cut.get({ id: input.bargainOrderId, draw: input.drawCents }) as { current_price_cents: number; cuts: number } | undefined;
        if (after === undefined) return { ok: false, code: 'FLOOR_REACHED' };
        const amountCents = order.current_price_cents - after.current_price_cents;
        try {
          q.cutInsert.run(input.bargainOrderId, input.helperId, amountCents, input.now);
        } catch (error) {
          if (!isUniqueViolation(error)) throw error;
          throw new Rollback<CutBargainOutcome>({ ok: false, code: 'ALREADY_CUT' });
        }
        return { ok: true, amountCents, currentPriceCents: after.current_price_cents, cuts: after.cuts };
      }),

    orderBargain: (input) =>
      gc.write('orderBargain', (): OrderBargainOutcome => {
        const bo = bargainOrder(input.bargainOrderId);
        if (bo === undefined || bo.user_id !== input.userId) return { ok: false, code: 'BARGAIN_ORDER_NOT_FOUND' };
        const row = bargain(bo.bargain_id);
        if (row === undefined) return { ok: false, code: 'BARGAIN_ORDER_NOT_FOUND' };
        if (bo.order_id !== null) return { ok: false, code: 'ALREADY_ORDERED', orderId: bo.order_id };
        const refusal = closed(row, input.now);
        if (refusal !== null) return { ok: false, code: refusal };
        if (!(bo.current_price_cents <= row.floor_price_cents || bo.cuts >= row.min_cuts)) return { ok: false, code: 'BARGAIN_NOT_READY' };
        const earlier = q.orderByKey.get(input.userId, input.idempotencyKey) as { order_id: string } | undefined;
        if (earlier !== undefined) return { ok: false, code: 'KEY_TAKEN', orderId: earlier.order_id };
        if (q.stockDown.run(bo.bargain_id, bargainSectionId).changes !== 1) {
          const left = (q.stock.get(bo.bargain_id, bargainSectionId) as { available: number } | undefined)?.available ?? 0;
          return { ok: false, code: 'SOLD_OUT', available: left };
        }
        // Backs "one order per bargain order" (one per buyer and bargain): a second unit would pass 1.
        if (q.unitsUp.run({ userId: input.userId, showId: bo.bargain_id }).changes !== 1) {
          throw new Rollback<OrderBargainOutcome>({ ok: false, code: 'ALREADY_ORDERED', orderId: bo.order_id ?? '' });
        }
        const amount = bo.current_price_cents;
        q.holdInsert.run(input.holdId, bo.bargain_id, input.userId, amount, input.now, input.expiresAt);
        q.lineInsert.run(input.holdId, bo.bargain_id, bargainSectionId);
        try {
          q.orderInsert.run(input.orderId, input.userId, bo.bargain_id, input.holdId, input.idempotencyKey, amount, input.now, input.now, bo.bargain_id);
        } catch (error) {
          if (!isUniqueViolation(error)) throw error;
          const taken = q.orderByKey.get(input.userId, input.idempotencyKey) as { order_id: string } | undefined;
          throw new Rollback<OrderBargainOutcome>({ ok: false, code: 'KEY_TAKEN', orderId: taken?.order_id ?? '' });
        }
        if (q.link.run(input.orderId, input.bargainOrderId).changes !== 1) {
          throw new Rollback<OrderBargainOutcome>({ ok: false, code: 'ALREADY_ORDERED', orderId: bargainOrder(input.bargainOrderId)?.order_id ?? '' });
        }
        const lines = [{ kind: 'UNITS', sectionId: bargainSectionId, quantity: 1 }] as const;
        const hold: Hold = {
          holdId: input.holdId, showId: bo.bargain_id, userId: input.userId, lines, totalPriceCents: amount, status: 'ACTIVE',
          createdAt: input.now, expiresAt: input.expiresAt, extensions: 0,
        };
        const order: Order = {
          orderId: input.orderId, kind: 'BARGAIN', activityId: bo.bargain_id, userId: input.userId, showId: bo.bargain_id, holdId: input.holdId,
          idempotencyKey: input.idempotencyKey, lines, amountCents: amount, status: 'INIT', paymentId: null, createdAt: input.now, updatedAt: input.now,
        };
        const changes = { showId: bo.bargain_id, seats: [], stock: [{ sectionId: bargainSectionId, delta: -1 }] };
        ob.append(input.now, [holdCreated(hold, changes), orderCreated(order)]);
        return { ok: true, order, hold, changes };
      }),

    updateBargain: (input) =>
      gc.write('updateBargain', (): UpdateBargainOutcome => {
        if (bargain(input.bargainId) === undefined) return { ok: false, code: 'BARGAIN_NOT_FOUND' };
        const { details } = input;
        const changed = q.showUpdate.run({
          id: input.bargainId, expectedVersion: input.expectedVersion, title: details.title, description: details.description,
          imageUrl: details.imageUrl, saleEndsAt: details.saleEndsAt,
        }).changes;
        if (changed !== 1) return { ok: false, stale: 'show' };
        q.offline.run(details.offline ? 1 : 0, input.bargainId);
        auditLog.append(input.audit);
        const updated = toBargain(bargain(input.bargainId) as BargainRow);
        // Same unit: other processes' read models take the change through the change feed.
        ob.append(input.now ?? Date.now(), [showChanged(updated.show)]);
        return { ok: true, bargain: updated };
      }),
  };
}
