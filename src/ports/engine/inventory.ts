import type { Hold, Order, SeatPoint, WaitlistEntry } from '../../domain/index.js';
import type { InventoryChanges, KeysetPosition, Page, Stale } from './common.js';

/**
 * Kind A: check-and-take. The adapter decides against the CURRENT stored state, inside one short
 * transaction, so concurrent buyers get different seats or units; nothing is decided from a
 * snapshot the application read earlier.
 *
 * Every claim, all or nothing, in one transaction:
 * 1. the per-user counter of the show (table user_show_units(user_id, show_id, units), CHECK
 *    units >= 0): conditional increment `units + n <= userUnitsMax` (a missing row counts as 0).
 *    Refused -> PURCHASE_LIMIT_REACHED { limit: userUnitsMax, claimed: units before this claim }.
 * 2. the conditional take of the seats or units (see each operation).
 * 3. the insert of the hold (status ACTIVE, extensions 0, createdAt = now, expiresAt) and its lines.
 * The hold's totalPriceCents is computed by the adapter: each unit at its section's priceCents.
 * The hold's lines: one SEATS line per section touched, seat ids in the order the claim took them
 * (claimSeats: request order); one UNITS line for claimUnits.
 *
 * The application checked before calling: the show exists and its sale is open at `now`; 1 <= n <=
 * limits.seatsPerHoldMax; no duplicate seat ids; the hold duration is within policy; the section
 * exists and has the right kind. Adapters do not re-check those (they may, as refusals above).
 *
 * Order of the checks when several fail (so both adapters answer alike): SEAT_NOT_FOUND, then
 * PURCHASE_LIMIT_REACHED, then SEAT_UNAVAILABLE / NOT_ENOUGH_SEATS.
 */
export interface ClaimBase {
  /** New, made by the application. */
  readonly holdId: string;
  readonly showId: string;
  readonly userId: string;
  readonly now: number;
  readonly expiresAt: number;
  /** The show's per-buyer limit (domain seatLimitOf), in units across every line. */
  readonly userUnitsMax: number;
}

export interface ClaimSeatsInput extends ClaimBase {
  /** Seats of sections sold by SEAT; at least one, no duplicates. */
  readonly seatIds: readonly string[];
}

export interface ClaimBestAvailableInput extends ClaimBase {
  readonly quantity: number;
  /** Only this section (a SEATED section sold by SEAT); any such section when absent. */
  readonly sectionId?: string;
  /** The seat to sit nearest; the stage's front-centre on the map as drawn (domain venueGeometry) when absent. */
  readonly near?: SeatPoint;
  /** true: only a run of `quantity` side-by-side seats in one row will do (else NOT_ENOUGH_SEATS). */
  readonly adjacentOnly: boolean;
  /** At least this many of the chosen seats must be accessible seats. */
  readonly accessibleMin?: number;
}

export interface ClaimUnitsInput extends ClaimBase {
  /** A counted section: GENERAL_ADMISSION, or SEATED with sellBy QUANTITY. */
  readonly sectionId: string;
  readonly quantity: number;
}

export type ClaimOutcome =
  | {
      readonly ok: true;
      readonly hold: Hold;
      /** The seats sit side by side in one row (false for units and for a single scattered pick). */
      readonly adjacent: boolean;
      readonly changes: InventoryChanges;
    }
  /** Seats that do not exist in this show, or belong to a section sold by QUANTITY. */
  | { readonly ok: false; readonly code: 'SEAT_NOT_FOUND'; readonly seatIds: readonly string[] }
  /** Seats with a live claim (held or sold) at the time of the claim. */
  | { readonly ok: false; readonly code: 'SEAT_UNAVAILABLE'; readonly seatIds: readonly string[] }
  /** Best-available found no fitting choice, or the stock left is below the quantity. */
  | { readonly ok: false; readonly code: 'NOT_ENOUGH_SEATS'; readonly available?: number }
  | { readonly ok: false; readonly code: 'PURCHASE_LIMIT_REACHED'; readonly limit: number; readonly claimed: number };

export interface LapseHoldInput {
  readonly holdId: string;
  /**
   * RELEASE: the buyer gives it back (or a failed payment ends it): precondition status ACTIVE and
   * expires_at = expectedExpiresAt (an extension in between makes it stale).
   * EXPIRE: precondition status ACTIVE and expires_at <= now.
   */
  readonly event: 'RELEASE' | 'EXPIRE';
  readonly expectedExpiresAt: number;
  readonly now: number;
  /**
   * The waitlist goes first: when given, what the lapse freed is offered to the show's waitlist
   * IN THE SAME TRANSACTION (exactly as offerWaitlist does, repeated while entries are served, at
   * most `holdIds.length` offers), so freed seats are never AVAILABLE to the public while
   * someone who fits is waiting. Absent: nothing is offered.
   */
  readonly waitlist?: { readonly holdIds: readonly string[]; readonly claimUntil: number; readonly userUnitsMax: number };
}

/** What the waitlist got in a lapse (see LapseHoldInput.waitlist). */
export interface WaitlistOffer {
  readonly entry: WaitlistEntry;
  readonly hold: Hold;
  readonly changes: InventoryChanges;
}

