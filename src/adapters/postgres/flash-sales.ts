import { appendOutbox } from './outbox.js';
import { holdCreated, orderCreated, showChanged } from '../shared/outbox-drafts.js';
import type { ActivitySummary, FlashSaleRecord, Hold, Order } from '../../domain/index.js';
import type { BucketState, FlashSale, FlashSaleStore, ShowStore, TakeFlashSaleOutcome, UpdateCampaignOutcome } from '../../ports/engine/index.js';
import { appendAuditEntry } from './change-log.js';
import { unexpected, type PgLanes } from './db.js';
import { flashOrderStatement, type FlashStatementResult } from './flash-statements.js';
import { toShow, type ShowRow } from './rows.js';
import { insertHold, refuse, takeUnits, takeUserUnits } from './stock.js';

interface SaleRow extends ShowRow {
  max_per_user: number;
  offline: boolean;
  items: FlashSaleRecord['items'];
  fs_created_at: string | number;
}

const toSale = (r: SaleRow): FlashSale => ({
  show: toShow(r),
  record: { flashSaleId: r.show_id, maxPerUser: r.max_per_user, offline: r.offline, items: r.items, createdAt: Number(r.fs_created_at) },
});

const saleSql = `SELECT s.*, f.max_per_user, f.offline, f.items, f.created_at AS fs_created_at
  FROM flash_sales f JOIN shows s ON s.show_id = f.flash_sale_id WHERE f.flash_sale_id = $1`;

/**
 * Flash sales on PostgreSQL. The buyer's step is one READ COMMITTED transaction of conditional
 * writes in the lock order of stock.ts (stock buckets, then the buyer's counter), then the hold
 * and the order: the bucket decrement (available >= n, CHECK 0..capacity), the counter's
 * conditional upsert (units + n <= max) and the unique index (user_id, idempotency_key) are the
 * guards; any refusal rolls the whole step back.
 */
