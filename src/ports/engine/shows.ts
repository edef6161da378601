import type { AuditEntryDraft } from './change-log.js';
import type { Seat, SectionKind, SellBy, Show, ShowDetails } from '../../domain/index.js';
import type { BucketState, Page, Stale } from './common.js';

export interface CreateShowInput {
  /**
   * The show; its seats are every seat of every SEATED section (sellBy SEAT and QUANTITY alike), all
   * AVAILABLE, version 0, in the canonical order of domain/seat-layout.ts. The adapter writes them
   * from the layout in chunks (GENERAL_ADMISSION sections have no seats), never as one array.
   */
  readonly show: Show;
  /** The audit-trail entry of the organizer's or admin's change, written in the same transaction when it commits. */
  readonly audit?: AuditEntryDraft | null | undefined;
}

/** What is left of one section. */
export interface SectionAvailability {
  readonly sectionId: string;
  readonly kind: SectionKind;
  /** SEAT or QUANTITY for SEATED sections; QUANTITY for GENERAL_ADMISSION (always counted). */
  readonly sellBy: SellBy;
  /** Seats (rows x seatsPerRow) or standing places. */
  readonly capacity: number;
  /**
   * Counted sections (GENERAL_ADMISSION, or SEATED sold by QUANTITY): the stock left (on
   * PostgreSQL the sum of the section's buckets). Seated sections sold by SEAT: the seats with no
   * live claim (AVAILABLE).
   */
  readonly available: number;
  /**
   * Counted sections: units sold (a stored counter raised by every sale, on PostgreSQL the sum of
   * the buckets'). Sections sold by seat: 0 (their seats carry SOLD).
   */
  readonly sold: number;
  /** Counted sections: every bucket of the stock, as stored now (see BucketState). Absent otherwise. */
  readonly buckets?: readonly BucketState[];
}

/**
 * What the seat-map read model loads first: the show (its seat map gives every seat's place, see
 * domain/seat-layout.ts) and its sections. Seat states follow in pages (seatStates), so loading a
 * 100,000-seat show is many short reads, never one that stalls the process.
 */
export interface SeatMapLoad {
  readonly show: Show;
  /** One entry per section of the show, in seat-map order. */
  readonly sections: readonly SectionAvailability[];
}

/** One seat's state as stored. */
export interface SeatState {
  readonly seatId: string;
  readonly status: Seat['status'];
  readonly version: number;
}

/** An edit the domain decided (planShowEdit), to apply on the version it was decided on. */
export interface UpdateShowInput {
  readonly showId: string;
  /** The show's version the edit was decided on. */
  readonly expectedVersion: number;
  /** Every editable field, as it is to be stored. */
  readonly details: ShowDetails;
  /** When the edit is made (the outbox row's time); the adapter's clock when absent. */
  readonly now?: number;
  /** The audit-trail entry of the organizer's or admin's change, written in the same transaction when it commits. */
  readonly audit?: AuditEntryDraft | null | undefined;
}

export type UpdateShowOutcome =
  | { readonly ok: true; readonly show: Show }
  | { readonly ok: false; readonly code: 'SHOW_NOT_FOUND' }
  /** Someone else's edit committed first (the stored version is not expectedVersion): re-read and decide again. */
  | Stale<'show'>;

export interface ShowStore {
  /**
   * Effect: inserts the show, its sections (a price tier each; counted sections get their stock:
   * available = capacity, on PostgreSQL split into buckets), and its seats. Seats are written in
   * multi-row statements of at most limits.seatInsertChunkMax rows, yielding to the event loop
   * between chunks, so a 200,000-seat show never stalls the process. All or nothing as seen from
   * outside: no read, list or claim sees the show before its last seat is written (PostgreSQL: one
   * transaction; SQLite: the show is published by its last chunk, and a start removes a show whose
   * creation a crash cut short). The show id is new, so there is no conflict outcome.
   */
  createShow(input: CreateShowInput): Promise<void>;
  getShow(showId: string): Promise<Show | null>;
  /**
   * One page of the catalog in its promised order, decided by the query so that paging keeps it:
   * on sale at `now` first (closing soonest first), then upcoming (opening soonest first), then
   * ended (ended most recently first); show id breaks ties.
   */
  listShows(page: Page, now: number): Promise<Show[]>;
  /** The show and its sections' availability; null when no such show (or one still being created). */
  loadSeatMap(showId: string): Promise<SeatMapLoad | null>;
  /**
   * One page of a show's seat states in seat-id order, after `afterSeatId` (null: from the start),
   * at most `limit` (<= limits.seatStatePageMax) rows. Keyset paging over the primary key: each
   * page is one short indexed read, so the read model loads a big show without a long stall.
   */
  seatStates(showId: string, afterSeatId: string | null, limit: number): Promise<SeatState[]>;
  /** Per-section availability (see SectionAvailability), in seat-map order; null when no such show. */
  availability(showId: string): Promise<SectionAvailability[] | null>;
  /**
   * Precondition: the show exists and is published (else SHOW_NOT_FOUND) and its stored version is
   * `expectedVersion` (else stale 'show'). Effect, one conditional UPDATE on the show's row: the
   * details as given, version + 1. The seat map, sections, currency and limit never change, so
   * nothing a claim reads moves. Returns the show as stored after the change.
   */
  updateShow(input: UpdateShowInput): Promise<UpdateShowOutcome>;
}
