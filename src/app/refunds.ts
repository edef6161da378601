import { isExchangeDifferenceRefund, limits, planRefund, refundDeadline, type RefundActor } from '../domain/index.js';
import type { Refund } from '../ports/engine/index.js';
import { PaymentProviderError } from '../ports/payment-provider.js';
import type { AppContext } from './context.js';
import { enqueueJob } from './enqueue.js';
import { AppError, found, unwrap } from './errors.js';
import { sweepByKeyset } from './keyset-sweep.js';
import { carriedOutOf, sourcePaymentOf } from './money-source.js';
import { again, done, withStaleRetries } from './stale-retry.js';

/** A refund as the API shows it. */
export interface RefundView {
  readonly refundId: string;
  readonly orderId: string;
  readonly showId: string;
  readonly amountCents: number;
  readonly ticketIds: string[];
  readonly whole: boolean;
  readonly status: Refund['status'];
  readonly reason: string | null;
  readonly requestedBy: RefundActor;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export const refundView = (r: Refund): RefundView => ({
  refundId: r.refundId, orderId: r.orderId, showId: r.showId, amountCents: r.amountCents, ticketIds: [...r.ticketIds], whole: r.whole,
  status: r.status, reason: r.reason, requestedBy: r.requestedBy, createdAt: new Date(r.createdAt).toISOString(), updatedAt: new Date(r.updatedAt).toISOString(),
});

export interface RefundCommand {
  readonly userId: string;
  readonly orderId: string;
  /** null: every ticket still valid (the whole order). */
  readonly ticketIds: readonly string[] | null;
  readonly idempotencyKey: string;
}

/** The provider's key of one refund: per refund, so a second partial refund of one payment is not taken for a retry of the first. */
export const providerRefundKey = (refundId: string): string => `refund:${refundId}`;
export const processRefundKey = (refundId: string): string => `process-refund:${refundId}`;

/**
 * A refund asked by the buyer (within the show's policy) or by an admin (any time). Someone
 * else's order is 404, as if it did not exist. The same key again answers the same refund.
 * The tickets are INVALID when this returns; the money follows in the background (a job per
 * refund, with the resume sweep behind it).
 */
export async function requestOrderRefund(ctx: AppContext, command: RefundCommand): Promise<{ refund: RefundView; replayed: boolean }> {
  const result = await withStaleRetries('refund', async () => {
    const order = await ctx.store.getOrder(command.orderId);
    const viewer = await ctx.store.getUser(command.userId);
    const admin = viewer?.role === 'ADMIN';
    const visible = found(order !== null && (order.userId === command.userId || admin) ? order : null, 'ORDER_NOT_FOUND', 'no such order');
    const earlier = (await ctx.store.refundsByOrder(visible.orderId)).find((r) => r.idempotencyKey === command.idempotencyKey);
    if (earlier !== undefined) return done({ refund: earlier, replayed: true });
    const show = found(await ctx.store.getShow(visible.showId), 'SHOW_NOT_FOUND', 'no such show');
    const now = ctx.clock.now();
    // There is no per-show organizer account yet: admins act as the organizer (any time).
    const actor: RefundActor = admin ? 'ORGANIZER' : 'BUYER';
    const plan = unwrap(planRefund({
      order: visible, tickets: await ctx.store.ticketsByOrder(visible.orderId), ticketIds: command.ticketIds, actor,
      refundedCents: await ctx.store.refundedCentsOfOrder(visible.orderId), carriedOutCents: await carriedOutOf(ctx, visible.orderId), now,
    }, show));
    const refund: Refund = {
      refundId: ctx.ids.newId('refund'), orderId: visible.orderId, userId: visible.userId, showId: visible.showId,
      // The payment the money goes back through: the order's own, or, after exchanges, the one that paid the chain's first order.
      paymentId: await sourcePaymentOf(ctx, visible.orderId),
      amountCents: plan.amountCents, ticketIds: plan.ticketIds, whole: plan.whole, status: 'PENDING', reason: null, requestedBy: actor,
      idempotencyKey: command.idempotencyKey, createdAt: now, updatedAt: now,
    };
    const outcome = await ctx.store.requestRefund({ refund, orderFrom: 'TICKETED', now });
    if (outcome.ok) return done({ refund: outcome.refund, replayed: false });
    if ('code' in outcome) return done({ refund: outcome.refund, replayed: true });
    return again(outcome);
  });
  if (!result.replayed) enqueueJob(ctx, 'process-refund', { refundId: result.refund.refundId }, { key: processRefundKey(result.refund.refundId) });
  return { refund: refundView(result.refund), replayed: result.replayed };
}

/**
 * Asks the provider for one PENDING refund's money, under the refund's own key (a retry, a second
 * worker or the sweep after a crash gets the first answer, never a second refund), then settles
 * it: REFUNDED frees the seats and units; REFUSED gives the buyer the tickets back. A provider that
 * is away leaves it PENDING for the next try. Safe to run twice: a settled refund is left alone.
 */
export async function processRefund(ctx: AppContext, refundId: string): Promise<Refund | null> {
  const refund = await ctx.store.getRefund(refundId);
  if (refund === null || refund.status !== 'PENDING') return refund;
  // The store says REFUNDED only for money the provider confirmed it paid back (issue 32): an order
  // from an exchange is refunded through the payment at the start of its chain, and money with no
  // payment to go back through is refused, never recorded as paid. Only nothing to pay is REFUNDED without the provider.
  let refunded = refund.amountCents === 0;
  let reason: string | null = null;
  let through: { paymentId: string; amountCents: number } | null = null;
  if (refund.amountCents > 0) {
    const parts = await refundParts(ctx, refund);
    // A part through a payment other than the refund's own (a dearer exchange's source) is recorded with it.
    const second = parts?.find((part) => part.paymentId !== refund.paymentId);
    if (second !== undefined) through = { paymentId: second.paymentId, amountCents: second.amountCents };
    if (parts === null) {
      reason = 'no payment to refund through';
    } else {
      // Each part under its own key: a retry gets each first answer, never a second refund.
      const answers: boolean[] = [];
      for (const part of parts) answers.push((await ctx.payments.refund(part)).refunded);
      refunded = answers.every((a) => a);
      // Some money went back and some was refused: the buyer is owed the rest, so it stays PENDING for the next try (never REFUSED with money paid out).
      if (!refunded && answers.some((a) => a)) return refund;
      if (!refunded) reason = 'the payment provider refused the refund';
    }
  }
  // A cheaper exchange's difference has no tickets to give back instead: the buyer is owed it, so a
  // refusal (or no payment) leaves it PENDING for the next try (the sweep behind the jobs), never REFUSED.
  if (!refunded && isExchangeDifferenceRefund(refund)) return refund;
  const settled = await ctx.store.settleRefund({ refundId, outcome: refunded ? 'REFUNDED' : 'REFUSED', reason, now: ctx.clock.now(), ...(through === null ? {} : { through }) });
  return settled.ok ? settled.refund : await ctx.store.getRefund(refundId);
}

interface RefundPart { readonly paymentId: string; readonly amountCents: number; readonly idempotencyKey: string }

/**
 * The provider calls that pay one refund back. An order from a dearer exchange was paid by two
 * payments: its own (the difference) and the chain's source (the value carried). Its refunds pay
 * back through the difference payment first, up to what it brought in (less what this order's
 * earlier refunds took from it), then through the source; each call with its own key. Any other
 * refund goes through one payment: its own, or the chain's source. null: no payment to go through.
 */
async function refundParts(ctx: AppContext, refund: Refund): Promise<RefundPart[] | null> {
  const order = await ctx.store.getOrder(refund.orderId);
  const exchange = order?.paymentId == null ? null : await ctx.store.exchangeIntoOrder(refund.orderId);
  const differencePaymentId = order?.paymentId ?? null;
  if (exchange === null || exchange.status !== 'COMPLETED' || exchange.differenceCents <= 0 || differencePaymentId === null) {
    const paymentId = refund.paymentId ?? (await sourcePaymentOf(ctx, refund.orderId));
    return paymentId === null ? null : [{ paymentId, amountCents: refund.amountCents, idempotencyKey: providerRefundKey(refund.refundId) }];
  }
  const difference = await ctx.store.getPayment(differencePaymentId);
  const earlier = (await ctx.store.refundsByOrder(refund.orderId))
    .filter((r) => r.refundId !== refund.refundId && r.status !== 'REFUSED' && (r.createdAt < refund.createdAt || (r.createdAt === refund.createdAt && r.refundId < refund.refundId)))
    .reduce((sum, r) => sum + r.amountCents, 0);
  const fromDifference = Math.max(0, Math.min(refund.amountCents, (difference?.amountCents ?? 0) - earlier));
  const fromSource = refund.amountCents - fromDifference;
  const source = fromSource > 0 ? await sourcePaymentOf(ctx, exchange.oldOrderId) : null;
  if (fromSource > 0 && source === null) return null;
  const parts: RefundPart[] = [];
  if (fromDifference > 0) parts.push({ paymentId: differencePaymentId, amountCents: fromDifference, idempotencyKey: providerRefundKey(refund.refundId) });
  if (fromSource > 0 && source !== null) parts.push({ paymentId: source, amountCents: fromSource, idempotencyKey: `${providerRefundKey(refund.refundId)}:source` });
  return parts;
}

/**
 * The net behind the jobs: PENDING refunds older than `olderThanMs` (their job lost with a
 * process, or the provider away) are processed again, oldest first, a bounded page per run.
 */
export async function sweepPendingRefunds(ctx: AppContext, olderThanMs: number): Promise<number> {
  const before = ctx.clock.now() - olderThanMs;
  return sweepByKeyset(ctx, {
    pass: 'order-refunds',
    pageSize: limits.paymentSweepBatchMax,
    pagesMax: limits.sweepPagesPerRunMax,
    fetch: (after, limit) => ctx.store.pendingRefunds(before, after, limit),
    positionOf: (r) => ({ at: r.updatedAt, id: r.refundId }),
    async handle(page) {
      let settled = 0;
      for (const r of page) {
        try {
          const after = await processRefund(ctx, r.refundId);
          if (after !== null && after.status !== 'PENDING') settled++;
        } catch (error) {
          // A provider away keeps the refund PENDING for the next run; anything else is logged. The pass goes on.
          if (!(error instanceof PaymentProviderError)) ctx.telemetry.jobFailed('order-refunds', error);
        }
      }
      return settled;
    },
  });
}

/** The order's refunds and its policy, for the order page. */
export async function orderRefunds(ctx: AppContext, userId: string, orderId: string): Promise<{ refunds: RefundView[]; refundUntil: string | null }> {
  const order = await ctx.store.getOrder(orderId);
  const viewer = order === null || order.userId === userId ? null : await ctx.store.getUser(userId);
  if (order === null || (order.userId !== userId && viewer?.role !== 'ADMIN')) throw new AppError('ORDER_NOT_FOUND', 'no such order');
  const show = await ctx.store.getShow(order.showId);
  const deadline = show === null ? null : refundDeadline(show);
  return { refunds: (await ctx.store.refundsByOrder(orderId)).map(refundView), refundUntil: deadline === null ? null : new Date(deadline).toISOString() };
}
