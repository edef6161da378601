import type { OutboxWriter } from './outbox.js';
import { holdCreated, orderCreated, showChanged } from '../shared/outbox-drafts.js';
import type { Database as Db } from 'better-sqlite3';
import type { ActivitySummary, FlashSaleRecord, Hold, Order } from '../../domain/index.js';
import type { FlashSale, FlashSaleStore, ShowStore, TakeFlashSaleOutcome, UpdateCampaignOutcome } from '../../ports/engine/index.js';
import { sqliteChangeLogWriter } from './change-log.js';
import { Rollback, type GroupCommit } from './group-commit.js';
import * as records from './records.js';
import { isUniqueViolation } from './shared.js';
import type { ShowCache } from './shows.js';

interface SaleRow extends records.ShowRow {
  max_per_user: number;
  offline: 0 | 1;
  items: string;
  fs_created_at: number;
}

const toRecord = (r: SaleRow): FlashSaleRecord => ({
  flashSaleId: r.show_id, maxPerUser: r.max_per_user, offline: r.offline === 1, createdAt: r.fs_created_at,
  items: JSON.parse(r.items) as FlashSaleRecord['items'],
});
const toSale = (r: SaleRow): FlashSale => ({ show: records.toShow(r), record: toRecord(r) });

/**
 * Flash sales on SQLite. The buyer's step is one unit of the group commit, so the cap, the stock
 * and the order are decided and written under one write lock; the conditional statements and
 * the schema's CHECKs (stock within 0..capacity, units >= 0, the order key's unique index) are
 * the guards, each refusal rolling back what came before it.
 */
