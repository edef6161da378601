import { fail, ok, type Result } from './result.js';

/**
 * The per-buyer limit of a show: its own, or the configured default for a show that set none,
 * never above the show's capacity.
 */
export function seatLimitOf(show: { readonly maxSeatsPerUser: number | null; readonly capacity: number }, defaultSeatsPerUser: number): number {
  return Math.min(show.maxSeatsPerUser ?? defaultSeatsPerUser, show.capacity);
}

/** What an organiser may set: from 1 up to the show's capacity. */
export function checkSeatLimitSetting(maxSeatsPerUser: number | null, capacity: number): Result<true> {
  if (maxSeatsPerUser === null) return ok(true);
  if (!Number.isInteger(maxSeatsPerUser) || maxSeatsPerUser < 1 || maxSeatsPerUser > capacity) {
    return fail('INVALID_PURCHASE_LIMIT', `maxSeatsPerUser must be an integer from 1 to the show's capacity (${capacity})`, { capacity });
  }
  return ok(true);
}
