import { appendAuditEntry } from './change-log.js';
import type pg from 'pg';
import type { Order } from '../../domain/index.js';
import type { DisableDiscountOutcome, DiscountStore } from '../../ports/engine/index.js';
import { toDiscount, type DiscountRow } from '../shared/discount-rows.js';
import { unexpected, type PgDb } from './db.js';

export type TakeUseRefusal = 'DISCOUNT_USED_UP' | 'DISCOUNT_PER_USER_LIMIT' | 'DISCOUNT_UNAVAILABLE';

/**
 * Takes one use of the order's discount code, inside openOrder's transaction (which rolls back on
 * a refusal). Two guards, each one conditional statement on one row, so READ COMMITTED re-checks
 * them on the newest version after waiting for its lock: the code's counter below max_uses (with
 * the code ACTIVE, valid and for the show), then the buyer's counter below per_user_max.
 */
export async function takeDiscountUse(c: pg.ClientBase, order: Order): Promise<TakeUseRefusal | null> {
  if (order.discount === undefined) return null;
  const code = order.discount.code;
  const taken = await c.query(
    `UPDATE discount_codes SET uses = uses + 1
     WHERE code = $1 AND status = 'ACTIVE' AND valid_from <= $2 AND valid_until > $2 AND uses < max_uses AND (show_ids IS NULL OR $3 = ANY(show_ids))`,
    [code, order.createdAt, order.showId]);
  if (taken.rowCount !== 1) {
    const { rows } = await c.query('SELECT 1 FROM discount_codes WHERE code = $1 AND uses >= max_uses', [code]);
    return rows.length > 0 ? 'DISCOUNT_USED_UP' : 'DISCOUNT_UNAVAILABLE';
  }
  const mine = await c.query(
    `INSERT INTO discount_user_uses (code, user_id, uses) VALUES ($1, $2, 1)
     ON CONFLICT (code, user_id) DO UPDATE SET uses = discount_user_uses.uses + 1
     WHERE discount_user_uses.uses < (SELECT per_user_max FROM discount_codes WHERE code = $1)`, [code, order.userId]);
  if (mine.rowCount !== 1) return 'DISCOUNT_PER_USER_LIMIT';
  await c.query('INSERT INTO discount_redemptions (order_id, code, user_id, created_at) VALUES ($1, $2, $3, $4)', [order.orderId, code, order.userId, order.createdAt]);
  return null;
}

export function pgDiscounts(db: PgDb): DiscountStore {
  return {
    async createDiscount(d, audit) {
      const result = await db.tx('createDiscount', async (c) => {
        await c.query(
        `INSERT INTO discount_codes (code, percent_off, amount_off_cents, show_ids, valid_from, valid_until, max_uses, per_user_max, uses, status, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 0, $9, $10)`,
        [d.code, d.off.kind === 'PERCENT' ? d.off.percent : null, d.off.kind === 'AMOUNT' ? d.off.cents : null, d.showIds, d.validFrom, d.validUntil, d.maxUses, d.perUserMax, d.status, d.createdAt]);
        await appendAuditEntry(c, audit);
      });
      if (result.ok) return { ok: true, discount: d };
      if (result.kind === 'unique') return { ok: false, code: 'CODE_TAKEN' };
      return unexpected('createDiscount', result);
    },
    async getDiscount(code) {
      const { rows } = await db.query<DiscountRow>('SELECT * FROM discount_codes WHERE code = $1', [code]);
      return rows[0] === undefined ? null : toDiscount(rows[0]);
    },
    async listDiscounts(page) {
      const { rows } = await db.query<DiscountRow>('SELECT * FROM discount_codes ORDER BY created_at DESC, code COLLATE "C" LIMIT $1 OFFSET $2', [page.limit, page.offset]);
      return rows.map(toDiscount);
    },
    async disableDiscount(input, audit) {
      const result = await db.tx('disableDiscount', async (c): Promise<DisableDiscountOutcome> => {
        const { rows } = await c.query<DiscountRow>('UPDATE discount_codes SET status = $1 WHERE code = $2 AND status = $3 RETURNING *', [input.to, input.code, input.from]);
        if (rows[0] === undefined) return { ok: false, stale: 'discount' };
        await appendAuditEntry(c, audit);
        return { ok: true, discount: toDiscount(rows[0]) };
      });
      return result.ok ? result.value : unexpected('disableDiscount', result);
    },
    // One statement: the redemption marked returned (once) and both counters lowered with it.
    async returnDiscountUse(input) {
      const { rows } = await db.query<{ n: number }>(
        `WITH r AS (UPDATE discount_redemptions SET returned_at = $2 WHERE order_id = $1 AND returned_at IS NULL RETURNING code, user_id),
         c AS (UPDATE discount_codes d SET uses = d.uses - 1 FROM r WHERE d.code = r.code AND d.uses > 0),
         u AS (UPDATE discount_user_uses m SET uses = m.uses - 1 FROM r WHERE m.code = r.code AND m.user_id = r.user_id AND m.uses > 0)
         SELECT count(*)::int AS n FROM r`, [input.orderId, input.now]);
      return { ok: true, returned: (rows[0]?.n ?? 0) > 0 };
    },
    async retakeDiscountUse(input) {
      const { rows } = await db.query<{ n: number }>(
        `WITH r AS (UPDATE discount_redemptions SET returned_at = NULL WHERE order_id = $1 AND returned_at IS NOT NULL RETURNING code, user_id),
         c AS (UPDATE discount_codes d SET uses = d.uses + 1 FROM r WHERE d.code = r.code),
         u AS (INSERT INTO discount_user_uses AS m (code, user_id, uses) SELECT code, user_id, 1 FROM r
               ON CONFLICT (code, user_id) DO UPDATE SET uses = m.uses + 1)
         SELECT count(*)::int AS n FROM r`, [input.orderId]);
      return { ok: true, returned: (rows[0]?.n ?? 0) > 0 };
    },
  };
}
