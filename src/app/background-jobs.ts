import type { AppContext } from './context.js';
import { sweepOverdueHolds } from './expiry.js';
import { reconcilePendingPayments, refundPendingPayments } from './payments.js';
import { sweepPaidOrders } from './tickets.js';

export interface BackgroundIntervals {
  readonly expirySweepMs: number;
  readonly ticketSweepMs: number;
  readonly reconcileMs: number;
  /** A payment PENDING this long is worth asking the provider about. */
  readonly reconcileAfterMs: number;
}

export interface BackgroundJobs {
  stop(): void;
}

/**
 * The periodic safety nets. Each loop runs one pass at a time (no overlap), logs and survives
 * its own failures, and stops cleanly.
 */
export function startBackgroundJobs(ctx: AppContext, intervals: BackgroundIntervals, onError: (job: string, error: unknown) => void): BackgroundJobs {
  const timers: NodeJS.Timeout[] = [];
  const every = (job: string, ms: number, pass: () => Promise<unknown>): void => {
    let running = false;
    const timer = setInterval(() => {
      if (running) return;
      running = true;
      pass()
        .catch((error: unknown) => onError(job, error))
        .finally(() => {
          running = false;
        });
    }, ms);
    timer.unref();
    timers.push(timer);
  };
  every('expiry-sweep', intervals.expirySweepMs, () => sweepOverdueHolds(ctx));
  every('ticket-sweep', intervals.ticketSweepMs, () => sweepPaidOrders(ctx, intervals.ticketSweepMs));
  every('payment-reconcile', intervals.reconcileMs, () => reconcilePendingPayments(ctx, intervals.reconcileAfterMs));
  every('refunds', intervals.reconcileMs, () => refundPendingPayments(ctx));
  return {
    stop: () => timers.forEach((t) => clearInterval(t)),
  };
}
