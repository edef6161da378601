import { fail, ok, type Result } from './result.js';

/**
 * Seats of one show already tied to one buyer: `held` in ACTIVE holds (with or without an order
 * on the way to payment), `bought` in CONFIRMED holds whose order is still live (not cancelled or
 * refunded). Released and expired holds, and cancelled or refunded orders, tie up nothing.
 */
export interface SeatClaims {
  readonly held: number;
  readonly bought: number;
}

/**
 * The per-buyer limit of a show: its own, or the configured default for a show that set none,
 * never above the show's capacity.
 */
export function seatLimitOf(show: { readonly maxSeatsPerUser: number | null; readonly capacity: number }, defaultSeatsPerUser: number): number {
  return Math.min(show.maxSeatsPerUser ?? defaultSeatsPerUser, show.capacity);
}

/** One buyer may hold and buy at most `limit` seats of a show, counting what they already have. */
export function checkPurchaseLimit(limit: number, claims: SeatClaims, requested: number): Result<true> {
  if (claims.held + claims.bought + requested <= limit) return ok(true);
  return fail('PURCHASE_LIMIT_REACHED', `one buyer may hold or buy at most ${limit} seats of this show`, {
    limit,
    held: claims.held,
    bought: claims.bought,
    requested,
  });
}

/** What an organiser may set: from 1 up to the show's capacity. */
export function checkSeatLimitSetting(maxSeatsPerUser: number | null, capacity: number): Result<true> {
  if (maxSeatsPerUser === null) return ok(true);
  if (!Number.isInteger(maxSeatsPerUser) || maxSeatsPerUser < 1 || maxSeatsPerUser > capacity) {
    return fail('INVALID_PURCHASE_LIMIT', `maxSeatsPerUser must be an integer from 1 to the show's capacity (${capacity})`, { capacity });
  }
  return ok(true);
}
