import { claimWindowMs, seatLimitOf, unitsOf, waitlistLimits, type Hold, type Show } from '../domain/index.js';
import { passBuyerGate, showActivity } from './buyer-gate.js';
import { AppError } from './errors.js';
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
  // No hold ids, no offer: the gate of path 'waitlist-offer' is closed (the room is on, the sale ended, the show cancelled).
  const n = show !== null && !offersOpen(ctx, show) ? 0 : Math.max(1, unitsOf(hold.lines));
  return {
    holdIds: Array.from({ length: n }, () => ctx.ids.newId('hold')),
    claimUntil: now + claimWindowMs(ctx.policy.waitlistClaimSeconds ?? waitlistLimits.claimSecondsDefault),
    userUnitsMax: show === null ? ctx.policy.maxSeatsPerUserDefault : seatLimitOf(show, ctx.policy.maxSeatsPerUserDefault),
  };
}

/**
 * The gate of an offer (path 'waitlist-offer'): the buyer first in line sent no request, so there
 * is no token to show. While the show's waiting room is on, what comes back goes to the admitted
 * buyers and offers pause; after the sale ended or once the show is cancelled nothing is offered.
 */
export function offersOpen(ctx: Pick<AppContext, 'rooms' | 'admission' | 'clock'>, show: Show): boolean {
  try {
    passBuyerGate(ctx, { path: 'waitlist-offer', userId: '', activity: showActivity(show), admissionToken: undefined });
    return true;
  } catch (error) {
    if (error instanceof AppError) return false;
    throw error;
  }
}

/** The offered holds expire like any hold (the sweep is the net). */
export function scheduleOffered(ctx: AppContext, outcome: LapseHoldOutcome): void {
  if (!outcome.ok) return;
  for (const offer of outcome.offered ?? []) enqueueJob(ctx, 'expire-hold', { holdId: offer.hold.holdId }, { key: expireHoldKey(offer.hold.holdId), runAt: offer.hold.expiresAt });
}
