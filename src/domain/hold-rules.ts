import type { Hold } from './entities.js';
import { limits } from './limits.js';
import { fail, ok, type Result } from './result.js';
import { saleWindow, type Show } from './show.js';
import { holdMachine, type HoldEvent } from './states.js';

export interface ClaimRequestInput {
  readonly show: Pick<Show, 'saleStartsAt' | 'saleEndsAt' | 'cancelledAt'>;
  /** Units the claim asks for (seats listed, or the quantity). */
  readonly units: number;
  /** The seats listed, when the buyer names them. */
  readonly seatIds?: readonly string[];
  readonly holdSeconds: number;
  readonly holdSecondsMax: number;
  readonly now: number;
}

/**
 * What the application checks before asking the store to claim anything: the sale is open, the
 * claim is between one unit and the per-hold bound, no seat is listed twice, the hold's duration is
 * within policy. Returns when the hold would expire. What is free, and the per-buyer limit, are
 * decided by the store's claim operation against the current state.
 */
export function checkClaimRequest(input: ClaimRequestInput): Result<{ expiresAt: number }> {
  const { now } = input;
  if ((input.show.cancelledAt ?? null) !== null) return fail('SHOW_CANCELLED', 'the show was cancelled: nothing is sold any more');
  if (saleWindow(input.show, now).status !== 'ON_SALE') return fail('SALE_NOT_OPEN', 'the sale for this show is not open');
  if (!Number.isInteger(input.units) || input.units < 1) return fail('NOT_ENOUGH_SEATS', 'a hold needs at least one seat');
  if (input.units > limits.seatsPerHoldMax) {
    return fail('TOO_MANY_SEATS', `a hold may take at most ${limits.seatsPerHoldMax} seats`, { max: limits.seatsPerHoldMax });
  }
  if (input.seatIds !== undefined && new Set(input.seatIds).size !== input.seatIds.length) return fail('DUPLICATE_SEAT', 'a seat is listed twice');
  const ttl = input.holdSeconds;
  if (!Number.isInteger(ttl) || ttl < limits.holdTtlSecondsMin || ttl > input.holdSecondsMax) {
    return fail('INVALID_HOLD_DURATION', `holdSeconds must be between ${limits.holdTtlSecondsMin} and ${input.holdSecondsMax}`);
  }
  return ok({ expiresAt: now + ttl * 1000 });
}

/**
 * How an ACTIVE hold may end now: EXPIRE once overdue, RELEASE before. Returns the event the
 * store's lapseHold operation is given, or the state's refusal.
 */
export function lapseEvent(hold: Hold, wanted: Extract<HoldEvent, 'EXPIRE' | 'RELEASE'>, now: number): Result<Extract<HoldEvent, 'EXPIRE' | 'RELEASE'>> {
  const next = holdMachine.transition(hold.status, wanted);
  if (!next.ok) return next;
  if (wanted === 'EXPIRE' && !isOverdue(hold, now)) return fail('HOLD_NOT_ACTIVE', 'the hold is not overdue');
  if (wanted === 'RELEASE' && isOverdue(hold, now)) return fail('HOLD_EXPIRED', 'the hold has expired; hold the seats again', { status: 'EXPIRED' });
  return ok(wanted);
}

export interface ExtendHoldInput {
  readonly hold: Hold;
  readonly userId: string;
  readonly extendSeconds: number;
  readonly extensionsMax: number;
  /** No extension takes the hold past createdAt + this. */
  readonly lifeSecondsMax: number;
  readonly now: number;
}

/** More time for the buyer, a bounded number of times and never past the hold's hard life cap. */
export function extendHold(input: ExtendHoldInput): Result<Hold> {
  const { hold, now } = input;
  if (hold.userId !== input.userId) return fail('HOLD_NOT_OWNED', 'this hold belongs to someone else');
  const active = requireActiveHold(hold, now);
  if (!active.ok) return active;
  const status = holdMachine.transition(hold.status, 'EXTEND');
  if (!status.ok) return status;
  if (!Number.isInteger(input.extendSeconds) || input.extendSeconds < limits.holdTtlSecondsMin) {
    return fail('INVALID_HOLD_DURATION', `extendSeconds must be at least ${limits.holdTtlSecondsMin}`);
  }
  if (hold.extensions >= input.extensionsMax) {
    return fail('HOLD_EXTENSION_LIMIT', `a hold may be extended at most ${input.extensionsMax} times`, { max: input.extensionsMax });
  }
  const cap = hold.createdAt + input.lifeSecondsMax * 1000;
  const expiresAt = Math.min(hold.expiresAt + input.extendSeconds * 1000, cap);
  if (expiresAt <= hold.expiresAt) {
    return fail('HOLD_EXTENSION_LIMIT', `a hold lives at most ${input.lifeSecondsMax} seconds in all`, { lifeSecondsMax: input.lifeSecondsMax });
  }
  return ok({ ...hold, status: status.value, expiresAt, extensions: hold.extensions + 1 });
}

/** The buyer gives the seats back: only their own hold, and only while it is still active. */
export function releaseHold(hold: Hold, userId: string, now: number): Result<'RELEASE'> {
  if (hold.userId !== userId) return fail('HOLD_NOT_OWNED', 'this hold belongs to someone else');
  const active = requireActiveHold(hold, now);
  if (!active.ok) return active;
  const event = lapseEvent(hold, 'RELEASE', now);
  return event.ok ? ok('RELEASE') : event;
}

/**
 * What every route (extend, release, order, pay) answers for a hold that can no longer change
 * hands, so one state gets one code everywhere and no client ever hears ILLEGAL_TRANSITION:
 * expired (or overdue and not yet swept) is HOLD_EXPIRED; released or confirmed is HOLD_NOT_ACTIVE.
 */
export function requireActiveHold(hold: Hold, now: number): Result<Hold> {
  if (hold.status === 'EXPIRED' || isOverdue(hold, now)) return fail('HOLD_EXPIRED', 'the hold has expired; hold the seats again', { status: 'EXPIRED' });
  if (hold.status !== 'ACTIVE') return fail('HOLD_NOT_ACTIVE', `the hold is ${hold.status.toLowerCase()}`, { status: hold.status });
  return ok(hold);
}

export function isOverdue(hold: Pick<Hold, 'status' | 'expiresAt'>, now: number): boolean {
  return hold.status === 'ACTIVE' && hold.expiresAt <= now;
}
