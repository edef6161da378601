import { limits } from './limits.js';
import { fail, ok, type Result } from './result.js';
import { waitlistMachine, type WaitlistStatus } from './states.js';

/**
 * A buyer waiting for seats of a sold-out show (候补). One live entry (WAITING or OFFERED) per
 * buyer and show, guarded by a partial unique index on both stores. Seats that come back are
 * offered in order of joining (joinedAt, then entryId) as an ordinary hold for the buyer, which
 * the buyer pays for through the usual checkout before `claimUntil`.
 */
export interface WaitlistEntry {
  readonly entryId: string;
  readonly showId: string;
  readonly userId: string;
  /** Only seats of this section; any section sold seat by seat when null. */
  readonly sectionId: string | null;
  readonly quantity: number;
  readonly status: WaitlistStatus;
  readonly joinedAt: number;
  /** The hold offered (set when OFFERED, kept afterwards for the record). */
  readonly holdId: string | null;
  /** When the offer's hold expires (epoch ms); null until offered. */
  readonly claimUntil: number | null;
  readonly updatedAt: number;
}

export const waitlistLimits = Object.freeze({
  quantityMin: 1,
  /** An entry asks for at most what one hold may take. */
  quantityMax: limits.seatsPerHoldMax,
  /** The claim window of an offer: long enough to pay, short enough that the line moves. */
  claimSecondsMin: 60,
  claimSecondsMax: 86_400,
  claimSecondsDefault: 900,
  /** WAITING entries one offer pass looks at before giving up (first fit in order of joining). */
  offerScanMax: 50,
  /** Entries a buyer's own list shows. */
  entriesPerUserListMax: 100,
});

/** Checks a join request against the show's sections (plain data: the caller read the show). */
export function checkJoin(input: { quantity: number; sectionId: string | null }, sections: ReadonlyMap<string, { readonly seatBySeat: boolean }>, perUserMax: number): Result<void> {
  if (!Number.isInteger(input.quantity) || input.quantity < waitlistLimits.quantityMin || input.quantity > Math.min(waitlistLimits.quantityMax, perUserMax)) {
    return fail('INVALID_WAITLIST_REQUEST', `quantity must be between ${waitlistLimits.quantityMin} and ${Math.min(waitlistLimits.quantityMax, perUserMax)}`, { quantity: input.quantity });
  }
  if (input.sectionId !== null && !sections.has(input.sectionId)) {
    return fail('INVALID_WAITLIST_REQUEST', 'no such section in this show', { sectionId: input.sectionId });
  }
  if (input.sectionId === null && ![...sections.values()].some((s) => s.seatBySeat)) {
    return fail('INVALID_WAITLIST_REQUEST', 'this show sells by count: name the section', {});
  }
  return ok(undefined);
}

/** The claim window in ms, kept within bounds whatever the setting says. */
export function claimWindowMs(claimSeconds: number): number {
  const s = Math.min(waitlistLimits.claimSecondsMax, Math.max(waitlistLimits.claimSecondsMin, Math.floor(claimSeconds)));
  return s * 1000;
}

/** Whether the buyer may still leave (WAITING or OFFERED). */
export const canLeave = (status: WaitlistStatus): boolean => waitlistMachine.can(status, 'LEAVE');
