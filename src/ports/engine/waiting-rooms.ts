import type { AuditEntryDraft } from './change-log.js';
import type { QueueEntry, QueueEntryState, WaitingRoom, WaitingRoomSettings } from '../../domain/index.js';

/**
 * Waiting rooms (issue 24 item 1): an activity's room settings, and the places in its line.
 * Admission order is (band, draw, joinedAt, queueId) ascending (domain compareQueueOrder); the
 * stores index it, so a position is one counted range and an admission one bounded update.
 */
export interface SetWaitingRoomInput {
  readonly activityId: string;
  readonly settings: WaitingRoomSettings;
  readonly now: number;
  /** The organizer's change for the audit trail (issue 26 item 5), written in the same transaction. */
  readonly audit?: AuditEntryDraft | null;
}

export interface JoinQueueInput {
  /** New, made by the application; used only when the user has no place in this activity's line. */
  readonly queueId: string;
  readonly activityId: string;
  readonly userId: string;
  readonly band: 0 | 1;
  readonly draw: number;
  readonly now: number;
}

/** `created` false: the user already had a place (in whatever state): that one is answered. */
export type JoinQueueOutcome = { readonly created: boolean; readonly entry: QueueEntry };

export interface PlacedEntry {
  readonly entry: QueueEntry;
  /** While WAITING: 1 + the WAITING places ahead of it; otherwise 0. */
  readonly position: number;
}

/** A place moved from the state it was read in (compare-and-set), decided by queueEntryMachine. */
export interface MoveQueueEntryInput {
  readonly queueId: string;
  readonly from: QueueEntryState;
  readonly to: QueueEntryState;
  readonly now: number;
  /** REJOIN: the new place (the back of the line). */
  readonly band?: 0 | 1;
  readonly draw?: number;
  /**
   * LEAVE from ADMITTED: the admission the buyer gives up. The move writes 'queue.left' with it in
   * the same transaction, so every process ends the token (the admission's user, activity and end
   * are the token's claims) without reading the store per request.
   */
  readonly leftAdmission?: LeftAdmission;
}

/** An admission given up by leaving the line: what identifies its token. */
export interface LeftAdmission {
  readonly userId: string;
  readonly activityId: string;
  readonly admittedUntil: number;
}

export type MoveQueueEntryOutcome = { readonly ok: true; readonly entry: QueueEntry } | { readonly ok: false; readonly stale: 'queue-entry' };

export interface AdmitQueueInput {
  readonly activityId: string;
  readonly limit: number;
  readonly now: number;
  readonly admissionMs: number;
  readonly expectedClock: number;
  readonly carry: number;
}

export type AdmitQueueOutcome = { readonly ok: true; readonly admitted: number } | { readonly ok: false; readonly stale: 'waiting-room' };

export interface QueueStats {
  readonly waiting: number;
  /** Places ADMITTED now (their window still running). */
  readonly admitted: number;
  /** Places admitted in the minute before `now`. */
  readonly admittedLastMinute: number;
}

export interface WaitingRoomStore {
  /**
   * Upsert of the activity's room (version + 1 on every change), with an outbox row
   * 'waiting-room.changed' in the same transaction so every process's cache follows.
   */
  setWaitingRoom(input: SetWaitingRoomInput): Promise<WaitingRoom>;
  getWaitingRoom(activityId: string): Promise<WaitingRoom | null>;
  /** The rooms that are on, at most `limit` (loaded into each process's cache at start). */
  listEnabledWaitingRooms(limit: number): Promise<WaitingRoom[]>;
  /**
   * Insert-if-absent of the user's place, one statement: the unique (activity, user) index makes
   * two joins of one user, however concurrent, one place; the loser reads the winner's row.
   */
  joinQueue(input: JoinQueueInput): Promise<JoinQueueOutcome>;
  /** The place with its position, or null. */
  getQueueEntry(queueId: string): Promise<PlacedEntry | null>;
  /** Compare-and-set of one place's state (LEAVE, REJOIN, EXPIRE...); stale when it moved meanwhile. */
  moveQueueEntry(input: MoveQueueEntryInput): Promise<MoveQueueEntryOutcome>;
  /**
   * One admitter pass for the activity, one transaction: the room's admit clock moves from
   * `expectedClock` to `now` with `carry` (compare-and-set: stale when another pass moved it, and
   * then nothing is admitted), then the first `limit` WAITING places in admission order become
   * ADMITTED until now + admissionMs (conditional on WAITING: never one place twice).
   */
  admitQueue(input: AdmitQueueInput): Promise<AdmitQueueOutcome>;
  /** ADMITTED places whose window ended by `now` -> EXPIRED, at most `limit`. Answers how many. */
  expireAdmissions(input: { readonly now: number; readonly limit: number }): Promise<number>;
  /** Every WAITING place of the activity -> SOLD_OUT, at most `limit`. Answers how many. */
  sellOutQueue(input: { readonly activityId: string; readonly now: number; readonly limit: number }): Promise<number>;
  /** The user's WAITING and ADMITTED places, in every activity, -> BLOCKED. Answers how many. */
  blockQueuePlaces(input: { readonly userId: string; readonly now: number }): Promise<number>;
  queueStats(input: { readonly activityId: string; readonly now: number }): Promise<QueueStats>;
}
