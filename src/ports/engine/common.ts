import type { SeatStatus } from '../../domain/index.js';

/**
 * Shapes shared by every area of the engine store port.
 *
 * Conventions (binding for every adapter):
 * - Every operation is ONE short transaction (or one statement / one script): it commits whole or
 *   not at all. No operation waits on anything outside the store.
 * - Inputs are plain data; outputs are plain data. No closure, connection or transaction object
 *   crosses the port.
 * - A precondition that someone else's commit broke ("the row is no longer in the state the plan
 *   expects") is the typed outcome `{ ok: false, stale: '<entity>' }` after a full rollback; the
 *   application re-reads and re-decides a bounded number of times (limits.staleRetriesMax).
 * - A refusal the storage guards decide (a unique index, a stock check, a per-user cap) is a typed
 *   outcome `{ ok: false, code: '<CODE>' , ... }`, never a raw driver error.
 * - An operation that cannot get its locks or keeps failing serialization within its bounds throws
 *   StoreBusyError (the edge answers 503 BUSY with Retry-After). Any other thrown error is a bug
 *   or an outage (the edge answers 500 / 503 as for any unexpected error).
 * - Times are epoch milliseconds, chosen by the application (`now`); adapters never read a clock
 *   for a decision.
 */

/** The plan's precondition failed on `entity`: nothing was written. Re-read and re-decide. */
export interface Stale<E extends string = string> {
  readonly ok: false;
  readonly stale: E;
}

export interface Page {
  readonly limit: number;
  readonly offset: number;
}

/**
 * Where a background pass stopped: the (time, id) of the last row it looked at. The next page
 * starts strictly after it, so rows the pass could not settle never hide the ones behind them.
 */
export interface KeysetPosition {
  readonly at: number;
  readonly id: string;
}

/** A seat whose state an operation changed, as it is after the commit. */
export interface SeatChange {
  readonly seatId: string;
  readonly status: SeatStatus;
  readonly holdId: string | null;
  /**
   * The seat's version after the change. Every change of a seat's status increments it by one (a
   * stored column), so the read model can drop a late or repeated change.
   */
  readonly version: number;
}

/**
 * One stock bucket of a counted section as stored after a change (absolute, not a delta). Its
 * version is a stored counter raised by one by every change of its `available`, so a reader can
 * keep the newest state of each bucket whatever order changes reach it in (as seats do), and the
 * sum of a section's bucket versions is a version of its stock that every process agrees on.
 * PostgreSQL splits a section into a few buckets (stock_buckets); SQLite has one, bucket 0.
 */
export interface BucketState {
  readonly bucket: number;
  readonly available: number;
  readonly version: number;
}

/** Counted stock of a section that an operation moved: -n taken, +n given back. */
export interface StockChange {
  readonly sectionId: string;
  readonly delta: number;
  /**
   * The buckets the operation moved, as they are after the change (their `available` add up to
   * `delta` moved). The read model applies these, not the delta, so a change it already has (in a
   * snapshot, or arriving twice) is never counted again. Absent from a sale (`sold` only).
   */
  readonly buckets?: readonly BucketState[];
  /**
   * Units of this counted section that became sold in the operation (a sale, on time or late): the
   * stored sold counter went up by this much. Absent or 0 otherwise. The organizer's figures of a
   * counted section (sold, held, money taken) follow from it without reading the holds.
   */
  readonly sold?: number;
}

/**
 * What an operation changed in a show's inventory, for the seat-map read model
 * (src/app/seat-map-cache.ts), which the application feeds after the operation returns.
 * Both lists are empty when the operation changed no inventory.
 */
export interface InventoryChanges {
  readonly showId: string;
  readonly seats: readonly SeatChange[];
  readonly stock: readonly StockChange[];
}

/**
 * Thrown (not returned) by any operation that could not run within its bounds: a lock wait past
 * lock_timeout, serialization failures or deadlocks still failing after the adapter's bounded
 * retries, a full write queue. Nothing was written. The edge answers 503 BUSY with Retry-After.
 */
export class StoreBusyError extends Error {
  constructor(readonly operation: string, message: string) {
    super(message);
    this.name = 'StoreBusyError';
  }
}
