import { createHash } from 'node:crypto';
import type { AppContext } from './context.js';
import { AppError } from './errors.js';
import { holdSeats, type PlaceHoldCommand, type PlacedHold } from './holds.js';
import { beginKey } from './orders.js';

/** What a key's record keeps of the hold it made: enough to answer with the hold as it is now. */
interface StoredHold {
  readonly holdId: string;
  readonly adjacent: boolean;
}

export interface KeyedHold extends PlacedHold {
  /** True when this answers an earlier request with the same key (no new hold was placed). */
  readonly replayed: boolean;
}

/** What "the same request" means for a hold's key: the same show and the same body. */
export function holdRequestHash(command: PlaceHoldCommand): string {
  return createHash('sha256').update(JSON.stringify({ showId: command.showId, request: command.request, holdSeconds: command.holdSeconds ?? null })).digest('hex');
}

/**
 * A hold placed under X-Idempotency-Key, with the orders' semantics (seed 002 §5: a retried hold
 * must not take stock twice). The key's record (scope hold:<user>) is written IN_FLIGHT before the
 * claim by one conditional insert on the unique (scope, key): of any number of concurrent
 * duplicates exactly one places the hold, the others hear IDEMPOTENCY_REQUEST_IN_FLIGHT (409), or,
 * once it is done, the same hold (replayed). The same key with another body is
 * IDEMPOTENCY_KEY_REUSED (422). A refused claim frees the key (nothing was taken), so the buyer may
 * retry it; only a placed hold is remembered, and answered as it is now (its current status and expiry).
 */
export async function holdSeatsOnce(ctx: AppContext, command: PlaceHoldCommand, idempotencyKey: string): Promise<KeyedHold> {
  const scope = `hold:${command.userId}`;
  const begun = await beginKey<StoredHold>(ctx, scope, idempotencyKey, holdRequestHash(command));
  if (begun.kind === 'replay') {
    const stored = begun.order;
    const hold = await ctx.store.getHold(stored.holdId);
    if (hold === null) throw new AppError('HOLD_NOT_FOUND', 'the hold this key placed no longer exists');
    return { hold, adjacent: stored.adjacent, replayed: true };
  }
  const { claim } = begun;
  let placed: PlacedHold;
  try {
    placed = await holdSeats(ctx, command);
  } catch (error) {
    await ctx.store.removeKey(claim).catch(() => undefined);
    throw error;
  }
  const stored: StoredHold = { holdId: placed.hold.holdId, adjacent: placed.adjacent };
  // If a retry took the key over meanwhile (this request outlived the in-flight bound), completeKey
  // changes nothing and that retry answers for the key; this hold still answers this request.
  await ctx.store.completeKey({ ...claim, outcome: 'SUCCEEDED', responseBody: JSON.stringify(stored) });
  return { ...placed, replayed: false };
}
