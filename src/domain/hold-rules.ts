import type { Hold } from './entities.js';
import { limits } from './limits.js';
import { fail, ok, type Result } from './result.js';
import { saleWindow, type Seat, type Show } from './show.js';
import { holdMachine, seatMachine, type HoldEvent } from './states.js';

export interface PlaceHoldInput {
  readonly show: Show;
  readonly holdId: string;
  readonly userId: string;
  readonly requestedSeatIds: readonly string[];
  /** The current state of the requested seats that exist (missing ones are absent). */
  readonly seats: readonly Seat[];
  readonly holdSeconds: number;
  readonly holdSecondsMax: number;
  readonly now: number;
}

export interface HoldChange {
  readonly hold: Hold;
  readonly seats: Seat[];
}

/** All or nothing: every requested seat becomes HELD by the new hold, or nothing changes. */
export function placeHold(input: PlaceHoldInput): Result<HoldChange> {
  const { show, requestedSeatIds, now } = input;
  if (saleWindow(show, now).status !== 'ON_SALE') return fail('SALE_NOT_OPEN', 'the sale for this show is not open');
  if (requestedSeatIds.length === 0) return fail('NOT_ENOUGH_SEATS', 'a hold needs at least one seat');
  if (requestedSeatIds.length > limits.seatsPerHoldMax) {
    return fail('TOO_MANY_SEATS', `a hold may take at most ${limits.seatsPerHoldMax} seats`, { max: limits.seatsPerHoldMax });
  }
  if (new Set(requestedSeatIds).size !== requestedSeatIds.length) return fail('DUPLICATE_SEAT', 'a seat is listed twice');
  const ttl = input.holdSeconds;
  if (!Number.isInteger(ttl) || ttl < limits.holdTtlSecondsMin || ttl > input.holdSecondsMax) {
    return fail('INVALID_HOLD_DURATION', `holdSeconds must be between ${limits.holdTtlSecondsMin} and ${input.holdSecondsMax}`);
  }
  const byId = new Map(input.seats.map((s) => [s.seatId, s]));
  const missing = requestedSeatIds.filter((id) => !byId.has(id));
  if (missing.length > 0) return fail('SEAT_NOT_FOUND', 'some seats do not exist in this show', { seatIds: missing });
  const taken = requestedSeatIds.filter((id) => byId.get(id)?.status !== 'AVAILABLE');
  if (taken.length > 0) return fail('SEAT_UNAVAILABLE', 'some seats are no longer available', { seatIds: taken });

  const seats: Seat[] = [];
  for (const id of requestedSeatIds) {
    const seat = byId.get(id) as Seat;
    const next = seatMachine.transition(seat.status, 'HOLD');
    if (!next.ok) return next;
    seats.push({ ...seat, status: next.value, holdId: input.holdId, version: seat.version + 1 });
  }
  const hold: Hold = {
    holdId: input.holdId,
    showId: show.showId,
    userId: input.userId,
    seatIds: [...requestedSeatIds],
    totalPriceCents: seats.reduce((sum, s) => sum + s.priceCents, 0),
    status: 'ACTIVE',
    createdAt: now,
    expiresAt: now + ttl * 1000,
    extensions: 0,
  };
  return ok({ hold, seats });
}

/** Ends an ACTIVE hold (EXPIRE or RELEASE) and frees every seat it still holds. */
export function lapseHold(hold: Hold, seats: readonly Seat[], event: Extract<HoldEvent, 'EXPIRE' | 'RELEASE'>): Result<HoldChange> {
  const status = holdMachine.transition(hold.status, event);
  if (!status.ok) return status;
  const freed: Seat[] = [];
  for (const seat of seats) {
    if (seat.holdId !== hold.holdId) continue;
    const next = seatMachine.transition(seat.status, 'RELEASE');
    if (!next.ok) return next;
    freed.push({ ...seat, status: next.value, holdId: null, version: seat.version + 1 });
  }
  if (freed.length !== hold.seatIds.length) {
    return fail('INVARIANT_VIOLATED', `hold ${hold.holdId} held ${hold.seatIds.length} seats but ${freed.length} were found held by it`);
  }
  return ok({ hold: { ...hold, status: status.value }, seats: freed });
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
  if (isOverdue(hold, now)) return fail('HOLD_EXPIRED', 'the hold has expired; hold the seats again');
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

export function isOverdue(hold: Pick<Hold, 'status' | 'expiresAt'>, now: number): boolean {
  return hold.status === 'ACTIVE' && hold.expiresAt <= now;
}
