import { auditDraft, type Actor } from './audit-trail.js';
import { disableDiscount, newDiscount, normalizeDiscountCode, type DiscountCode, type NewDiscountInput } from '../domain/index.js';
import type { OutboxEvent, OutboxSink } from '../ports/engine/index.js';
import type { AppContext } from './context.js';
import { AppError, found, unwrap } from './errors.js';

export interface DiscountView {
  code: string;
  percentOff: number | null;
  amountOffCents: number | null;
  showIds: string[] | null;
  validFrom: string;
  validUntil: string;
  maxUses: number;
  perUserMax: number;
  uses: number;
  status: DiscountCode['status'];
  createdAt: string;
}

export const discountView = (d: DiscountCode): DiscountView => ({
  code: d.code,
  percentOff: d.off.kind === 'PERCENT' ? d.off.percent : null,
  amountOffCents: d.off.kind === 'AMOUNT' ? d.off.cents : null,
  showIds: d.showIds === null ? null : [...d.showIds],
  validFrom: new Date(d.validFrom).toISOString(),
  validUntil: new Date(d.validUntil).toISOString(),
  maxUses: d.maxUses, perUserMax: d.perUserMax, uses: d.uses, status: d.status,
  createdAt: new Date(d.createdAt).toISOString(),
});

export async function createDiscountCode(ctx: AppContext, input: Omit<NewDiscountInput, 'now'>, actor?: Actor): Promise<DiscountView> {
  const discount = unwrap(newDiscount({ ...input, now: ctx.clock.now() }));
  const audit = auditDraft(ctx, actor, { action: 'discount.created', entityType: 'discount', entityId: discount.code, showId: null, before: null, after: { ...discountView(discount) } });
  const created = await ctx.store.createDiscount(discount, audit);
  if (!created.ok) throw new AppError('DISCOUNT_CODE_TAKEN', `a discount code ${discount.code} exists already`);
  return discountView(created.discount);
}

export async function listDiscountCodes(ctx: AppContext, page: { limit: number; offset: number }): Promise<DiscountView[]> {
  return (await ctx.store.listDiscounts(page)).map(discountView);
}

/** Disabling is final: orders holding a use keep it; no new order takes the code. Disabling twice answers the code as it is. */
export async function disableDiscountCode(ctx: AppContext, rawCode: string, actor?: Actor): Promise<DiscountView> {
  const code = normalizeDiscountCode(rawCode);
  const current = found(await ctx.store.getDiscount(code), 'DISCOUNT_NOT_FOUND', 'no such discount code');
  if (current.status === 'DISABLED') return discountView(current);
  const next = unwrap(disableDiscount(current));
  const audit = auditDraft(ctx, actor, { action: 'discount.disabled', entityType: 'discount', entityId: code, showId: null, before: { status: current.status }, after: { status: next.status } });
  const outcome = await ctx.store.disableDiscount({ code, from: current.status, to: next.status }, audit);
  if (outcome.ok) return discountView(outcome.discount);
  return discountView(found(await ctx.store.getDiscount(code), 'DISCOUNT_NOT_FOUND', 'no such discount code'));
}

/**
 * An order cancelled unpaid (its buyer called it off, its hold expired, its payment failed), or
 * refunded whole (issue 25: a refund gives the use back), gives its discount use back. Fed by the outbox relay, so it holds whichever process cancelled the
 * order, and at least once: the store gives a use back only once per order.
 */
export function discountReturnsSink(ctx: AppContext): OutboxSink {
  return {
    name: 'discount-returns',
    async deliver(events: readonly OutboxEvent[]) {
      for (const event of events) {
        // Sold late after its use was given back (the cancellation's event came first): it takes the use again.
        if (event.type === 'order.paid') {
          const orderId = event.data.orderId;
          if (typeof orderId === 'string') await ctx.store.retakeDiscountUse({ orderId, now: ctx.clock.now() });
          continue;
        }
        if (event.type !== 'order.cancelled' && event.type !== 'refund.completed') continue;
        const orderId = event.data.orderId;
        if (typeof orderId !== 'string') continue;
        const order = await ctx.store.getOrder(orderId);
        if (order === null || order.discount === undefined) continue;
        // A refund gives the use back once the whole order is refunded (a partial refund keeps it).
        if (event.type === 'refund.completed' && order.status !== 'REFUNDED') continue;
        // Sold late since (its money arrived after the lapse): it keeps its use.
        if (event.type === 'order.cancelled' && (order.status === 'PAID' || order.status === 'TICKETED')) continue;
        await ctx.store.returnDiscountUse({ orderId, now: ctx.clock.now() });
      }
    },
  };
}
