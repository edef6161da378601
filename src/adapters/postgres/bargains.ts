import type { ActivitySummary, Hold, Order } from '../../domain/index.js';
import { bargainSectionId } from '../../domain/index.js';
import type {
  Bargain, BargainCut, BargainOrder, BargainStore, CutBargainOutcome, OrderBargainOutcome, ShowStore, StartBargainOutcome, UpdateBargainOutcome,
} from '../../ports/engine/index.js';
import { holdCreated, orderCreated, showChanged } from '../shared/outbox-drafts.js';
import { appendAuditEntry } from './change-log.js';
import { unexpected, type PgLanes } from './db.js';
import { appendOutbox } from './outbox.js';
import { toShow, type ShowRow } from './rows.js';
import { insertHold, refuse, takeUnits, takeUserUnits } from './stock.js';

interface BargainRow extends ShowRow {
  goods: string;
  original_price_cents: number;
  floor_price_cents: number;
  cut_min_cents: number;
  cut_max_cents: number;
  min_cuts: number;
  offline: boolean;
  b_created_at: string | number;
}

interface BargainOrderRow {
  bargain_order_id: string;
  bargain_id: string;
  user_id: string;
  current_price_cents: number;
  cuts: number;
  order_id: string | null;
  created_at: string | number;
}

const toBargain = (r: BargainRow): Bargain => ({
  show: toShow(r),
  record: {
    bargainId: r.show_id, goods: r.goods, originalPriceCents: r.original_price_cents, floorPriceCents: r.floor_price_cents,
    cutMinCents: r.cut_min_cents, cutMaxCents: r.cut_max_cents, minCuts: r.min_cuts, offline: r.offline, createdAt: Number(r.b_created_at),
  },
});
const toBargainOrder = (r: BargainOrderRow): BargainOrder => ({
  bargainOrderId: r.bargain_order_id, bargainId: r.bargain_id, userId: r.user_id, currentPriceCents: r.current_price_cents,
  cuts: r.cuts, orderId: r.order_id, createdAt: Number(r.created_at),
});

const bargainSql = `SELECT s.*, b.goods, b.original_price_cents, b.floor_price_cents, b.cut_min_cents, b.cut_max_cents, b.min_cuts, b.offline,
    b.created_at AS b_created_at
  FROM bargains b JOIN shows s ON s.show_id = b.bargain_id WHERE b.bargain_id = $1`;

/** The bargain's state the cut and the order decide on, the bargain order's row locked (FOR UPDATE OF o). */
const lockedSql = `SELECT o.*, b.floor_price_cents AS floor, b.min_cuts, b.offline, s.sale_starts_at, s.sale_ends_at
  FROM bargain_orders o JOIN bargains b ON b.bargain_id = o.bargain_id JOIN shows s ON s.show_id = b.bargain_id
  WHERE o.bargain_order_id = $1 FOR UPDATE OF o`;
interface LockedRow extends BargainOrderRow { floor: number; min_cuts: number; offline: boolean; sale_starts_at: string; sale_ends_at: string }

const closed = (r: { offline: boolean; sale_starts_at: string; sale_ends_at: string }, now: number): 'ACTIVITY_OFFLINE' | 'SALE_NOT_OPEN' | null =>
  r.offline ? 'ACTIVITY_OFFLINE' : now < Number(r.sale_starts_at) || now >= Number(r.sale_ends_at) ? 'SALE_NOT_OPEN' : null;

/**
 * Bargains on PostgreSQL: short READ COMMITTED transactions. A cut locks its bargain order's row,
 * so the cuts of one bargain order queue on it; the clamp is in the UPDATE (greatest(floor, ...)),
 * backed by CHECK bargain_orders_above_floor; one cut per helper is the unique index
 * bargain_cuts_one_per_helper. The order takes a unit of a stock bucket, the buyer's counter
 * (max 1), then links the bargain order only while unlinked.
 */
