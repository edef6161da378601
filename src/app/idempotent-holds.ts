import { createHash } from 'node:crypto';
import { formsAdjacentRun, type Hold } from '../domain/index.js';
import type { KeyClaim } from '../ports/engine/index.js';
import type { AppContext } from './context.js';
import { AppError } from './errors.js';
import { holdSeats, type PlaceHoldCommand, type PlacedHold } from './holds.js';
import { beginKey, underClaim } from './orders.js';

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
 * The id of the hold a keyed request places, derived from its key record (scope, key and the
 * record's createdAt, which only that request's record has): a retry that takes the key over from
 * a request that died with its process after its claim committed, before it completed the key,
 * finds that hold by this id (one read) and answers with it, instead of claiming again and being
 * refused by the buyer's own orphan hold (NOT_ENOUGH_SEATS, PURCHASE_LIMIT_REACHED). The time
 * comes first, as in every other id, so new holds land at the end of the index.
 */
export function keyedHoldId(claim: KeyClaim): string {
  const digest = createHash('sha256').update(`${claim.scope}\u0000${claim.key}\u0000${claim.createdAt}`).digest('base64url');
  return `hld_${claim.createdAt.toString(36).padStart(9, '0')}${digest.slice(0, 22)}`;
}

/**
 * A hold placed under X-Idempotency-Key, with the orders' semantics (seed 002 §5: a retried hold
 * must not take stock twice). The key's record (scope hold:<user>) is written IN_FLIGHT before the
 * claim by one conditional insert on the unique (scope, key): of any number of concurrent
 * duplicates exactly one places the hold, the others hear IDEMPOTENCY_REQUEST_IN_FLIGHT (409), or,
 * once it is done, the same hold (replayed). The same key with another body is
 * IDEMPOTENCY_KEY_REUSED (422). A refused claim frees the key (nothing was taken), so the buyer may
 * retry it; only a placed hold is remembered, and answered as it is now (its current status and expiry).
 * A retry that takes over a dead request's key (issue 33, Why 9) first looks for the hold that
 * request placed (keyedHoldId of its record) and answers with it at once, as a replay.
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
  const { claim, takenOver } = begun;
  if (takenOver !== null) {
    const orphan = await ctx.store.getHold(keyedHoldId(takenOver));
    if (orphan !== null && orphan.userId === command.userId && orphan.showId === command.showId) {
      const stored: StoredHold = { holdId: orphan.holdId, adjacent: await adjacentOf(ctx, orphan) };
      await ctx.store.completeKey({ ...claim, outcome: 'SUCCEEDED', responseBody: JSON.stringify(stored) });
      return { hold: orphan, adjacent: stored.adjacent, replayed: true };
    }
  }
  const placed = await underClaim(ctx, claim, () => holdSeats(ctx, { ...command, holdId: keyedHoldId(claim) }), (p): StoredHold => ({ holdId: p.hold.holdId, adjacent: p.adjacent }));
  return { ...placed, replayed: false };
}

/** Whether a hold's seats sit side by side (what its claim answered, worked out again for a hold found after a crash). */
async function adjacentOf(ctx: AppContext, hold: Hold): Promise<boolean> {
  const line = hold.lines.length === 1 ? hold.lines[0] : undefined;
  if (line?.kind !== 'SEATS') return false;
  const entry = await ctx.seatMaps.get(hold.showId);
  return entry !== null && formsAdjacentRun(ctx.seatMaps.placesOf(entry, line.seatIds));
}
