import type { JobQueue } from '../ports/jobs.js';
import type { Clock } from '../ports/runtime.js';
import type { AuditStore } from '../ports/engine/index.js';
import type { BookingTelemetry } from '../ports/telemetry.js';

/** Counts stop here: the gauges need "how bad", not an exact figure past it, and the query stays bounded. */
export const stuckCountMax = 100_000;

const ageSeconds = (now: number, since: number | null): number => (since === null ? 0 : Math.max(0, (now - since) / 1000));

/**
 * Reads what is stuck (orders PENDING_PAY and PAID-not-ticketed, overdue holds, pending payments,
 * the job backlog) once and hands it to the gauges: a few index-range reads per period, whatever
 * the scrape rate or the number of rows.
 */
export async function readOpsFigures(ctx: { readonly store: Pick<AuditStore, 'stuckFigures'>; readonly clock: Clock; readonly telemetry: BookingTelemetry; readonly jobs: JobQueue }): Promise<void> {
  const now = ctx.clock.now();
  const r = await ctx.store.stuckFigures(now, stuckCountMax);
  ctx.telemetry.stuck({
    pendingPayOrders: r.pendingPay.count,
    pendingPayOldestAgeSeconds: ageSeconds(now, r.pendingPay.oldest),
    paidNotTicketedOrders: r.paidNotTicketed.count,
    paidNotTicketedOldestAgeSeconds: ageSeconds(now, r.paidNotTicketed.oldest),
    overdueHolds: r.overdueHolds.count,
    overdueHoldOldestSeconds: ageSeconds(now, r.overdueHolds.oldest),
    pendingPayments: r.pendingPayments.count,
    pendingPaymentOldestAgeSeconds: ageSeconds(now, r.pendingPayments.oldest),
  });
  if (ctx.jobs.backlog !== undefined) {
    const backlog = await ctx.jobs.backlog();
    ctx.telemetry.jobBacklog(backlog.waiting, backlog.oldestOverdueMs / 1000);
  }
}

/** Runs readOpsFigures every `everyMs` in this process (each process's gauges stay fresh), one read at a time. */
export function startOpsFigures(ctx: Parameters<typeof readOpsFigures>[0], everyMs: number, onError: (error: unknown) => void): { stop(): void; now(): Promise<void> } {
  let busy: Promise<void> | null = null;
  const tick = (): Promise<void> => {
    busy ??= readOpsFigures(ctx).catch(onError).finally(() => {
      busy = null;
    });
    return busy;
  };
  const timer = setInterval(() => void tick(), everyMs);
  timer.unref();
  return { stop: () => clearInterval(timer), now: tick };
}
