import { isOverdue, limits, type Hold } from '../domain/index.js';
import type { AppContext } from './context.js';
import { enqueueJob, expireHoldKey } from './enqueue.js';
import { sweepByKeyset } from './keyset-sweep.js';
import { scheduleOffered, waitlistTerms } from './waitlist-terms.js';

/** Enqueues the release of a new hold at its expiry (job `expire-hold`, key `expire-hold:{holdId}`). */
export function scheduleExpiry(ctx: AppContext, hold: Pick<Hold, 'holdId' | 'expiresAt'>): void {
  enqueueJob(ctx, 'expire-hold', { holdId: hold.holdId }, { key: expireHoldKey(hold.holdId), runAt: hold.expiresAt });
}

/**
 * Moves a hold's release to its new expiry (an extension). The waiting job goes first, since a
 * key still waiting is not enqueued again. A release already running when the extension lands
 * finds the hold not yet due and does nothing; the new one is then de-duplicated against it for
 * as long as the queue keeps it, and the expiry sweep frees the hold instead.
 */
export function rescheduleExpiry(ctx: AppContext, hold: Pick<Hold, 'holdId' | 'expiresAt'>): void {
  ctx.jobs.cancel(expireHoldKey(hold.holdId)).then(
    () => scheduleExpiry(ctx, hold),
    (error: unknown) => ctx.telemetry.jobFailed('cancel-expire-hold', error),
  );
}

/**
 * Expires one hold if it is still ACTIVE and overdue: one lapseHold operation of the store, which
 * gives back its seats, units and the buyer's units and cancels its unpaid order, exactly once. A
 * hold that moved on (confirmed, released, extended, expired by another node) is left alone:
 * false. A stale answer means it moved on between the read and the write; it is not retried here
 * (the next sweep looks again).
 */
export async function expireHold(ctx: AppContext, holdId: string): Promise<boolean> {
  const now = ctx.clock.now();
  const hold = await ctx.store.getHold(holdId);
  if (hold === null || !isOverdue(hold, now)) return false;
  const outcome = await ctx.store.lapseHold({ holdId, event: 'EXPIRE', expectedExpiresAt: hold.expiresAt, now, waitlist: await waitlistTerms(ctx, hold, now) });
  if (!outcome.ok) return false;
  scheduleOffered(ctx, outcome);
  ctx.telemetry.holdsExpired(1, [(now - hold.expiresAt) / 1000]);
  return true;
}

/**
 * The safety net: frees every overdue hold by expiry time, in bounded pages, whether or not its
 * scheduled release ran (a restart loses in-process timers; this finds them). Each hold is its own
 * operation, and one that fails is counted and passed over, so one inconsistent hold never fails
 * the sweep (nor the start, which runs a sweep) nor keeps the rest of the house held.
 */
export async function sweepOverdueHolds(ctx: AppContext, batchesMax = 50): Promise<number> {
  const now = ctx.clock.now();
  return sweepByKeyset(ctx, {
    pass: 'expiry-sweep',
    pageSize: limits.expirySweepBatchMax,
    pagesMax: batchesMax,
    fetch: (after, limit) => ctx.store.overdueHolds(now, after, limit),
    positionOf: (hold) => ({ at: hold.expiresAt, id: hold.holdId }),
    async handle(page) {
      let freed = 0;
      for (const hold of page) {
        try {
          const outcome = await ctx.store.lapseHold({ holdId: hold.holdId, event: 'EXPIRE', expectedExpiresAt: hold.expiresAt, now, waitlist: await waitlistTerms(ctx, hold, now) });
          if (!outcome.ok) continue; // moved on since the page was read
          scheduleOffered(ctx, outcome);
          ctx.telemetry.holdsExpired(1, [(now - hold.expiresAt) / 1000]);
          freed++;
        } catch (error) {
          ctx.telemetry.jobFailed('expiry-sweep', error);
        }
      }
      return freed;
    },
  });
}
