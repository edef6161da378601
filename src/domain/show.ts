import { limits } from './limits.js';
import { checkSeatLimitSetting } from './purchase-limit.js';
import { fail, ok, type Result } from './result.js';
import type { SeatStatus } from './states.js';

/** How a seated section is sold: seat by seat (the buyer picks or best-available), or by count. */
export type SellBy = 'SEAT' | 'QUANTITY';
export const sectionKinds = ['SEATED', 'GENERAL_ADMISSION'] as const;
export type SectionKind = (typeof sectionKinds)[number];

export interface SeatPlace {
  readonly row: number;
  readonly number: number;
}

/**
 * Rows of numbered seats. sellBy SEAT: seats are claimed one by one (chosen or best-available).
 * sellBy QUANTITY: a count is claimed first (counted stock, like general admission) and the seats
 * nearest the front-centre, together where possible, are picked when the tickets are issued.
 */
export interface SeatedSectionSpec {
  readonly id: string;
  readonly name: string;
  readonly kind: 'SEATED';
  readonly rows: number;
  readonly seatsPerRow: number;
  readonly priceCents: number;
  readonly sellBy: SellBy;
  /** Seats suited to wheelchair users (marked in the seat map; best-available can ask for them). */
  readonly accessible: readonly SeatPlace[];
}

/** Standing room: `capacity` units, no seats; tickets name no seat. */
export interface GeneralAdmissionSectionSpec {
  readonly id: string;
  readonly name: string;
  readonly kind: 'GENERAL_ADMISSION';
  readonly capacity: number;
  readonly priceCents: number;
}

export type SectionSpec = SeatedSectionSpec | GeneralAdmissionSectionSpec;

/** A section sold by count (stock with `available`), rather than seat by seat. */
export function isCounted(section: SectionSpec): boolean {
  return section.kind === 'GENERAL_ADMISSION' || section.sellBy === 'QUANTITY';
}

/** Seats, or standing places, of a section. */
export function sectionCapacity(section: SectionSpec): number {
  return section.kind === 'GENERAL_ADMISSION' ? section.capacity : section.rows * section.seatsPerRow;
}

export interface SeatMapSpec {
  readonly sections: readonly SectionSpec[];
}

export interface Show {
  readonly showId: string;
  readonly title: string;
  readonly venue: string;
  readonly city: string;
  readonly startsAt: number;
  readonly saleStartsAt: number;
  readonly saleEndsAt: number;
  readonly seatMap: SeatMapSpec;
  readonly capacity: number;
  /**
   * Seats one buyer may hold and buy of this show (see purchase-limit.ts). null: the organiser set
   * none (and shows from before the limit existed), so the configured default applies.
   */
  readonly maxSeatsPerUser: number | null;
  readonly createdAt: number;
  /** What the buyer reads about the show (plain text, at most limits.showDescriptionLengthMax); '' when none. */
  readonly description: string;
  /** An https picture of the show (at most limits.imageUrlLengthMax); null when none. */
  readonly imageUrl: string | null;
  /**
   * ISO 4217 code of every price of the show, chosen at creation. null: a show from before
   * currencies were stored, priced in the configured default (TICKETRUSH_CURRENCY).
   */
  readonly currency: string | null;
  /** Raised by every edit: an edit applies only to the version it was decided on (no lost update). */
  readonly version: number;
  /**
   * Set when the show carries a campaign's stock (issue 23: a flash sale's items are its counted
   * sections): it is sold only through the campaign's own route, never held as a show.
   */
  readonly campaign?: 'FLASH_SALE' | 'BARGAIN';
  /**
   * The show's refund and exchange policy (issue 25): a buyer may refund (exchange) until this
   * many hours before the show starts. null or absent: not by the buyer (organizers always may).
   */
  readonly refundUntilHoursBefore?: number | null;
  readonly exchangeUntilHoursBefore?: number | null;
  /** Set when an organizer cancelled the show: nothing is sold any more, every paid order is refunded. */
  readonly cancelledAt?: number | null;
  readonly cancelReason?: string | null;
}

/** A seat as the booking core sees it. `version` increases on every change (optimistic locking). */
export interface Seat {
  readonly showId: string;
  readonly seatId: string;
  readonly section: string;
  readonly row: number;
  readonly number: number;
  readonly accessible: boolean;
  readonly status: SeatStatus;
  readonly holdId: string | null;
  readonly version: number;
}

export type SaleStatus = 'UPCOMING' | 'ON_SALE' | 'ENDED';

export interface SaleWindow {
  readonly status: SaleStatus;
  /** Seconds until the sale opens (UPCOMING) or closes (ON_SALE); 0 once it ENDED. */
  readonly secondsRemaining: number;
}

export function seatIdOf(sectionId: string, row: number, number: number): string {
  return `${sectionId}-${row}-${number}`;
}

export function saleWindow(show: Pick<Show, 'saleStartsAt' | 'saleEndsAt'>, now: number): SaleWindow {
  if (now < show.saleStartsAt) return { status: 'UPCOMING', secondsRemaining: Math.ceil((show.saleStartsAt - now) / 1000) };
  if (now < show.saleEndsAt) return { status: 'ON_SALE', secondsRemaining: Math.ceil((show.saleEndsAt - now) / 1000) };
  return { status: 'ENDED', secondsRemaining: 0 };
}

/** Details a show may be created without: no description, no picture, the configured currency. */
type OptionalDetails = 'description' | 'imageUrl' | 'currency' | 'refundUntilHoursBefore' | 'exchangeUntilHoursBefore';
export type NewShowInput = Omit<Show, 'capacity' | 'createdAt' | 'version' | OptionalDetails> & Partial<Pick<Show, OptionalDetails>>;

