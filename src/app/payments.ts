import {
  completeRefund, limits, refundCents, refundInstead, refundUnswapped, settlePayment, type Payment, type PaymentReport, type PaymentStatus, type SettlementOutcome,
} from '../domain/index.js';
import type { AppContext } from './context.js';
import { AppError, found, unwrap } from './errors.js';
import { again, done, withStaleRetries, type Attempt } from './stale-retry.js';
import { cancelExpiry } from './enqueue.js';
import { sweepByKeyset } from './keyset-sweep.js';
import { issueTicketsSoon } from './tickets.js';
import { exchangeAwaitingPayment, swapOnPayment } from './exchange-payment.js';

/**
 * Applies a verified provider callback (or a reconciled verdict) and counts it by outcome.
 * Idempotent by (paymentId, orderId). One that cannot be applied now throws, so the edge answers
 * non-2xx and the provider retries; the caller counts that refusal (the HTTP edge, or a job
 * failure). One no retry can fix (a wrong amount) is acknowledged as an anomaly: counted, logged,
 * its money refunded.
 */
export async function applyPaymentReport(ctx: AppContext, report: PaymentReport): Promise<SettlementOutcome> {
  const settled = await withStaleRetries('payment', () => settleOnce(ctx, report));
  afterSettlement(ctx, settled);
  ctx.telemetry.paymentCallback(settled.outcome);
  if (settled.outcome === 'AMOUNT_MISMATCH') {
    ctx.telemetry.paymentAnomaly('AMOUNT_MISMATCH', {
      paymentId: report.paymentId, orderId: report.orderId, reportedStatus: report.status,
      reportedCents: report.amountCents, expectedCents: settled.payment.amountCents, paymentStatus: settled.payment.status,
    });
  }
  return settled.outcome;
}

interface Settled {
  readonly outcome: SettlementOutcome;
  readonly payment: Payment;
  readonly orderId: string;
  readonly holdId: string;
  /** A dearer exchange's difference paid: the swap issued the tickets already. */
  readonly swapped?: boolean;
}

/** Reads the payment, its order and hold, lets the domain decide, and hands the store the plan. */
async function settleOnce(ctx: AppContext, report: PaymentReport): Promise<Attempt<Settled>> {
  const now = ctx.clock.now();
  const payment = found(await ctx.store.getPayment(report.paymentId), 'PAYMENT_NOT_FOUND', 'no such payment');
  const order = found(await ctx.store.getOrder(report.orderId), 'ORDER_NOT_FOUND', 'no such order');
  const hold = found(await ctx.store.getHold(order.holdId), 'HOLD_NOT_FOUND', 'the order has no hold');
  // Three reads, not one snapshot: a hold that lapsed between them (cancelling its order) shows as
  // an order awaiting payment on an ended hold, or a cancelled order on an active one. Neither is
  // a state the store can hold, so read again rather than decide on it.
  const torn = (order.status === 'PENDING_PAY' && hold.status !== 'ACTIVE') || (order.status === 'CANCELLED' && hold.status === 'ACTIVE');
  if (torn && order.paymentId === report.paymentId) return again({ ok: false, stale: 'hold' });
  // The same for the payment read before the order: a settlement of this very payment that
  // committed between the two reads (a duplicate callback on another process) shows a PENDING
  // payment beside an order it already paid. The next read finds the payment settled: a duplicate.
  const settledMeanwhile = payment.status === 'PENDING' && order.paymentId === report.paymentId && order.status !== 'PENDING_PAY' && order.status !== 'CANCELLED';
  if (settledMeanwhile) return again({ ok: false, stale: 'payment' });
  let settlement = unwrap(settlePayment({ report, payment, order, hold, now }));
  const base = { orderId: order.orderId, holdId: hold.holdId };
  // A dearer exchange's difference (issue 32): its success swaps the tickets in the same
  // transaction; money that comes when the swap can no longer happen goes back; a decline or a
  // lapse ends the exchange ABANDONED with the order (the old tickets were never touched).
  const exchange = order.paymentId === report.paymentId ? await exchangeAwaitingPayment(ctx, order.orderId) : null;
  if (exchange !== null) {
    if (settlement.plan?.kind === 'SELL' && exchange.status === 'PENDING') {
      const swapped = await swapOnPayment(ctx, exchange, payment, order, now);
      if (swapped.ok) return done({ outcome: settlement.outcome, payment: { ...payment, status: 'SUCCEEDED', updatedAt: now }, ...base, swapped: true });
      if (swapped.stale !== 'ticket') return again(swapped);
    }
    // Not swapped: money for it goes back (the order cancelled, its hold released if still active),
    // never sold late as an ordinary order.
    if (settlement.plan?.kind === 'SELL') settlement = unwrap(refundUnswapped(payment, order, hold, now));
    else if (settlement.plan?.kind === 'SELL_LATE') settlement = unwrap(refundInstead(payment, now));
    // Marked before the settlement: a retry (stale) or a later report then finds it ABANDONED and takes the same road.
    if (exchange.status === 'PENDING') await ctx.store.abandonExchange(exchange.exchangeId, now);
  }
  if (settlement.plan === null) return done({ outcome: settlement.outcome, payment, ...base });
  let outcome = await ctx.store.settlePayment(settlement.plan);
  if (!outcome.ok && 'code' in outcome) {
    // Paid after the hold lapsed and its seats or units are gone: the money goes back.
    settlement = unwrap(refundInstead(payment, now));
    if (settlement.plan === null) return done({ outcome: settlement.outcome, payment, ...base });
    outcome = await ctx.store.settlePayment(settlement.plan);
  }
  if (outcome.ok) {
    return done({ outcome: settlement.outcome, payment: outcome.payment, ...base });
  }
  if ('code' in outcome) throw new AppError('INVARIANT_VIOLATED', `payment ${payment.paymentId} could be neither sold nor refunded`);
  return again(outcome);
}

