import { jobStored, type JobName, type JobOptions, type JobPayloads } from '../ports/jobs.js';
import type { AppContext } from './context.js';

/**
 * Enqueues a job without waiting for the queue: the request that asked for it is answered at
 * once. A job the queue cannot take (Redis away) is counted and left to the sweep behind it.
 */
export function enqueueJob<N extends JobName>(ctx: AppContext, name: N, data: JobPayloads[N], options: JobOptions): void {
  const pending = ctx.jobs.enqueue(name, data, options);
  // The in-process queue has already stored it: no handler, no microtask (every hold comes here).
  if (pending !== jobStored) pending.catch((error: unknown) => ctx.telemetry.jobFailed(`enqueue-${name}`, error));
}

/** The de-duplication key of a hold's release. */
export const expireHoldKey = (holdId: string): string => `expire-hold:${holdId}`;

/** Drops a hold's waiting release (confirmed, released, or moved by an extension). */
export function cancelExpiry(ctx: AppContext, holdId: string): void {
  const pending = ctx.jobs.cancel(expireHoldKey(holdId));
  if (pending !== jobStored) pending.catch((error: unknown) => ctx.telemetry.jobFailed('cancel-expire-hold', error));
}