export function sqliteFlashSales(db: Db, gc: GroupCommit, shows: ShowCache, showStore: ShowStore, ob: OutboxWriter): FlashSaleStore {
  const auditLog = sqliteChangeLogWriter(db);
  const q = {
    insert: db.prepare('INSERT INTO flash_sales (flash_sale_id, max_per_user, offline, items, created_at) VALUES (?, ?, ?, ?, ?)'),
    sale: db.prepare(`SELECT s.*, f.max_per_user, f.offline, f.items, f.created_at AS fs_created_at
      FROM flash_sales f JOIN shows s ON s.show_id = f.flash_sale_id AND s.ready = 1 WHERE f.flash_sale_id = ?`),
    // The catalog's order (domain catalogKey), decided by the query so the merge of sources keeps it.
    list: db.prepare(`SELECT s.show_id, s.title, s.image_url, s.sale_starts_at, s.sale_ends_at, f.offline
      FROM flash_sales f JOIN shows s ON s.show_id = f.flash_sale_id AND s.ready = 1
      WHERE @hidden = 1 OR (f.offline = 0 AND s.sale_ends_at > @now)
      ORDER BY
        CASE WHEN f.offline = 1 OR @now >= s.sale_ends_at THEN 2 WHEN @now < s.sale_starts_at THEN 1 ELSE 0 END,
        CASE WHEN f.offline = 1 OR @now >= s.sale_ends_at THEN -s.sale_ends_at WHEN @now < s.sale_starts_at THEN s.sale_starts_at ELSE s.sale_ends_at END,
        s.show_id
      LIMIT @limit`),
    orderByKey: db.prepare('SELECT order_id FROM orders WHERE user_id = ? AND idempotency_key = ?'),
    // The per-buyer cap of the sale: one conditional upsert, as for a show's holds (the same table,
    // so a lapse gives the units back through the engine's own lapseHold).
    unitsUp: db.prepare(`INSERT INTO user_show_units (user_id, show_id, units) SELECT @userId, @saleId, @n WHERE @n <= @max
      ON CONFLICT (user_id, show_id) DO UPDATE SET units = units + excluded.units WHERE units + excluded.units <= @max`),
    units: db.prepare('SELECT units FROM user_show_units WHERE user_id = ? AND show_id = ?'),
    // The stock check: a conditional decrement; CHECK (available BETWEEN 0 AND capacity) backs it.
    stockDown: db.prepare('UPDATE sections SET available = available - ?, stock_version = stock_version + 1 WHERE show_id = ? AND section_id = ? AND available >= ? RETURNING available, stock_version'),
    stock: db.prepare('SELECT available FROM sections WHERE show_id = ? AND section_id = ?'),
    holdInsert: db.prepare(`INSERT INTO holds (hold_id, show_id, user_id, total_price_cents, units, status, created_at, expires_at, extensions)
      VALUES (?, ?, ?, ?, ?, 'ACTIVE', ?, ?, 0)`),
    lineInsert: db.prepare(`INSERT INTO hold_lines (hold_id, line_no, show_id, section_id, seat_id, quantity, claim) VALUES (?, 0, ?, ?, NULL, ?, 1)`),
    orderInsert: db.prepare(`INSERT INTO orders (order_id, user_id, show_id, hold_id, idempotency_key, amount_cents, status, payment_id, created_at, updated_at, kind, activity_id)
      VALUES (?, ?, ?, ?, ?, ?, 'INIT', NULL, ?, ?, 'FLASH_SALE', ?)`),
    showUpdate: db.prepare(`UPDATE shows SET title = @title, description = @description, image_url = @imageUrl, sale_ends_at = @saleEndsAt,
        starts_at = @saleEndsAt, version = version + 1
      WHERE show_id = @id AND ready = 1 AND version = @expectedVersion`),
    offline: db.prepare('UPDATE flash_sales SET offline = ? WHERE flash_sale_id = ?'),
    participated: db.prepare('SELECT 1 FROM orders WHERE user_id = @userId AND (activity_id = @activityId OR (activity_id IS NULL AND show_id = @activityId)) LIMIT 1'),
  };
  const sale = (id: string): SaleRow | undefined => q.sale.get(id) as SaleRow | undefined;

  return {
    async createFlashSale({ show, record, audit }) {
      // The record first: alone (a crash before the show is published) it joins to nothing.
      await gc.write('createFlashSale', () => {
        q.insert.run(record.flashSaleId, record.maxPerUser, record.offline ? 1 : 0, JSON.stringify(record.items), record.createdAt);
      });
      await showStore.createShow({ show, audit });
    },

    getFlashSale: async (id) => {
      const row = sale(id);
      return row === undefined ? null : toSale(row);
    },

    listFlashSaleActivities: async (limit, now, withHidden) =>
      (q.list.all({ limit, now, hidden: withHidden ? 1 : 0 }) as { show_id: string; title: string; image_url: string | null; sale_starts_at: number; sale_ends_at: number; offline: 0 | 1 }[])
        .map((r): ActivitySummary => ({
          activityId: r.show_id, kind: 'FLASH_SALE', title: r.title, imageUrl: r.image_url, saleStartsAt: r.sale_starts_at, saleEndsAt: r.sale_ends_at, offline: r.offline === 1,
        })),

    takeFlashSaleUnits: (input) =>
      gc.write('takeFlashSaleUnits', (): TakeFlashSaleOutcome => {
        const row = sale(input.flashSaleId);
        if (row === undefined) return { ok: false, code: 'FLASH_SALE_NOT_FOUND' };
        const section = shows.get(input.flashSaleId)?.sections.get(input.itemId);
        if (section === undefined) return { ok: false, code: 'ITEM_NOT_FOUND' };
        if (row.offline === 1) return { ok: false, code: 'ACTIVITY_OFFLINE' };
        if (input.now < row.sale_starts_at || input.now >= row.sale_ends_at) return { ok: false, code: 'SALE_NOT_OPEN' };
        const earlier = q.orderByKey.get(input.userId, input.idempotencyKey) as { order_id: string } | undefined;
        if (earlier !== undefined) return { ok: false, code: 'KEY_TAKEN', orderId: earlier.order_id };
        // The per-user cap first (the port's order), then the stock; a refusal of the second rolls back the first.
        if (q.unitsUp.run({ userId: input.userId, saleId: input.flashSaleId, n: input.quantity, max: row.max_per_user }).changes !== 1) {
          const claimed = (q.units.get(input.userId, input.flashSaleId) as { units: number } | undefined)?.units ?? 0;
          return { ok: false, code: 'PURCHASE_LIMIT_REACHED', limit: row.max_per_user, claimed };
        }
        const after = q.stockDown.get(input.quantity, input.flashSaleId, input.itemId, input.quantity) as records.StockRow | undefined;
        if (after === undefined) {
          const left = (q.stock.get(input.flashSaleId, input.itemId) as { available: number }).available;
          throw new Rollback<TakeFlashSaleOutcome>({ ok: false, code: 'SOLD_OUT', available: left });
        }
        const amount = input.quantity * section.priceCents;
        q.holdInsert.run(input.holdId, input.flashSaleId, input.userId, amount, input.quantity, input.now, input.expiresAt);
        q.lineInsert.run(input.holdId, input.flashSaleId, input.itemId, input.quantity);
        try {
          q.orderInsert.run(input.orderId, input.userId, input.flashSaleId, input.holdId, input.idempotencyKey, amount, input.now, input.now, input.flashSaleId);
        } catch (error) {
          if (!isUniqueViolation(error)) throw error;
          const taken = q.orderByKey.get(input.userId, input.idempotencyKey) as { order_id: string } | undefined;
          throw new Rollback<TakeFlashSaleOutcome>({ ok: false, code: 'KEY_TAKEN', orderId: taken?.order_id ?? '' });
        }
        const lines = [{ kind: 'UNITS', sectionId: input.itemId, quantity: input.quantity }] as const;
        const hold: Hold = {
          holdId: input.holdId, showId: input.flashSaleId, userId: input.userId, lines, totalPriceCents: amount, status: 'ACTIVE',
          createdAt: input.now, expiresAt: input.expiresAt, extensions: 0,
        };
        const order: Order = {
          orderId: input.orderId, kind: 'FLASH_SALE', activityId: input.flashSaleId, userId: input.userId, showId: input.flashSaleId, holdId: input.holdId,
          idempotencyKey: input.idempotencyKey, lines, amountCents: amount, status: 'INIT', paymentId: null, createdAt: input.now, updatedAt: input.now,
        };
        const changes = { showId: input.flashSaleId, seats: [], stock: [{ sectionId: input.itemId, delta: -input.quantity, buckets: [records.toBucket(after)] }] };
        ob.append(input.now, [holdCreated(hold, changes), orderCreated(order)]);
        return { ok: true, order, hold, changes };
      }),

    updateCampaign: (input) =>
      gc.write('updateCampaign', (): UpdateCampaignOutcome => {
        if (sale(input.activityId) === undefined) return { ok: false, code: 'FLASH_SALE_NOT_FOUND' };
        const { details } = input;
        const changed = q.showUpdate.run({
          id: input.activityId, expectedVersion: input.expectedVersion, title: details.title, description: details.description,
          imageUrl: details.imageUrl, saleEndsAt: details.saleEndsAt,
        }).changes;
        if (changed !== 1) return { ok: false, stale: 'show' };
        q.offline.run(details.offline ? 1 : 0, input.activityId);
        auditLog.append(input.audit);
        const updated = toSale(sale(input.activityId) as SaleRow);
        // Same unit: other processes' read models take the new window through the change feed.
        ob.append(input.now ?? Date.now(), [showChanged(updated.show)]);
        return { ok: true, sale: updated };
      }),

    hasOrderOfActivity: async (userId, activityId) => q.participated.get({ userId, activityId }) !== undefined,
  };
}
