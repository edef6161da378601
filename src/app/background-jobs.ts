import { limits } from '../domain/index.js';
import { auditSweepName, createAuditJob } from './audit-job.js';
import type { AuditSource } from './inventory-audit.js';
import type { AppContext } from './context.js';
import { sweepOverdueHolds } from './expiry.js';
import { reconcilePendingPayments, refundPendingPayments } from './payments.js';
import { sweepPendingRefunds } from './refunds.js';
import { sweepShowCancellations } from './show-cancellation.js';
import { sweepPaidOrders } from './tickets.js';
import { admitOnce } from './waiting-rooms.js';

export interface BackgroundIntervals {
  readonly expirySweepMs: number;
  readonly ticketSweepMs: number;
  readonly reconcileMs: number;
  /** A payment PENDING this long is worth asking the provider about. */
  readonly reconcileAfterMs: number;
  /** The auditor's period and its bound (a PAID order or an overdue hold older than this is a violation). */
  readonly auditMs?: number;
  readonly auditBoundMs?: number;
  /** The waiting rooms' admitter (issue 24). */
  readonly admitSweepMs: number;
}

/** Shows the audit job reads per run (a show at a time); the next run goes on from there. */
const auditShowsPerRun = 20;

/** A periodic safety net that one process at a time runs. */
export interface PeriodicSweep {
  /** Its name: the lease's, and (for keyset passes) the cursor's. */
  readonly name: string;
  readonly everyMs: number;
  run(): Promise<unknown>;
}

/**
 * The registry of periodic sweeps: adding one (the outbox relay, webhook due-deliveries) is one
 * line here. Each is a bounded pass that is safe to run anywhere, any time, and never twice at once.
 */
export function periodicSweeps(ctx: AppContext, intervals: BackgroundIntervals, auditSource: AuditSource | null = null): PeriodicSweep[] {
  return [
    ...(intervals.auditMs === undefined || auditSource === null ? [] : [{
      name: auditSweepName, everyMs: intervals.auditMs, run: createAuditJob(ctx, auditSource, { boundMs: intervals.auditBoundMs ?? 60_000, showsPerRun: auditShowsPerRun }),
    }]),
    { name: 'expiry-sweep', everyMs: intervals.expirySweepMs, run: () => sweepOverdueHolds(ctx) },
    { name: 'ticket-sweep', everyMs: intervals.ticketSweepMs, run: () => sweepPaidOrders(ctx, intervals.ticketSweepMs) },
    { name: 'payment-reconcile', everyMs: intervals.reconcileMs, run: () => reconcilePendingPayments(ctx, intervals.reconcileAfterMs) },
    { name: 'refunds', everyMs: intervals.reconcileMs, run: () => refundPendingPayments(ctx) },
    // Order refunds whose job was lost (a crash) or whose provider was away: resumed, once each.
    { name: 'order-refunds', everyMs: intervals.reconcileMs, run: () => sweepPendingRefunds(ctx, intervals.reconcileAfterMs) },
    // Cancellations cut short (a crash, a provider away, orders paid late): resumed until every paid order is refunded.
    { name: 'show-cancellations', everyMs: intervals.reconcileMs, run: () => sweepShowCancellations(ctx) },
    { name: 'waiting-room-admitter', everyMs: intervals.admitSweepMs, run: () => admitOnce(ctx) },
  ];
}

export interface BackgroundJobs {
  /** Stops the timers and waits for the runs in progress, whose leases are then let go. */
  stop(): Promise<void>;
}

/**
 * How long a lease lasts unless renewed: it bounds how long a sweep stays stopped when the process
 * running it dies mid-run. Renewed every third of it while the run goes on.
 */
export function leaseMsOf(everyMs: number): number {
  return Math.min(Math.max(everyMs * limits.sweepLeasePeriods, limits.sweepLeaseMsMin), limits.sweepLeaseMsMax);
}

/**
 * Runs each sweep every `everyMs`, in one process at a time across every process on the database:
 * a run starts only with the sweep's lease (a compare-and-set on its row), renews it while it
 * goes on, and lets it go at the end, so the next run may be any process's. A run that does not
 * get the lease is skipped. Each loop runs one pass at a time, logs and survives its own failures
 * (a store that is away included), and stops cleanly.
 */
export function startBackgroundJobs(
  ctx: Pick<AppContext, 'store' | 'clock'>, sweeps: readonly PeriodicSweep[], holder: string, onError: (job: string, error: unknown) => void,
): BackgroundJobs {
  const timers: NodeJS.Timeout[] = [];
  const running = new Set<Promise<void>>();
  const runOnce = async (sweep: PeriodicSweep): Promise<void> => {
    const ttlMs = leaseMsOf(sweep.everyMs);
    const lease = await ctx.store.acquireLease({ name: sweep.name, holder, now: ctx.clock.now(), ttlMs });
    if (!lease.ok) return;
    let renewing: Promise<unknown> = Promise.resolve();
    const renew = setInterval(() => {
      renewing = ctx.store.acquireLease({ name: sweep.name, holder, now: ctx.clock.now(), ttlMs }).then(
        (renewed) => {
          if (!renewed.ok) onError(sweep.name, new Error(`lost the lease of ${sweep.name} to ${renewed.holder} mid-run`));
        },
        (error: unknown) => onError(sweep.name, error),
      );
    }, Math.max(1, Math.floor(ttlMs / 3)));
    renew.unref();
    try {
      await sweep.run();
    } finally {
      clearInterval(renew);
      await renewing;
      await ctx.store.releaseLease({ name: sweep.name, holder });
    }
  };
  for (const sweep of sweeps) {
    let busy = false;
    const timer = setInterval(() => {
      if (busy) return;
      busy = true;
      const run = runOnce(sweep)
        .catch((error: unknown) => onError(sweep.name, error))
        .finally(() => {
          busy = false;
          running.delete(run);
        });
      running.add(run);
    }, sweep.everyMs);
    timer.unref();
    timers.push(timer);
  }
  return {
    async stop() {
      timers.forEach((t) => clearInterval(t));
      await Promise.allSettled([...running]);
    },
  };
}
