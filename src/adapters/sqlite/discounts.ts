import type { Database as Db } from 'better-sqlite3';
import type { DiscountCode, Order } from '../../domain/index.js';
import type { DiscountStore } from '../../ports/engine/index.js';
import { toDiscount, type DiscountRow } from '../shared/discount-rows.js';
import { sqliteChangeLogWriter } from './change-log.js';
import type { GroupCommit } from './group-commit.js';
import { isUniqueViolation } from './shared.js';

export type TakeUseRefusal = 'DISCOUNT_USED_UP' | 'DISCOUNT_PER_USER_LIMIT' | 'DISCOUNT_UNAVAILABLE';

/**
 * Takes one use of the order's discount code; runs inside openOrder's unit (one transaction), which
 * rolls back on a refusal. Two guards, each one conditional statement: the code's counter below
 * max_uses (with the code ACTIVE, valid and for the show), and the buyer's counter below per_user_max.
 */
export function discountUseTaker(db: Db): (order: Order) => TakeUseRefusal | null {
  const q = {
    take: db.prepare(`UPDATE discount_codes SET uses = uses + 1
      WHERE code = @code AND status = 'ACTIVE' AND valid_from <= @now AND valid_until > @now AND uses < max_uses
        AND (show_ids IS NULL OR EXISTS (SELECT 1 FROM json_each(discount_codes.show_ids) WHERE value = @showId))`),
    usedUp: db.prepare('SELECT 1 FROM discount_codes WHERE code = ? AND uses >= max_uses'),
    takeMine: db.prepare(`INSERT INTO discount_user_uses (code, user_id, uses) SELECT @code, @userId, 1 WHERE true
      ON CONFLICT (code, user_id) DO UPDATE SET uses = uses + 1
      WHERE discount_user_uses.uses < (SELECT per_user_max FROM discount_codes WHERE code = excluded.code)`),
    redeem: db.prepare('INSERT INTO discount_redemptions (order_id, code, user_id, created_at) VALUES (?, ?, ?, ?)'),
  };
  return (order) => {
    if (order.discount === undefined) return null;
    const params = { code: order.discount.code, now: order.createdAt, showId: order.showId, userId: order.userId };
    if (q.take.run(params).changes !== 1) return q.usedUp.get(params.code) === undefined ? 'DISCOUNT_UNAVAILABLE' : 'DISCOUNT_USED_UP';
    if (q.takeMine.run(params).changes !== 1) return 'DISCOUNT_PER_USER_LIMIT';
    q.redeem.run(order.orderId, params.code, order.userId, order.createdAt);
    return null;
  };
}

export function sqliteDiscounts(db: Db, gc: GroupCommit): DiscountStore {
  const auditLog = sqliteChangeLogWriter(db);
  const q = {
    insert: db.prepare(`INSERT INTO discount_codes (code, percent_off, amount_off_cents, show_ids, valid_from, valid_until, max_uses, per_user_max, uses, status, created_at)
      VALUES (@code, @percentOff, @amountOffCents, @showIds, @validFrom, @validUntil, @maxUses, @perUserMax, 0, @status, @createdAt)`),
    get: db.prepare('SELECT * FROM discount_codes WHERE code = ?'),
    list: db.prepare('SELECT * FROM discount_codes ORDER BY created_at DESC, code LIMIT ? OFFSET ?'),
    disable: db.prepare('UPDATE discount_codes SET status = ? WHERE code = ? AND status = ? RETURNING *'),
    returnUse: db.prepare('UPDATE discount_redemptions SET returned_at = ? WHERE order_id = ? AND returned_at IS NULL RETURNING code, user_id'),
    lowerCode: db.prepare('UPDATE discount_codes SET uses = uses - 1 WHERE code = ? AND uses > 0'),
    lowerMine: db.prepare('UPDATE discount_user_uses SET uses = uses - 1 WHERE code = ? AND user_id = ? AND uses > 0'),
    retakeUse: db.prepare('UPDATE discount_redemptions SET returned_at = NULL WHERE order_id = ? AND returned_at IS NOT NULL RETURNING code, user_id'),
    raiseCode: db.prepare('UPDATE discount_codes SET uses = uses + 1 WHERE code = ?'),
    raiseMine: db.prepare(`INSERT INTO discount_user_uses (code, user_id, uses) VALUES (?, ?, 1)
      ON CONFLICT (code, user_id) DO UPDATE SET uses = uses + 1`),
  };
  const row = (d: DiscountCode) => ({
    code: d.code, percentOff: d.off.kind === 'PERCENT' ? d.off.percent : null, amountOffCents: d.off.kind === 'AMOUNT' ? d.off.cents : null,
    showIds: d.showIds === null ? null : JSON.stringify(d.showIds), validFrom: d.validFrom, validUntil: d.validUntil,
    maxUses: d.maxUses, perUserMax: d.perUserMax, status: d.status, createdAt: d.createdAt,
  });
  return {
    createDiscount: (discount, audit) => gc.write('createDiscount', () => {
      try {
        q.insert.run(row(discount));
        auditLog.append(audit);
        return { ok: true, discount } as const;
      } catch (error) {
        if (isUniqueViolation(error)) return { ok: false, code: 'CODE_TAKEN' } as const;
        throw error;
      }
    }),
    getDiscount: async (code) => {
      const found = q.get.get(code) as DiscountRow | undefined;
      return found === undefined ? null : toDiscount(found);
    },
    listDiscounts: async (page) => (q.list.all(page.limit, page.offset) as DiscountRow[]).map(toDiscount),
    disableDiscount: (input, audit) => gc.write('disableDiscount', () => {
      const changed = q.disable.get(input.to, input.code, input.from) as DiscountRow | undefined;
      if (changed === undefined) return { ok: false, stale: 'discount' } as const;
      auditLog.append(audit);
      return { ok: true, discount: toDiscount(changed) } as const;
    }),
    returnDiscountUse: (input) => gc.write('returnDiscountUse', () => {
      const redemption = q.returnUse.get(input.now, input.orderId) as { code: string; user_id: string } | undefined;
      if (redemption === undefined) return { ok: true, returned: false } as const;
      q.lowerCode.run(redemption.code);
      q.lowerMine.run(redemption.code, redemption.user_id);
      return { ok: true, returned: true } as const;
    }),
    retakeDiscountUse: (input) => gc.write('retakeDiscountUse', () => {
      const redemption = q.retakeUse.get(input.orderId) as { code: string; user_id: string } | undefined;
      if (redemption === undefined) return { ok: true, returned: false } as const;
      q.raiseCode.run(redemption.code);
      q.raiseMine.run(redemption.code, redemption.user_id);
      return { ok: true, returned: true } as const;
    }),
  };
}