export type LapseHoldOutcome =
  | {
      readonly ok: true;
      /** The hold as stored after: status RELEASED or EXPIRED. */
      readonly hold: Hold;
      /** The unpaid order cancelled with it, if there was one. */
      readonly cancelledOrder: Order | null;
      readonly changes: InventoryChanges;
      /** Offers made to the waitlist in the same transaction, in order (empty when none). */
      readonly offered?: readonly WaitlistOffer[];
    }
  | { readonly ok: false; readonly code: 'HOLD_NOT_FOUND' }
  | Stale<'hold'>;

export interface ExtendHoldInput {
  readonly holdId: string;
  /** Preconditions: status ACTIVE, expires_at and extensions as read (else stale 'hold'). */
  readonly expectedExpiresAt: number;
  readonly expectedExtensions: number;
  /** Effect: expires_at and extensions become these (the domain computed them). */
  readonly expiresAt: number;
  readonly extensions: number;
}

export type ExtendHoldOutcome = { readonly ok: true; readonly hold: Hold } | { readonly ok: false; readonly code: 'HOLD_NOT_FOUND' } | Stale<'hold'>;

export interface InventoryStore {
  /**
   * Claims exactly these seats. Take: every seat gets a live claim by the new hold, guarded by the
   * partial unique index "one live claim per seat" (seat status AVAILABLE -> HELD, hold_id set,
   * version + 1, conditional on status AVAILABLE). Any seat already claimed -> SEAT_UNAVAILABLE
   * with every such seat id; nothing is written (the per-user increment is rolled back too).
   */
  claimSeats(input: ClaimSeatsInput): Promise<ClaimOutcome>;
  /**
   * Chooses and claims `quantity` seats, deciding against the current state:
   * 1. rows = domain candidateRows(show.seatMap, {section, near}) — rows of SEATED sections sold
   *    by SEAT, across sections, nearest the preferred point first (the stage's front-centre on
   *    the map as drawn, or `near`);
   * 2. read the free seats of the next window of those rows, each row once (growing steps, at most
   *    limits.bestAvailableRowsMax rows at a time), without locks;
   * 3. domain chooseBestAvailable(show.seatMap, thoseSeats, {quantity, section, near,
   *    adjacentOnly, accessibleMin}); while it finds nothing, or an unread row could hold a
   *    better choice (RowRef.minDistance below the choice's score), read the next window; when
   *    no row is left -> NOT_ENOUGH_SEATS;
   * 4. take the chosen seats exactly as claimSeats does (PostgreSQL: locking only them, SKIP
   *    LOCKED, so concurrent buyers skip each other's seats instead of queueing); a seat lost to a
   *    concurrent claim in between (SQLite cannot lose one: the choice and the take share the
   *    write lock) makes the adapter choose again (bounded), never answers SEAT_UNAVAILABLE.
   * A `sectionId` that is not a SEATED section sold by SEAT -> NOT_ENOUGH_SEATS (a counted
   * section is claimed with claimUnits).
   * `adjacent` in the outcome is the chooser's answer.
   */
  claimBestAvailable(input: ClaimBestAvailableInput): Promise<ClaimOutcome>;
  /**
   * Claims `quantity` units of a counted section. Take: conditional decrement of the section's
   * stock `available >= quantity` (CHECK 0 <= available <= capacity). PostgreSQL: the stock is
   * split into bucket rows; one statement takes from one unlocked bucket with enough, picked at
   * random (tried again a few times when every such bucket is busy); only when no bucket has
   * enough are all the section's buckets locked and taken from together, all-or-nothing. Not enough ->
   * NOT_ENOUGH_SEATS { available: what is left }. The hold gets one UNITS line.
   */
  claimUnits(input: ClaimUnitsInput): Promise<ClaimOutcome>;
  /**
   * Ends an ACTIVE hold (see LapseHoldInput for the preconditions; hold missing -> HOLD_NOT_FOUND;
   * any other state -> stale 'hold'). Effects, in one transaction, each exactly once because all
   * are conditional on the hold row's ACTIVE -> RELEASED/EXPIRED update:
   * - the hold's status becomes RELEASED or EXPIRED;
   * - its seats (live claims of this hold) become AVAILABLE, hold_id null, version + 1;
   * - its UNITS lines go back to their sections' stock (available + quantity);
   * - the user's units of the show go down by the hold's units;
   * - the hold's order in INIT or PENDING_PAY (at most one: "one live order per hold") becomes
   *   CANCELLED, updated_at = now: an unpaid order never outlives its seats.
   */
  lapseHold(input: LapseHoldInput): Promise<LapseHoldOutcome>;
  /** Moves the expiry of an ACTIVE hold (see ExtendHoldInput). Nothing else changes. */
  extendHold(input: ExtendHoldInput): Promise<ExtendHoldOutcome>;
  getHold(holdId: string): Promise<Hold | null>;
  /**
   * The user's ACTIVE holds that are not overdue at `now` (expiresAt > now), soonest to expire
   * first (expiresAt, then holdId), one page of them. Read through an index of ACTIVE holds by
   * (user_id, expires_at, hold_id), so the cost grows with the user's live holds, not with the
   * table. Preconditions: page.limit >= 1 (the application bounds it). Read only.
   */
  activeHoldsOfUser(userId: string, now: number, page: Page): Promise<Hold[]>;
  /** ACTIVE holds with expiresAt <= now, by (expiresAt, holdId), strictly after `after` when given. */
  overdueHolds(now: number, after: KeysetPosition | null, limit: number): Promise<Hold[]>;
}
