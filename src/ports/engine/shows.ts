import type { Seat, SectionKind, SellBy, Show } from '../../domain/index.js';
import type { Page } from './common.js';

export interface CreateShowInput {
  readonly show: Show;
  /**
   * Every seat of every SEATED section (sellBy SEAT and QUANTITY alike), all AVAILABLE, version 0,
   * as src/domain/show.ts createShow laid them out. GENERAL_ADMISSION sections have no seats.
   */
  readonly seats: readonly Seat[];
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
}

/** Everything the seat-map read model loads once per show. */
export interface SeatMapLoad {
  readonly show: Show;
  /** Every seat of the show, ordered by section id, then row, then number. */
  readonly seats: readonly Seat[];
  /** One entry per section of the show, in seat-map order. */
  readonly sections: readonly SectionAvailability[];
}

export interface ShowStore {
  /**
   * Effect: inserts the show, its sections (a price tier each; counted sections get their stock:
   * available = capacity, on PostgreSQL split into buckets), and its seats, in one transaction.
   * Seats are written in multi-row statements of at most limits.seatInsertChunkMax rows, so a
   * 200,000-seat show is a few hundred statements, not one giant one. The show id is new (the
   * application makes it), so there is no conflict outcome.
   */
  createShow(input: CreateShowInput): Promise<void>;
  getShow(showId: string): Promise<Show | null>;
  /**
   * One page of the catalog in its promised order, decided by the query so that paging keeps it:
   * on sale at `now` first (closing soonest first), then upcoming (opening soonest first), then
   * ended (ended most recently first); show id breaks ties.
   */
  listShows(page: Page, now: number): Promise<Show[]>;
  /** The show, all its seats and its sections' availability; null when no such show. */
  loadSeatMap(showId: string): Promise<SeatMapLoad | null>;
  /** Per-section availability (see SectionAvailability), in seat-map order; null when no such show. */
  availability(showId: string): Promise<SectionAvailability[] | null>;
}