export function pgFlashSales(lanes: PgLanes, showStore: ShowStore, origin: string): FlashSaleStore {
  const db = lanes.rush;
  return {
    async createFlashSale({ show, record, audit }) {
      // The record first: alone (a failure before the show commits) it joins to nothing.
      const result = await db.tx('createFlashSale', (c) => c.query(
        'INSERT INTO flash_sales (flash_sale_id, max_per_user, offline, items, created_at) VALUES ($1, $2, $3, $4, $5)',
        [record.flashSaleId, record.maxPerUser, record.offline, JSON.stringify(record.items), record.createdAt]));
      if (!result.ok) unexpected('createFlashSale', result);
      await showStore.createShow({ show, audit });
    },

    async getFlashSale(id) {
      const { rows } = await db.query<SaleRow>(saleSql, [id]);
      return rows[0] === undefined ? null : toSale(rows[0]);
    },

    async listFlashSaleActivities(limit, now, withHidden) {
      const { rows } = await db.query<{ show_id: string; title: string; image_url: string | null; sale_starts_at: string; sale_ends_at: string; offline: boolean }>(
        `SELECT s.show_id, s.title, s.image_url, s.sale_starts_at, s.sale_ends_at, f.offline
         FROM flash_sales f JOIN shows s ON s.show_id = f.flash_sale_id
         WHERE $3::boolean OR (NOT f.offline AND s.sale_ends_at > $2::bigint)
         ORDER BY
           CASE WHEN f.offline OR $2::bigint >= s.sale_ends_at THEN 2 WHEN $2::bigint < s.sale_starts_at THEN 1 ELSE 0 END,
           CASE WHEN f.offline OR $2::bigint >= s.sale_ends_at THEN -s.sale_ends_at WHEN $2::bigint < s.sale_starts_at THEN s.sale_starts_at ELSE s.sale_ends_at END,
           s.show_id COLLATE "C"
         LIMIT $1`, [limit, now, withHidden]);
      return rows.map((r): ActivitySummary => ({
        activityId: r.show_id, kind: 'FLASH_SALE', title: r.title, imageUrl: r.image_url,
        saleStartsAt: Number(r.sale_starts_at), saleEndsAt: Number(r.sale_ends_at), offline: r.offline,
      }));
    },

    async takeFlashSaleUnits(input) {
      const success = (amount: number, buckets: readonly BucketState[]): TakeFlashSaleOutcome => {
        const lines = [{ kind: 'UNITS', sectionId: input.itemId, quantity: input.quantity }] as const;
        return {
          ok: true,
          order: {
            orderId: input.orderId, kind: 'FLASH_SALE', activityId: input.flashSaleId, userId: input.userId, showId: input.flashSaleId, holdId: input.holdId,
            idempotencyKey: input.idempotencyKey, lines, amountCents: amount, status: 'INIT', paymentId: null, createdAt: input.now, updatedAt: input.now,
          },
          hold: {
            holdId: input.holdId, showId: input.flashSaleId, userId: input.userId, lines, totalPriceCents: amount, status: 'ACTIVE',
            createdAt: input.now, expiresAt: input.expiresAt, extensions: 0,
          },
          changes: { showId: input.flashSaleId, seats: [], stock: [{ sectionId: input.itemId, delta: -input.quantity, buckets }] },
        };
      };
      // The common case in one statement; anything it cannot settle goes to the transaction below.
      // With its outbox rows in the same transaction (hold.created, order.created) when it took units.
      const fast = await db.tx('takeFlashSaleUnits', async (c) => {
        const r = await flashOrderStatement(c, input);
        if (r.order_id !== null) {
          const taken = success(r.total ?? 0, bucketOf(r));
          if (taken.ok) await appendOutbox(c, origin, input.now, [holdCreated(taken.hold, taken.changes), orderCreated(taken.order)]);
        }
        return r;
      });
      if (fast.ok) {
        const r = fast.value;
        if (r.order_id !== null) return success(r.total ?? 0, bucketOf(r));
        if (r.open && r.picked && r.units === null) {
          const { rows } = await db.query<{ units: number; max_per_user: number }>(
            `SELECT coalesce((SELECT units FROM user_show_units WHERE user_id = $1 AND show_id = $2), 0) AS units,
               (SELECT max_per_user FROM flash_sales WHERE flash_sale_id = $2) AS max_per_user`, [input.userId, input.flashSaleId]);
          return { ok: false, code: 'PURCHASE_LIMIT_REACHED', limit: rows[0]?.max_per_user ?? 0, claimed: rows[0]?.units ?? 0 };
        }
      } else if (!(fast.kind === 'unique' && fast.constraint === 'orders_one_per_user_key')) {
        return unexpected('takeFlashSaleUnits', fast);
      }
      const result = await db.tx('takeFlashSaleUnits', async (c): Promise<TakeFlashSaleOutcome> => {
        const { rows } = await c.query<{ max_per_user: number; offline: boolean; sale_starts_at: string; sale_ends_at: string; price_cents: number | null }>(
          `SELECT f.max_per_user, f.offline, s.sale_starts_at, s.sale_ends_at,
             (SELECT price_cents FROM sections WHERE show_id = f.flash_sale_id AND section_id = $2) AS price_cents
           FROM flash_sales f JOIN shows s ON s.show_id = f.flash_sale_id WHERE f.flash_sale_id = $1`, [input.flashSaleId, input.itemId]);
        const sale = rows[0];
        if (sale === undefined) return { ok: false, code: 'FLASH_SALE_NOT_FOUND' };
        if (sale.price_cents === null) return { ok: false, code: 'ITEM_NOT_FOUND' };
        if (sale.offline) return { ok: false, code: 'ACTIVITY_OFFLINE' };
        if (input.now < Number(sale.sale_starts_at) || input.now >= Number(sale.sale_ends_at)) return { ok: false, code: 'SALE_NOT_OPEN' };
        const earlier = await c.query<{ order_id: string }>('SELECT order_id FROM orders WHERE user_id = $1 AND idempotency_key = $2', [input.userId, input.idempotencyKey]);
        if (earlier.rows[0] !== undefined) return { ok: false, code: 'KEY_TAKEN', orderId: earlier.rows[0].order_id };
        // Buckets, then the buyer's counter (the lock order of stock.ts); refusals in the port's order.
        const take = await takeUnits(c, input.flashSaleId, input.itemId, input.quantity);
        const units = await takeUserUnits(c, input.userId, input.flashSaleId, input.quantity, sale.max_per_user);
        if (!units.ok) refuse<TakeFlashSaleOutcome>({ ok: false, code: 'PURCHASE_LIMIT_REACHED', limit: sale.max_per_user, claimed: units.claimed });
        if (!take.ok) refuse<TakeFlashSaleOutcome>({ ok: false, code: 'SOLD_OUT', available: take.available });
        const amount = input.quantity * sale.price_cents;
        await insertHold(c, { holdId: input.holdId, showId: input.flashSaleId, userId: input.userId, totalPriceCents: amount, units: input.quantity, createdAt: input.now, expiresAt: input.expiresAt },
          take.takes.map((t) => ({ sectionId: input.itemId, seatId: null, bucket: t.bucket, quantity: t.quantity })));
        const lines = [{ kind: 'UNITS', sectionId: input.itemId, quantity: input.quantity }] as const;
        await c.query(
          `INSERT INTO orders (order_id, user_id, show_id, hold_id, idempotency_key, lines, amount_cents, status, payment_id, created_at, updated_at, kind, activity_id)
           VALUES ($1, $2, $3, $4, $5, $6, $7, 'INIT', NULL, $8, $8, 'FLASH_SALE', $3)`,
          [input.orderId, input.userId, input.flashSaleId, input.holdId, input.idempotencyKey, JSON.stringify(lines), amount, input.now]);
        const hold: Hold = {
          holdId: input.holdId, showId: input.flashSaleId, userId: input.userId, lines, totalPriceCents: amount, status: 'ACTIVE',
          createdAt: input.now, expiresAt: input.expiresAt, extensions: 0,
        };
        const order: Order = {
          orderId: input.orderId, kind: 'FLASH_SALE', activityId: input.flashSaleId, userId: input.userId, showId: input.flashSaleId, holdId: input.holdId,
          idempotencyKey: input.idempotencyKey, lines, amountCents: amount, status: 'INIT', paymentId: null, createdAt: input.now, updatedAt: input.now,
        };
        const changes = { showId: input.flashSaleId, seats: [], stock: [{ sectionId: input.itemId, delta: -input.quantity, buckets: take.buckets }] };
        await appendOutbox(c, origin, input.now, [holdCreated(hold, changes), orderCreated(order)]);
        return { ok: true, order, hold, changes };
      });
      if (result.ok) return result.value;
      if (result.kind === 'unique' && result.constraint === 'orders_one_per_user_key') {
        const { rows } = await db.query<{ order_id: string }>('SELECT order_id FROM orders WHERE user_id = $1 AND idempotency_key = $2', [input.userId, input.idempotencyKey]);
        return { ok: false, code: 'KEY_TAKEN', orderId: rows[0]?.order_id ?? '' };
      }
      if (result.kind === 'check' && result.constraint === 'stock_within_capacity') return { ok: false, code: 'SOLD_OUT', available: 0 };
      return unexpected('takeFlashSaleUnits', result);
    },

    async updateCampaign(input) {
      const result = await db.tx('updateCampaign', async (c): Promise<UpdateCampaignOutcome> => {
        const { details } = input;
        const exists = await c.query('SELECT 1 FROM flash_sales WHERE flash_sale_id = $1', [input.activityId]);
        if (exists.rowCount === 0) return { ok: false, code: 'FLASH_SALE_NOT_FOUND' };
        const updated = await c.query(
          `UPDATE shows SET title = $3, description = $4, image_url = $5, sale_ends_at = $6, starts_at = $6, version = version + 1
           WHERE show_id = $1 AND version = $2`,
          [input.activityId, input.expectedVersion, details.title, details.description, details.imageUrl, details.saleEndsAt]);
        if (updated.rowCount !== 1) return { ok: false, stale: 'show' };
        await c.query('UPDATE flash_sales SET offline = $2 WHERE flash_sale_id = $1', [input.activityId, details.offline]);
        await appendAuditEntry(c, input.audit);
        const { rows } = await c.query<SaleRow>(saleSql, [input.activityId]);
        const sale = toSale(rows[0] as SaleRow);
        // In the change's transaction: the other processes' read models (and the buyer gate that
        // reads them) take the new window through the change feed.
        await appendOutbox(c, origin, input.now ?? Date.now(), [showChanged(sale.show)]);
        return { ok: true, sale };
      });
      return result.ok ? result.value : unexpected('updateCampaign', result);
    },

    async hasOrderOfActivity(userId, activityId) {
      const { rowCount } = await lanes.checkout.query('SELECT 1 FROM orders WHERE user_id = $1 AND (activity_id = $2 OR (activity_id IS NULL AND show_id = $2)) LIMIT 1', [userId, activityId]);
      return (rowCount ?? 0) > 0;
    },
  };
}

/** The bucket the one-statement order took from, as stored after the take. */
function bucketOf(r: FlashStatementResult): BucketState[] {
  return r.bucket === null ? [] : [{ bucket: r.bucket, available: r.bucket_available ?? 0, version: r.bucket_version ?? 0 }];
}
