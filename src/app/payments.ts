import { completeRefund, limits, settlePayment, type Payment, type PaymentReport, type Settlement } from '../domain/index.js';
import { StoreConflictError } from '../ports/store.js';
import type { AppContext } from './context.js';
import { AppError, found, unwrap } from './errors.js';
import { issueTicketsSoon } from './tickets.js';

/**
 * Applies a verified provider callback. Idempotent by (paymentId, orderId); a callback that cannot
 * be applied throws, so the edge answers non-2xx and the provider retries.
 */
export async function applyPaymentReport(ctx: AppContext, report: PaymentReport): Promise<Settlement['outcome']> {
  const now = ctx.clock.now();
  try {
    const settlement = await ctx.store.transaction(async (tx) => {
      const payment = found(await tx.payments.get(report.paymentId), 'PAYMENT_NOT_FOUND', 'no such payment');
      const order = found(await tx.orders.get(report.orderId), 'ORDER_NOT_FOUND', 'no such order');
      const hold = found(await tx.holds.get(order.holdId), 'HOLD_NOT_FOUND', 'the order has no hold');
      const seats = await tx.seats.getMany(order.showId, hold.seatIds);
      const settled = unwrap(settlePayment({ report, payment, order, hold, seats, now }));
      if (settled.outcome === 'DUPLICATE') return settled;
      await tx.payments.save(settled.payment, payment.status);
      if (settled.order !== order) await tx.orders.save(settled.order, order.status);
      if (settled.hold !== hold) await tx.holds.save(settled.hold, hold);
      await tx.seats.save(settled.seats);
      return settled;
    });
    afterSettlement(ctx, settlement);
    ctx.telemetry.paymentCallback(settlement.outcome);
    return settlement.outcome;
  } catch (error) {
    ctx.telemetry.paymentCallback(error instanceof AppError ? error.code : 'ERROR');
    throw error;
  }
}

function afterSettlement(ctx: AppContext, settlement: Settlement): void {
  ctx.seatMaps.apply(settlement.seats);
  if (settlement.outcome === 'SOLD' || settlement.outcome === 'SOLD_LATE') {
    ctx.scheduler.cancel(`hold:${settlement.hold.holdId}`);
    issueTicketsSoon(ctx, settlement.order.orderId);
  }
  if (settlement.outcome === 'REFUND_REQUIRED') {
    setImmediate(() => void refundPendingPayments(ctx).catch((error: unknown) => ctx.telemetry.jobFailed('refunds', error)));
  }
}

/**
 * Asks the provider about payments still PENDING after `olderThanMs`: the callback that would
 * have settled them may have been lost (paid-but-stuck orders are the classic rush failure).
 */
export async function reconcilePendingPayments(ctx: AppContext, olderThanMs: number): Promise<number> {
  const before = ctx.clock.now() - olderThanMs;
  const pending = await ctx.store.read((r) => r.payments.findByStatus('PENDING', before, limits.expirySweepBatchMax));
  return eachIsolated(ctx, 'payment-reconcile', pending, async (payment) => {
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
    do {
      state.again = false;
      refunded += await refundPass(ctx);
    } while (state.again);
    return refunded;
  };
  state.running = loop().finally(() => refundPasses.delete(ctx));
  refundPasses.set(ctx, state);
  return state.running;
}

async function refundPass(ctx: AppContext): Promise<number> {
  const due = await ctx.store.read((r) => r.payments.findByStatus('REFUND_PENDING', ctx.clock.now(), limits.expirySweepBatchMax));
  return eachIsolated(ctx, 'refunds', due, async (payment) => {
    const answer = await ctx.payments.refund({ paymentId: payment.paymentId, amountCents: payment.amountCents });
    if (!answer.refunded) return false;
    await ctx.store.transaction(async (tx) => {
      const current = await tx.payments.get(payment.paymentId);
      const order = await tx.orders.get(payment.orderId);
      if (current === null || order === null || current.status !== 'REFUND_PENDING') return;
      const done = unwrap(completeRefund(current, order, ctx.clock.now()));
      await tx.payments.save(done.payment, current.status);
      if (done.order !== order) await tx.orders.save(done.order, order.status);
    });
    return true;
  });
}

/**
 * Runs `work` for each payment. One that fails is counted and logged, and goes to the back of the
 * line (its updatedAt moves on), so payments that keep failing never crowd out the rest.
 */
async function eachIsolated(ctx: AppContext, job: string, payments: readonly Payment[], work: (payment: Payment) => Promise<boolean>): Promise<number> {
  let done = 0;
  for (const payment of payments) {
    try {
      if (await work(payment)) done++;
    } catch (error) {
      ctx.telemetry.jobFailed(job, error);
      await ctx.store.transaction((tx) => tx.payments.save({ ...payment, updatedAt: ctx.clock.now() }, payment.status))
        .catch((moved: unknown) => {
          if (!(moved instanceof StoreConflictError)) ctx.telemetry.jobFailed(job, moved); // a conflict: it moved on meanwhile
        });
    }
  }
  return done;
}