export function pgBargains(lanes: PgLanes, showStore: ShowStore, origin: string): BargainStore {
  const db = lanes.rush;
  return {
    async createBargain({ show, record, audit }) {
      const result = await db.tx('createBargain', (c) => c.query(
        `INSERT INTO bargains (bargain_id, goods, original_price_cents, floor_price_cents, cut_min_cents, cut_max_cents, min_cuts, offline, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        [record.bargainId, record.goods, record.originalPriceCents, record.floorPriceCents, record.cutMinCents, record.cutMaxCents, record.minCuts, record.offline, record.createdAt]));
      if (!result.ok) unexpected('createBargain', result);
      await showStore.createShow({ show, audit });
    },

    async getBargain(id) {
      const { rows } = await db.query<BargainRow>(bargainSql, [id]);
      return rows[0] === undefined ? null : toBargain(rows[0]);
    },

    async listBargainActivities(limit, now, withHidden) {
      const { rows } = await db.query<{ show_id: string; title: string; image_url: string | null; sale_starts_at: string; sale_ends_at: string; offline: boolean }>(
        `SELECT s.show_id, s.title, s.image_url, s.sale_starts_at, s.sale_ends_at, b.offline
         FROM bargains b JOIN shows s ON s.show_id = b.bargain_id
         WHERE $3::boolean OR (NOT b.offline AND s.sale_ends_at > $2::bigint)
         ORDER BY
           CASE WHEN b.offline OR $2::bigint >= s.sale_ends_at THEN 2 WHEN $2::bigint < s.sale_starts_at THEN 1 ELSE 0 END,
           CASE WHEN b.offline OR $2::bigint >= s.sale_ends_at THEN -s.sale_ends_at WHEN $2::bigint < s.sale_starts_at THEN s.sale_starts_at ELSE s.sale_ends_at END,
           s.show_id COLLATE "C"
         LIMIT $1`, [limit, now, withHidden]);
      return rows.map((r): ActivitySummary => ({
        activityId: r.show_id, kind: 'BARGAIN', title: r.title, imageUrl: r.image_url,
        saleStartsAt: Number(r.sale_starts_at), saleEndsAt: Number(r.sale_ends_at), offline: r.offline,
      }));
    },

    async startBargain(input) {
      const result = await db.tx('startBargain', async (c): Promise<StartBargainOutcome> => {
        const { rows } = await c.query<{ original_price_cents: number; floor_price_cents: number; offline: boolean; sale_starts_at: string; sale_ends_at: string }>(
          `SELECT b.original_price_cents, b.floor_price_cents, b.offline, s.sale_starts_at, s.sale_ends_at
           FROM bargains b JOIN shows s ON s.show_id = b.bargain_id WHERE b.bargain_id = $1`, [input.bargainId]);
        const b = rows[0];
        if (b === undefined) return { ok: false, code: 'BARGAIN_NOT_FOUND' };
        const existing = await c.query<BargainOrderRow>('SELECT * FROM bargain_orders WHERE bargain_id = $1 AND user_id = $2', [input.bargainId, input.userId]);
        if (existing.rows[0] !== undefined) return { ok: true, created: false, bargainOrder: toBargainOrder(existing.rows[0]) };
        const refusal = closed(b, input.now);
        if (refusal !== null) return { ok: false, code: refusal };
        // Two starts at once: the unique index lets one in; the other reads the winner's row.
        const inserted = await c.query<BargainOrderRow>(
          `INSERT INTO bargain_orders (bargain_order_id, bargain_id, user_id, current_price_cents, floor_price_cents, cuts, order_id, created_at)
           VALUES ($1, $2, $3, $4, $5, 0, NULL, $6) ON CONFLICT (bargain_id, user_id) DO NOTHING RETURNING *`,
          [input.bargainOrderId, input.bargainId, input.userId, b.original_price_cents, b.floor_price_cents, input.now]);
        if (inserted.rows[0] !== undefined) return { ok: true, created: true, bargainOrder: toBargainOrder(inserted.rows[0]) };
        const again = await c.query<BargainOrderRow>('SELECT * FROM bargain_orders WHERE bargain_id = $1 AND user_id = $2', [input.bargainId, input.userId]);
        return { ok: true, created: false, bargainOrder: toBargainOrder(again.rows[0] as BargainOrderRow) };
      });
      return result.ok ? result.value : unexpected('startBargain', result);
    },

    async getBargainOrder(id) {
      const { rows } = await db.query<BargainOrderRow>('SELECT * FROM bargain_orders WHERE bargain_order_id = $1', [id]);
      return rows[0] === undefined ? null : toBargainOrder(rows[0]);
    },

    async getBargainOrderOf(bargainId, userId) {
      const { rows } = await db.query<BargainOrderRow>('SELECT * FROM bargain_orders WHERE bargain_id = $1 AND user_id = $2', [bargainId, userId]);
      return rows[0] === undefined ? null : toBargainOrder(rows[0]);
    },

    async listBargainCuts(id, limit) {
      const { rows } = await db.query<{ helper_id: string; username: string; amount_cents: number; cut_at: string }>(
        `SELECT c.helper_id, u.username, c.amount_cents, c.cut_at FROM bargain_cuts c JOIN users u ON u.user_id = c.helper_id
         WHERE c.bargain_order_id = $1 ORDER BY c.cut_id LIMIT $2`, [id, limit]);
      return rows.map((r): BargainCut => ({ helperId: r.helper_id, helperName: r.username, amountCents: r.amount_cents, cutAt: Number(r.cut_at) }));
    },

    async cutBargain(input) {
      const result = await db.tx('cutBargain', async (c): Promise<CutBargainOutcome> => {
        const { rows } = await c.query<LockedRow>(lockedSql, [input.bargainOrderId]);
        const o = rows[0];
        if (o === undefined) return { ok: false, code: 'BARGAIN_ORDER_NOT_FOUND' };
        const refusal = closed(o, input.now);
        if (refusal !== null) return { ok: false, code: refusal };
        if (o.order_id !== null) return { ok: false, code: 'BARGAIN_CLOSED' };
        if (o.user_id === input.helperId) return { ok: false, code: 'CANNOT_CUT_OWN' };
        // The floor clamp, in the statement: never below the floor, and only while above it.
        const after = await c.query<{ current_price_cents: number; cuts: number }>(
          `UPDATE bargain_orders SET current_price_cents = greatest(floor_price_cents, current_price_cents - $2::int), cuts = cuts + 1
           WHERE bargain_order_id = $1 AND order_id IS NULL AND current_price_cents > floor_price_cents
           RETURNING current_price_cents, cuts`, [input.bargainOrderId, input.drawCents]);
        const a = after.rows[0];
        if (a === undefined) return { ok: false, code: 'FLOOR_REACHED' };
        const amountCents = o.current_price_cents - a.current_price_cents;
        await c.query('INSERT INTO bargain_cuts (bargain_order_id, helper_id, amount_cents, cut_at) VALUES ($1, $2, $3, $4)',
          [input.bargainOrderId, input.helperId, amountCents, input.now]);
        return { ok: true, amountCents, currentPriceCents: a.current_price_cents, cuts: a.cuts };
      });
      if (result.ok) return result.value;
      if (result.kind === 'unique' && result.constraint === 'bargain_cuts_one_per_helper') return { ok: false, code: 'ALREADY_CUT' };
      return unexpected('cutBargain', result);
    },

    async orderBargain(input) {
      const result = await lanes.checkout.tx('orderBargain', async (c): Promise<OrderBargainOutcome> => {
        const { rows } = await c.query<LockedRow>(lockedSql, [input.bargainOrderId]);
        const o = rows[0];
        if (o === undefined || o.user_id !== input.userId) return { ok: false, code: 'BARGAIN_ORDER_NOT_FOUND' };
        if (o.order_id !== null) return { ok: false, code: 'ALREADY_ORDERED', orderId: o.order_id };
        const refusal = closed(o, input.now);
        if (refusal !== null) return { ok: false, code: refusal };
        if (!(o.current_price_cents <= o.floor || o.cuts >= o.min_cuts)) return { ok: false, code: 'BARGAIN_NOT_READY' };
        const earlier = await c.query<{ order_id: string }>('SELECT order_id FROM orders WHERE user_id = $1 AND idempotency_key = $2', [input.userId, input.idempotencyKey]);
        if (earlier.rows[0] !== undefined) return { ok: false, code: 'KEY_TAKEN', orderId: earlier.rows[0].order_id };
        // Bucket, then the buyer's counter: the lock order of stock.ts.
        const take = await takeUnits(c, o.bargain_id, bargainSectionId, 1);
        if (!take.ok) return { ok: false, code: 'SOLD_OUT', available: take.available };
        const units = await takeUserUnits(c, input.userId, o.bargain_id, 1, 1);
        if (!units.ok) refuse<OrderBargainOutcome>({ ok: false, code: 'ALREADY_ORDERED', orderId: '' });
        const amount = o.current_price_cents;
        await insertHold(c, { holdId: input.holdId, showId: o.bargain_id, userId: input.userId, totalPriceCents: amount, units: 1, createdAt: input.now, expiresAt: input.expiresAt },
          take.takes.map((t) => ({ sectionId: bargainSectionId, seatId: null, bucket: t.bucket, quantity: t.quantity })));
        const lines = [{ kind: 'UNITS', sectionId: bargainSectionId, quantity: 1 }] as const;
        await c.query(
          `INSERT INTO orders (order_id, user_id, show_id, hold_id, idempotency_key, lines, amount_cents, status, payment_id, created_at, updated_at, kind, activity_id)
           VALUES ($1, $2, $3, $4, $5, $6, $7, 'INIT', NULL, $8, $8, 'BARGAIN', $3)`,
          [input.orderId, input.userId, o.bargain_id, input.holdId, input.idempotencyKey, JSON.stringify(lines), amount, input.now]);
        // One order per bargain order: linked only while unlinked (the row is locked; order_id UNIQUE backs it).
        const linked = await c.query('UPDATE bargain_orders SET order_id = $1 WHERE bargain_order_id = $2 AND order_id IS NULL', [input.orderId, input.bargainOrderId]);
        if (linked.rowCount !== 1) refuse<OrderBargainOutcome>({ ok: false, code: 'ALREADY_ORDERED', orderId: '' });
        const hold: Hold = {
          holdId: input.holdId, showId: o.bargain_id, userId: input.userId, lines, totalPriceCents: amount, status: 'ACTIVE',
          createdAt: input.now, expiresAt: input.expiresAt, extensions: 0,
        };
        const order: Order = {
          orderId: input.orderId, kind: 'BARGAIN', activityId: o.bargain_id, userId: input.userId, showId: o.bargain_id, holdId: input.holdId,
          idempotencyKey: input.idempotencyKey, lines, amountCents: amount, status: 'INIT', paymentId: null, createdAt: input.now, updatedAt: input.now,
        };
        const changes = { showId: o.bargain_id, seats: [], stock: [{ sectionId: bargainSectionId, delta: -1 }] };
        await appendOutbox(c, origin, input.now, [holdCreated(hold, changes), orderCreated(order)]);
        return { ok: true, order, hold, changes };
      });
      if (result.ok) return result.value;
      if (result.kind === 'unique' && result.constraint === 'orders_one_per_user_key') {
        const { rows } = await db.query<{ order_id: string }>('SELECT order_id FROM orders WHERE user_id = $1 AND idempotency_key = $2', [input.userId, input.idempotencyKey]);
        return { ok: false, code: 'KEY_TAKEN', orderId: rows[0]?.order_id ?? '' };
      }
      if (result.kind === 'check' && result.constraint === 'stock_within_capacity') return { ok: false, code: 'SOLD_OUT', available: 0 };
      return unexpected('orderBargain', result);
    },

    async updateBargain(input) {
      const result = await db.tx('updateBargain', async (c): Promise<UpdateBargainOutcome> => {
        const { details } = input;
        const exists = await c.query('SELECT 1 FROM bargains WHERE bargain_id = $1', [input.bargainId]);
        if (exists.rowCount === 0) return { ok: false, code: 'BARGAIN_NOT_FOUND' };
        const updated = await c.query(
          `UPDATE shows SET title = $3, description = $4, image_url = $5, sale_ends_at = $6, starts_at = $6, version = version + 1
           WHERE show_id = $1 AND version = $2`,
          [input.bargainId, input.expectedVersion, details.title, details.description, details.imageUrl, details.saleEndsAt]);
        if (updated.rowCount !== 1) return { ok: false, stale: 'show' };
        await c.query('UPDATE bargains SET offline = $2 WHERE bargain_id = $1', [input.bargainId, details.offline]);
        await appendAuditEntry(c, input.audit);
        const { rows } = await c.query<BargainRow>(bargainSql, [input.bargainId]);
        const bargain = toBargain(rows[0] as BargainRow);
        // In the change's transaction: the other processes' read models take it through the change feed.
        await appendOutbox(c, origin, input.now ?? Date.now(), [showChanged(bargain.show)]);
        return { ok: true, bargain };
      });
      return result.ok ? result.value : unexpected('updateBargain', result);
    },
  };
}
