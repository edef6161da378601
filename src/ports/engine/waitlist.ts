import type { WaitlistEntry } from '../../domain/index.js';
import type { WaitlistOffer } from './inventory.js';

/**
 * The waitlist (候补). Every operation is one short transaction; the partial unique index "one
 * live entry (WAITING or OFFERED) per buyer and show" is the guard of joinWaitlist.
 */
export interface JoinWaitlistInput {
  readonly entryId: string;
  readonly showId: string;
  readonly userId: string;
  readonly sectionId: string | null;
  readonly quantity: number;
  readonly now: number;
}

export type JoinWaitlistOutcome =
  | { readonly ok: true; readonly entry: WaitlistEntry }
  | { readonly ok: false; readonly code: 'WAITLIST_ALREADY_JOINED'; readonly entry: WaitlistEntry | null };

export type LeaveWaitlistOutcome =
  | { readonly ok: true; readonly entry: WaitlistEntry }
  | { readonly ok: false; readonly code: 'WAITLIST_NOT_FOUND' };

/**
 * Offers freed inventory to the next entry in line, in ONE transaction: the WAITING entries of the
 * show in order of joining (joinedAt, entryId), at most waitlistLimits.offerScanMax of them, are
 * tried first fit: the first whose section has `quantity` seats still AVAILABLE (seats sold seat
 * by seat; lowest section, row, seat first) or `quantity` units of stock (a counted section) gets
 * them: they are taken by the same conditional update as a claim (status = 'AVAILABLE', stock
 * available >= n), counted against the buyer's cap (an entry the cap refuses is skipped), a hold
 * ACTIVE until `claimUntil` is inserted with its lines, the entry moves WAITING -> OFFERED
 * (conditional on WAITING) with the hold id, and 'hold.created' and 'waitlist.offered' are written
 * to the outbox. A buyer who took the seats first simply leaves nothing to offer: never both.
 */
export interface OfferWaitlistInput {
  readonly showId: string;
  /** The id of the hold to create (made by the application). */
  readonly holdId: string;
  readonly now: number;
  readonly claimUntil: number;
  /** The show's per-buyer limit (domain seatLimitOf). */
  readonly userUnitsMax: number;
}

export type OfferWaitlistOutcome =
  | ({ readonly ok: true } & WaitlistOffer)
  /** No WAITING entry of the show could be served from what is free now. */
  | { readonly ok: false; readonly code: 'NOTHING_TO_OFFER' };

/** An offered hold ended: paid (CLAIMED) or lapsed (LAPSED). Conditional on OFFERED with that hold. */
export interface SettleWaitlistOfferInput {
  readonly holdId: string;
  readonly event: 'CLAIM' | 'LAPSE';
  readonly now: number;
}

export interface WaitlistStore {
  joinWaitlist(input: JoinWaitlistInput): Promise<JoinWaitlistOutcome>;
  /** The buyer's live entry of the show -> LEFT (an offered hold stays until it lapses, then goes on). */
  leaveWaitlist(input: { readonly showId: string; readonly userId: string; readonly now: number }): Promise<LeaveWaitlistOutcome>;
  offerWaitlist(input: OfferWaitlistInput): Promise<OfferWaitlistOutcome>;
  /** The entry moved, or null when no OFFERED entry has that hold (already settled, or not a waitlist hold). */
  settleWaitlistOffer(input: SettleWaitlistOfferInput): Promise<WaitlistEntry | null>;
  /** The buyer's entries, newest first, at most `limit`. */
  waitlistOfUser(userId: string, limit: number): Promise<WaitlistEntry[]>;
  /** How many entries of the show are WAITING (cheap: the partial index). */
  waitingCount(showId: string): Promise<number>;
}
