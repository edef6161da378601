import { claimWindowMs, seatLimitOf, unitsOf, waitlistLimits, type Hold } from '../domain/index.js';
import type { LapseHoldInput, LapseHoldOutcome } from '../ports/engine/index.js';
import type { AppContext } from './context.js';
import { enqueueJob, expireHoldKey } from './enqueue.js';

/**
 * What a lapse needs to hand its seats to the waitlist in its own transaction (LapseHoldInput
 * .waitlist): a new hold id per entry it may serve (at most one per unit freed), the claim window,
 * the show's per-buyer limit. Every lapse of this application passes it, so seats that come back
 * go to the people waiting before anyone else can take them (issue 25 item 5).
 */
export async function waitlistTerms(ctx: AppContext, hold: Hold, now: number): Promise<NonNullable<LapseHoldInput['waitlist']>> {
  const show = await ctx.seatMaps.show(hold.showId);
  const n = Math.max(1, unitsOf(hold.lines));
  return {
    holdIds: Array.from({ length: n }, () => ctx.ids.newId('hold')),
    claimUntil: now + claimWindowMs(ctx.policy.waitlistClaimSeconds ?? waitlistLimits.claimSecondsDefault),
    userUnitsMax: show === null ? ctx.policy.maxSeatsPerUserDefault : seatLimitOf(show, ctx.policy.maxSeatsPerUserDefault),
  };
}

/** The offered holds expire like any hold (the sweep is the net). */
export function scheduleOffered(ctx: AppContext, outcome: LapseHoldOutcome): void {
  if (!outcome.ok) return;
  for (const offer of outcome.offered ?? []) enqueueJob(ctx, 'expire-hold', { holdId: offer.hold.holdId }, { key: expireHoldKey(offer.hold.holdId), runAt: offer.hold.expiresAt });
}