/** Every currency this runtime can format (ISO 4217 codes), for checking one chosen by an organizer or an operator. */
const currencies: ReadonlySet<string> = new Set(Intl.supportedValuesOf('currency'));
export function isCurrencyCode(code: string): boolean {
  return /^[A-Z]{3}$/.test(code) && currencies.has(code);
}

/** A picture address a browser may load on a secure page: https, bounded, no credentials. */
export function isImageUrl(url: string): boolean {
  if (url.length > limits.imageUrlLengthMax) return false;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' && parsed.username === '' && parsed.password === '' && parsed.hostname !== '';
  } catch {
    return false;
  }
}

/** A refund or exchange policy reaches at most a year before the show. */
export const policyHoursMax = 8760;

/** Description, picture and currency, checked (shared by creating and editing a show). */
export function checkDetails(input: Partial<Pick<Show, OptionalDetails>>): Result<true> {
  if (input.description !== undefined && input.description.length > limits.showDescriptionLengthMax) {
    return fail('INVALID_SHOW_DETAILS', `a description has at most ${limits.showDescriptionLengthMax} characters`);
  }
  if (input.imageUrl !== undefined && input.imageUrl !== null && !isImageUrl(input.imageUrl)) {
    return fail('INVALID_SHOW_DETAILS', `imageUrl must be an https address of at most ${limits.imageUrlLengthMax} characters`);
  }
  for (const field of ['refundUntilHoursBefore', 'exchangeUntilHoursBefore'] as const) {
    const hours = input[field];
    if (hours !== undefined && hours !== null && !(Number.isInteger(hours) && hours >= 0 && hours <= policyHoursMax)) {
      return fail('INVALID_SHOW_DETAILS', `${field} must be a whole number of hours from 0 to ${policyHoursMax}`, { field });
    }
  }
  if (input.currency !== undefined && input.currency !== null && !isCurrencyCode(input.currency)) {
    return fail('INVALID_SHOW_DETAILS', `currency must be an ISO 4217 code such as CNY or EUR (got "${input.currency}")`);
  }
  return ok(true);
}

const dayMs = 86_400_000;

/**
 * Validates a show. Its seats (all AVAILABLE; counted sections start full) follow from its seat map
 * in the canonical order of seat-layout.ts, so nothing here grows with the number of seats.
 */
export function createShow(input: NewShowInput, now: number): Result<{ show: Show }> {
  const details = checkDetails(input);
  if (!details.ok) return details;
  const times = checkTimes(input);
  if (!times.ok) return fail(times.error.code, times.error.message);
  const layout = checkSeatMap(input.seatMap);
  if (!layout.ok) return fail(layout.error.code, layout.error.message, layout.error.details);
  const limit = checkSeatLimitSetting(input.maxSeatsPerUser, input.seatMap.sections.reduce((sum, s) => sum + sectionCapacity(s), 0));
  if (!limit.ok) return limit;
  const capacity = input.seatMap.sections.reduce((sum, s) => sum + sectionCapacity(s), 0);
  const show: Show = {
    ...input, description: input.description ?? '', imageUrl: input.imageUrl ?? null, currency: input.currency ?? null, capacity, createdAt: now, version: 0,
    refundUntilHoursBefore: input.refundUntilHoursBefore ?? null, exchangeUntilHoursBefore: input.exchangeUntilHoursBefore ?? null,
  };
  return ok({ show });
}

export function checkTimes(input: Pick<Show, 'startsAt' | 'saleStartsAt' | 'saleEndsAt'>): Result<true> {
  const { startsAt, saleStartsAt, saleEndsAt } = input;
  if (![startsAt, saleStartsAt, saleEndsAt].every(Number.isFinite)) return fail('INVALID_SHOW_TIMES', 'times must be valid ISO 8601 instants');
  if (saleStartsAt >= saleEndsAt) return fail('INVALID_SHOW_TIMES', 'saleStartsAt must be before saleEndsAt');
  if (saleEndsAt > startsAt) return fail('INVALID_SHOW_TIMES', 'the sale must end no later than the show starts');
  if (saleEndsAt - saleStartsAt > limits.showDurationDaysMax * dayMs) {
    return fail('INVALID_SHOW_TIMES', `a sale may last at most ${limits.showDurationDaysMax} days`);
  }
  return ok(true);
}

function checkSeatMap(seatMap: SeatMapSpec): Result<true> {
  const { sections } = seatMap;
  if (sections.length === 0) return fail('INVALID_SEAT_MAP', 'a seat map needs at least one section');
  if (sections.length > limits.sectionsPerShowMax) return fail('INVALID_SEAT_MAP', `at most ${limits.sectionsPerShowMax} sections`);
  const ids = new Set(sections.map((s) => s.id));
  if (ids.size !== sections.length) return fail('INVALID_SEAT_MAP', 'section ids must be unique');
  const capacity = sections.reduce((sum, s) => sum + sectionCapacity(s), 0);
  if (capacity > limits.seatsPerShowMax) return fail('INVALID_SEAT_MAP', `at most ${limits.seatsPerShowMax} seats per show`, { capacity });
  for (const section of sections) {
    if (section.kind === 'GENERAL_ADMISSION') {
      if (!Number.isInteger(section.capacity) || section.capacity < 1) return fail('INVALID_SEAT_MAP', `section ${section.id} needs a capacity of at least 1`);
      continue;
    }
    for (const place of section.accessible) {
      if (place.row < 1 || place.row > section.rows || place.number < 1 || place.number > section.seatsPerRow) {
        return fail('INVALID_SEAT_MAP', `accessible seat row ${place.row} number ${place.number} is outside section ${section.id}`);
      }
    }
  }
  return ok(true);
}
