import { fail, ok, type Result } from './result.js';
import type { QueueEntryState } from './states.js';

/**
 * The virtual waiting room of an activity (issue 24 item 1, seed 003 step 1: the admission token
 * is the right to order). Pure rules: the configuration's bounds, where a new place goes in the
 * line, how many the admitter lets in per pass, and what a buyer is told about the wait.
 */
export const waitingRoomBounds = Object.freeze({
  /** 0 pauses admission; the top is far above what one show's onsale needs. */
  admitPerMinuteMin: 0,
  admitPerMinuteMax: 60_000,
  /** How long an admission lasts: long enough to pick seats and order, short enough to pass the turn on. */
  admissionSecondsMin: 30,
  admissionSecondsMax: 3_600,
  /** The most places one admitter pass lets in for one activity (bounds a pass after a long gap). */
  admitPerPassMax: 1_000,
  /** The longest gap one pass makes up for: a paused or late admitter does not admit a burst. */
  catchUpMsMax: 5_000,
});

export interface WaitingRoomSettings {
  readonly enabled: boolean;
  /** Places admitted per minute; 0 pauses admission. */
  readonly admitPerMinute: number;
  /** How long an admitted buyer may hold and order (the admission token's life). */
  readonly admissionSeconds: number;
}

export interface WaitingRoom extends WaitingRoomSettings {
  readonly activityId: string;
  /** Raised by every change (the per-process caches keep the newest). */
  readonly version: number;
  readonly updatedAt: number;
  /** When the admitter last admitted for this room (0: never), and the fraction of a place it carries. */
  readonly admitClock: number;
  readonly admitCarry: number;
}

export interface QueueEntry {
  readonly queueId: string;
  readonly activityId: string;
  readonly userId: string;
  readonly state: QueueEntryState;
  /**
   * The place in line: band 0 for those who joined before the sale opened (ordered by `draw`, a
   * random key drawn at joining, which is the shuffle at opening), band 1 after (ordered by
   * `joinedAt`, arrival order). Ties break on queueId.
   */
  readonly band: 0 | 1;
  readonly draw: number;
  readonly joinedAt: number;
  readonly admittedAt: number | null;
  /** While ADMITTED: until when the admission lasts. */
  readonly admittedUntil: number | null;
}

/** Checks the organizer's settings against the documented bounds. */
export function checkWaitingRoomSettings(s: WaitingRoomSettings): Result<WaitingRoomSettings> {
  const b = waitingRoomBounds;
  if (!Number.isInteger(s.admitPerMinute) || s.admitPerMinute < b.admitPerMinuteMin || s.admitPerMinute > b.admitPerMinuteMax) {
    return fail('INVALID_WAITING_ROOM', `admitPerMinute must be an integer in ${b.admitPerMinuteMin}..${b.admitPerMinuteMax} (0 pauses admission)`, { field: 'admitPerMinute' });
  }
  if (!Number.isInteger(s.admissionSeconds) || s.admissionSeconds < b.admissionSecondsMin || s.admissionSeconds > b.admissionSecondsMax) {
    return fail('INVALID_WAITING_ROOM', `admissionSeconds must be an integer in ${b.admissionSecondsMin}..${b.admissionSecondsMax}`, { field: 'admissionSeconds' });
  }
  return ok(s);
}

/** Keys drawn for pre-opening joiners: integers below 2^40, far more than any crowd, exact in a double. */
export const drawKeySpace = 2 ** 40;

/**
 * Where a new place goes. Before the sale opens every joiner gets a random key (`random` is
 * injected: a CSPRNG in production, seeded in tests): admitting in key order is a uniformly random
 * permutation of the early crowd, so arriving first with a script buys nothing. After opening,
 * arrival order.
 */
export function placeInLine(now: number, saleStartsAt: number, random: () => number): { band: 0 | 1; draw: number } {
  if (now < saleStartsAt) return { band: 0, draw: Math.floor(random() * drawKeySpace) };
  return { band: 1, draw: 0 };
}

/** Compares two places in admission order (the order the stores' queries use). */
export function compareQueueOrder(a: Pick<QueueEntry, 'band' | 'draw' | 'joinedAt' | 'queueId'>, b: Pick<QueueEntry, 'band' | 'draw' | 'joinedAt' | 'queueId'>): number {
  return a.band - b.band || a.draw - b.draw || a.joinedAt - b.joinedAt || (a.queueId < b.queueId ? -1 : a.queueId > b.queueId ? 1 : 0);
}

/**
 * How many places one admitter pass lets in: the set rate over the time since the last pass (at
 * most catchUpMsMax of it), plus the fraction carried from before; nothing before the sale opens,
 * while paused, or when nothing is left to sell. Returns the whole places and the fraction to carry.
 */
export function admissionsDue(input: {
  readonly admitPerMinute: number;
  readonly elapsedMs: number;
  readonly carried: number;
  readonly open: boolean;
  readonly leftToSell: boolean;
}): { admit: number; carry: number } {
  if (!input.open || !input.leftToSell || input.admitPerMinute <= 0) return { admit: 0, carry: 0 };
  const elapsed = Math.min(Math.max(0, input.elapsedMs), waitingRoomBounds.catchUpMsMax);
  const due = input.carried + (input.admitPerMinute * elapsed) / 60_000;
  const admit = Math.min(Math.floor(due), waitingRoomBounds.admitPerPassMax);
  return { admit, carry: admit === waitingRoomBounds.admitPerPassMax ? 0 : Math.min(due - admit, 1) };
}

/** The wait a buyer is told: their position over the rate; null while admission is paused. */
export function estimatedWaitSeconds(position: number, admitPerMinute: number): number | null {
  if (position <= 0) return 0;
  if (admitPerMinute <= 0) return null;
  return Math.ceil((position * 60) / admitPerMinute);
}
