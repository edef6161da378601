import { planRefund, type Order, type Show } from '../domain/index.js';
import type { Refund } from '../ports/engine/index.js';
import { PaymentProviderError } from '../ports/payment-provider.js';
import { auditDraft, type Actor } from './audit-trail.js';
import type { AppContext } from './context.js';
import { cancelExpiry, enqueueJob } from './enqueue.js';
import { AppError } from './errors.js';
import { carriedOutOf, sourcePaymentOf } from './money-source.js';
import { processRefund } from './refunds.js';
import { again, done, withStaleRetries } from './stale-retry.js';

/** Pages one cancellation pass reads at most of each kind (holds, orders, pending refunds): a pass is bounded, the next one goes on. */
const pagesPerPass = 20;
const pageSize = 50;

export interface CancellationView {
  readonly showId: string;
  readonly cancelledAt: string;
  readonly reason: string;
  /** TICKETED orders with a valid ticket: not refunded yet. */
  readonly ordersToRefund: number;
  readonly ordersByStatus: Record<string, number>;
  readonly refundsByStatus: Record<string, number>;
  readonly activeHolds: number;
  /** Every paid order refunded (or refused by the provider), no refund pending, no hold left. */
  readonly done: boolean;
}

/** The idempotency key of the cancellation's refund of an order: one per order, whoever runs the pass and however often. */
export const cancellationKey = (showId: string): string => `cancel:${showId}`;
const cancelShowJobKey = (showId: string): string => `cancel-show:${showId}`;

/**
 * Cancels a show (admin): the sale stops at once (claims of a cancelled show are refused, and the
 * read model has the new show before this returns), then a background pass releases the holds and
 * refunds every paid order. A second cancel is 409 SHOW_CANCELLED. The audit entry is written
 * with the cancellation; the refunds it starts are the organizer's (requestedBy ORGANIZER).
 */
export async function cancelShow(ctx: AppContext, showId: string, reason: string, actor: Actor | null = null): Promise<CancellationView> {
  const audit = auditDraft(ctx, actor, { action: 'show.cancelled', entityType: 'show', entityId: showId, showId, before: { cancelled: false }, after: { cancelled: true, reason } });
  const outcome = await ctx.store.cancelShow({ showId, reason, now: ctx.clock.now(), audit });
  if (!outcome.ok) {
    if (outcome.code === 'SHOW_NOT_FOUND') throw new AppError('SHOW_NOT_FOUND', 'no such show');
    throw new AppError('SHOW_CANCELLED', 'the show was already cancelled', { cancelledAt: new Date(outcome.show.cancelledAt ?? 0).toISOString() });
  }
  ctx.seatMaps.replaceShow(outcome.show);
  enqueueJob(ctx, 'cancel-show', { showId }, { key: cancelShowJobKey(showId) });
  return cancellationProgress(ctx, showId);
}

export async function cancellationProgress(ctx: AppContext, showId: string): Promise<CancellationView> {
  const show = await ctx.store.getShow(showId);
  if (show === null) throw new AppError('SHOW_NOT_FOUND', 'no such show');
  if ((show.cancelledAt ?? null) === null) throw new AppError('SHOW_NOT_FOUND', 'the show is not cancelled');
  const p = await ctx.store.cancellationProgress(showId);
  const pendingRefunds = p.refundsByStatus.PENDING ?? 0;
  return {
    showId, cancelledAt: new Date(show.cancelledAt ?? 0).toISOString(), reason: show.cancelReason ?? '',
    ordersToRefund: p.ordersToRefund, ordersByStatus: { ...p.ordersByStatus }, refundsByStatus: { ...p.refundsByStatus }, activeHolds: p.activeHolds,
    done: p.ordersToRefund === 0 && pendingRefunds === 0 && p.activeHolds === 0 && (p.ordersByStatus.PAID ?? 0) === 0,
  };
}

/**
 * One bounded pass of a cancellation: releases the show's active holds, refunds each refundable
 * order (its remaining valid tickets) once under cancellationKey, and asks the provider for the
 * show's refunds left PENDING by an earlier pass that died. Safe to run again and from any process:
 * the per-order state is the order's and refund's own (TICKETED -> REFUND_PENDING -> REFUNDED, the
 * refund PENDING -> REFUNDED), and the unique (order, key) refuses a second refund of an order.
 * Returns how many orders it refunded.
 */
