import { limits } from './limits.js';
import { fail, ok, type Result } from './result.js';
import type { SeatStatus } from './states.js';

export interface SectionSpec {
  readonly id: string;
  readonly name: string;
  readonly rows: number;
  readonly seatsPerRow: number;
  readonly priceCents: number;
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
  readonly createdAt: number;
}

/** A seat as the booking core sees it. `version` increases on every change (optimistic locking). */
export interface Seat {
  readonly showId: string;
  readonly seatId: string;
  readonly section: string;
  readonly row: number;
  readonly number: number;
  readonly priceCents: number;
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

export type NewShowInput = Omit<Show, 'capacity' | 'createdAt'>;

const dayMs = 86_400_000;

/** Validates a show and lays out its seats, all AVAILABLE. */
export function createShow(input: NewShowInput, now: number): Result<{ show: Show; seats: Seat[] }> {
  const times = checkTimes(input);
  if (!times.ok) return fail(times.error.code, times.error.message);
  const layout = layoutSeats(input.showId, input.seatMap);
  if (!layout.ok) return fail(layout.error.code, layout.error.message, layout.error.details);
  const show: Show = { ...input, capacity: layout.value.length, createdAt: now };
  return ok({ show, seats: layout.value });
}

function checkTimes(input: NewShowInput): Result<true> {
  const { startsAt, saleStartsAt, saleEndsAt } = input;
  if (![startsAt, saleStartsAt, saleEndsAt].every(Number.isFinite)) return fail('INVALID_SHOW_TIMES', 'times must be valid ISO 8601 instants');
  if (saleStartsAt >= saleEndsAt) return fail('INVALID_SHOW_TIMES', 'saleStartsAt must be before saleEndsAt');
  if (saleEndsAt > startsAt) return fail('INVALID_SHOW_TIMES', 'the sale must end no later than the show starts');
  if (saleEndsAt - saleStartsAt > limits.showDurationDaysMax * dayMs) {
    return fail('INVALID_SHOW_TIMES', `a sale may last at most ${limits.showDurationDaysMax} days`);
  }
  return ok(true);
}

function layoutSeats(showId: string, seatMap: SeatMapSpec): Result<Seat[]> {
  const { sections } = seatMap;
  if (sections.length === 0) return fail('INVALID_SEAT_MAP', 'a seat map needs at least one section');
  if (sections.length > limits.sectionsPerShowMax) return fail('INVALID_SEAT_MAP', `at most ${limits.sectionsPerShowMax} sections`);
  const ids = new Set(sections.map((s) => s.id));
  if (ids.size !== sections.length) return fail('INVALID_SEAT_MAP', 'section ids must be unique');
  const capacity = sections.reduce((sum, s) => sum + s.rows * s.seatsPerRow, 0);
  if (capacity > limits.seatsPerShowMax) return fail('INVALID_SEAT_MAP', `at most ${limits.seatsPerShowMax} seats per show`, { capacity });
  const seats: Seat[] = [];
  for (const section of sections) {
    for (let row = 1; row <= section.rows; row++) {
      for (let number = 1; number <= section.seatsPerRow; number++) {
        seats.push({
          showId,
          seatId: seatIdOf(section.id, row, number),
          section: section.id,
          row,
          number,
          priceCents: section.priceCents,
          status: 'AVAILABLE',
          holdId: null,
          version: 0,
        });
      }
    }
  }
  return ok(seats);
}