function afterSettlement(ctx: AppContext, settled: Settled): void {
  if (settled.outcome === 'SOLD' || settled.outcome === 'SOLD_LATE') {
    cancelExpiry(ctx, settled.holdId);
    if (settled.swapped !== true) issueTicketsSoon(ctx, settled.orderId);
  }
  if (settled.payment.status === 'REFUND_PENDING' && (settled.outcome === 'REFUND_REQUIRED' || settled.outcome === 'AMOUNT_MISMATCH')) {
    setImmediate(() => void refundPendingPayments(ctx).catch((error: unknown) => ctx.telemetry.jobFailed('refunds', error)));
  }
}

/**
 * Asks the provider about payments still PENDING after `olderThanMs`: the callback that would
 * have settled them may have been lost (paid-but-stuck orders are the classic rush failure). Each
 * run goes on from where the last one stopped, so abandoned checkouts the provider still calls
 * PENDING never keep a paid one behind them out of sight.
 */
export async function reconcilePendingPayments(ctx: AppContext, olderThanMs: number): Promise<number> {
  const before = ctx.clock.now() - olderThanMs;
  return sweepPayments(ctx, 'payment-reconcile', 'PENDING', before, async (payment) => {
    const status = await ctx.payments.getPaymentStatus(payment.paymentId);
    if (status !== 'SUCCEEDED' && status !== 'FAILED') return false;
    await applyPaymentReport(ctx, { paymentId: payment.paymentId, orderId: payment.orderId, status, amountCents: payment.amountCents });
    return true;
  });
}

interface RefundPasses {
  running: Promise<number>;
  /** Asked for while a pass ran: its list may predate the payment, so one more pass follows. */
  again: boolean;
}
/** One refund pass at a time per node, so the provider is never asked twice at once for one payment. */
const refundPasses = new WeakMap<AppContext, RefundPasses>();

/** Returns the money of payments that could not buy their seats. */
export function refundPendingPayments(ctx: AppContext): Promise<number> {
  const passes = refundPasses.get(ctx);
  if (passes !== undefined) {
    passes.again = true;
    return passes.running;
  }
  const state: RefundPasses = { running: Promise.resolve(0), again: false };
  const loop = async (): Promise<number> => {
    let refunded = 0;
    let passes = 0;
    do {
      state.again = false;
      refunded += await refundPass(ctx);
    } while (state.again && ++passes < limits.refundPassesPerWakeMax);
    return refunded;
  };
  state.running = loop().finally(() => refundPasses.delete(ctx));
  refundPasses.set(ctx, state);
  return state.running;
}

/** Refunds the provider refuses for now keep their place in the line; the pass goes on past them. */
async function refundPass(ctx: AppContext): Promise<number> {
  return sweepPayments(ctx, 'refunds', 'REFUND_PENDING', ctx.clock.now(), async (payment) => {
    // One key per payment: a pass retried after a timeout, or run again by another process before
    // this one recorded the refund, gets the first refund's answer, never a second refund.
    const answer = await ctx.payments.refund({ paymentId: payment.paymentId, amountCents: refundCents(payment), idempotencyKey: `refund:${payment.paymentId}` });
    if (!answer.refunded) return false;
    await withStaleRetries('payment', async () => {
      const current = await ctx.store.getPayment(payment.paymentId);
      const order = await ctx.store.getOrder(payment.orderId);
      if (current === null || order === null || current.status !== 'REFUND_PENDING') return done(null);
      const plan = unwrap(completeRefund(current, order));
      const outcome = await ctx.store.completeRefund({ paymentId: current.paymentId, now: ctx.clock.now(), order: plan.order });
      return outcome.ok ? done(null) : again(outcome);
    });
    return true;
  });
}

/** One bounded run over the payments in `status`, from where the last run of `pass` stopped. */
function sweepPayments(
  ctx: AppContext, pass: string, status: PaymentStatus, updatedBefore: number, work: (payment: Payment) => Promise<boolean>,
): Promise<number> {
  return sweepByKeyset(ctx, {
    pass,
    pageSize: limits.paymentSweepBatchMax,
    pagesMax: limits.sweepPagesPerRunMax,
    fetch: (after, limit) => ctx.store.paymentsByStatus(status, updatedBefore, after, limit),
    positionOf: (payment) => ({ at: payment.updatedAt, id: payment.paymentId }),
    handle: (page) => eachIsolated(ctx, pass, page, work),
  });
}

/** Runs `work` for each payment. One that fails is counted and logged, and the pass goes on. */
async function eachIsolated(ctx: AppContext, job: string, payments: readonly Payment[], work: (payment: Payment) => Promise<boolean>): Promise<number> {
  let done = 0;
  for (const payment of payments) {
    try {
      if (await work(payment)) done++;
    } catch (error) {
      ctx.telemetry.jobFailed(job, error);
    }
  }
  return done;
}