export async function runShowCancellation(ctx: AppContext, showId: string): Promise<number> {
  const show = await ctx.store.getShow(showId);
  if (show === null || (show.cancelledAt ?? null) === null) return 0;
  for (let page = 0; page < pagesPerPass; page++) {
    const holds = await ctx.store.activeHoldsOfShow(showId, pageSize);
    for (const hold of holds) {
      const lapsed = await ctx.store.lapseHold({ holdId: hold.holdId, event: 'RELEASE', expectedExpiresAt: hold.expiresAt, now: ctx.clock.now() });
      if (lapsed.ok) cancelExpiry(ctx, hold.holdId);
    }
    if (holds.length < pageSize) break;
  }
  let refunded = 0;
  let after: string | null = null;
  for (let page = 0; page < pagesPerPass; page++) {
    const orders = await ctx.store.refundableOrdersOfShow(showId, after, pageSize);
    for (const order of orders) if (await refundForCancellation(ctx, show, order)) refunded++;
    after = orders.at(-1)?.orderId ?? after;
    if (orders.length < pageSize) break;
  }
  // Refunds an earlier pass recorded but did not get to the provider (it died, or the provider was away).
  let cursor: { at: number; id: string } | null = null;
  for (let page = 0; page < pagesPerPass; page++) {
    const pending: Refund[] = await ctx.store.pendingRefunds(ctx.clock.now(), cursor, pageSize);
    for (const refund of pending) if (refund.showId === showId) await askProvider(ctx, refund.refundId);
    const last = pending.at(-1);
    if (last === undefined || pending.length < pageSize) break;
    cursor = { at: last.updatedAt, id: last.refundId };
  }
  return refunded;
}

async function refundForCancellation(ctx: AppContext, show: Show, order: Order): Promise<boolean> {
  const refundId = await withStaleRetries('refund', async () => {
    const current = await ctx.store.getOrder(order.orderId);
    if (current === null) return done(null);
    const now = ctx.clock.now();
    const plan = planRefund({
      order: current, tickets: await ctx.store.ticketsByOrder(order.orderId), ticketIds: null, actor: 'ORGANIZER',
      refundedCents: await ctx.store.refundedCentsOfOrder(order.orderId), carriedOutCents: await carriedOutOf(ctx, order.orderId), now,
    }, show);
    // Nothing left to refund (every ticket used or refunded, or a refund already under way).
    if (!plan.ok) return done(null);
    const refund: Refund = {
      refundId: ctx.ids.newId('refund'), orderId: current.orderId, userId: current.userId, showId: current.showId, paymentId: await sourcePaymentOf(ctx, current.orderId),
      amountCents: plan.value.amountCents, ticketIds: plan.value.ticketIds, whole: plan.value.whole, status: 'PENDING', reason: null,
      requestedBy: 'ORGANIZER', idempotencyKey: cancellationKey(show.showId), createdAt: now, updatedAt: now,
    };
    const outcome = await ctx.store.requestRefund({ refund, orderFrom: 'TICKETED', now });
    if (outcome.ok) return done(outcome.refund.refundId);
    if ('code' in outcome) return done(outcome.refund.status === 'PENDING' ? outcome.refund.refundId : null);
    return again(outcome);
  });
  if (refundId === null) return false;
  await askProvider(ctx, refundId);
  return true;
}

/** A provider away leaves the refund PENDING for the next pass (or the order-refunds sweep). */
async function askProvider(ctx: AppContext, refundId: string): Promise<void> {
  try {
    await processRefund(ctx, refundId);
  } catch (error) {
    if (!(error instanceof PaymentProviderError)) throw error;
    ctx.telemetry.jobFailed('cancel-show', error);
  }
}

/** The net behind the jobs: every cancelled show with something left to do gets a pass. */
export async function sweepShowCancellations(ctx: AppContext): Promise<number> {
  let refunded = 0;
  for (const showId of await ctx.store.unfinishedCancellations(pageSize)) refunded += await runShowCancellation(ctx, showId);
  return refunded;
}
