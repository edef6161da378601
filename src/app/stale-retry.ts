import { limits } from '../domain/index.js';
import type { Stale } from '../ports/engine/index.js';
import { AppError } from './errors.js';

/** What one attempt of a plan gives back: the answer, or the store's "stale, decide again". */
export type Attempt<T> = { readonly done: true; readonly value: T } | { readonly done: false; readonly stale: string };

export const done = <T>(value: T): Attempt<T> => ({ done: true, value });
export const again = (stale: Stale): Attempt<never> => ({ done: false, stale: stale.stale });

/**
 * Re-reads and re-decides while the store answers stale (someone else moved first), at most
 * limits.staleRetriesMax times; past that the request answers 503 BUSY with Retry-After rather
 * than spinning. Each attempt must read afresh: the previous read is what went stale.
 */
export async function withStaleRetries<T>(operation: string, attempt: () => Promise<Attempt<T>>): Promise<T> {
  let last = '';
  for (let tries = 0; tries <= limits.staleRetriesMax; tries++) {
    const result = await attempt();
    if (result.done) return result.value;
    last = result.stale;
  }
  throw new AppError('BUSY', `too many concurrent changes to this ${last}; try again shortly`, {
    operation, retryAfterSeconds: limits.busyRetryAfterSeconds,
  });
}
