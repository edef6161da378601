import type { SeatMapSpec } from './show.js';

/** The minimum a seat chooser needs to know about a seat. */
export interface SeatPosition {
  readonly seatId: string;
  readonly section: string;
  readonly row: number;
  readonly number: number;
  readonly available: boolean;
}

export interface BestAvailableRequest {
  readonly quantity: number;
  /** Only seats of this section. */
  readonly section?: string;
  /** Allow scattered seats when no run of `quantity` adjacent seats is free. */
  readonly allowSplit?: boolean;
  /** The point to sit nearest; the front-centre of each section when absent. */
  readonly near?: SeatPoint;
}

export interface SeatPoint {
  readonly section: string;
  readonly row: number;
  readonly number: number;
}

export interface BestAvailableChoice {
  readonly seatIds: string[];
  readonly adjacent: boolean;
}

/**
 * Picks `quantity` seats nearest the preferred point (by default the front-centre of their
 * section): first the best run of adjacent free seats in one row, preferring runs that leave no
 * single orphan seat behind; scattered seats only when the buyer allows it.
 */
export function chooseBestAvailable(
  seatMap: SeatMapSpec,
  seats: readonly SeatPosition[],
  request: BestAvailableRequest,
): BestAvailableChoice | null {
  const widths = new Map(seatMap.sections.map((s) => [s.id, s.seatsPerRow]));
  const distance = (seat: Pick<SeatPosition, 'section' | 'row' | 'number'>): number => distanceFrom(seat, widths, request.near);
  const candidates = seats.filter((s) => s.available && (request.section === undefined || s.section === request.section));
  if (candidates.length < request.quantity) return null;
  const run = bestAdjacentRun(candidates, distance, request.quantity);
  if (run !== null) return { seatIds: run, adjacent: true };
  if (request.allowSplit !== true) return null;
  const nearest = [...candidates].sort((a, b) => distance(a) - distance(b) || a.seatId.localeCompare(b.seatId));
  const picked = nearest.slice(0, request.quantity);
  return { seatIds: picked.map((s) => s.seatId), adjacent: formsAdjacentRun(picked) };
}

/** True when the seats are side by side: one row of one section, consecutive numbers. */
export function formsAdjacentRun(seats: readonly Pick<SeatPosition, 'section' | 'row' | 'number'>[]): boolean {
  const first = seats[0];
  if (first === undefined) return false;
  if (!seats.every((s) => s.section === first.section && s.row === first.row)) return false;
  const numbers = seats.map((s) => s.number).sort((a, b) => a - b);
  return numbers.every((n, i) => i === 0 || n === (numbers[i - 1] ?? n) + 1);
}

/** Seats outside the preferred point's section come after every seat inside it. */
const otherSectionPenalty = 1_000_000;

function distanceFrom(seat: Pick<SeatPosition, 'section' | 'row' | 'number'>, widths: ReadonlyMap<string, number>, near: SeatPoint | undefined): number {
  // Rows weigh more than seats: one row further is worse than two seats off-centre.
  if (near !== undefined && seat.section === near.section) return Math.abs(seat.row - near.row) * 2 + Math.abs(seat.number - near.number);
  const centre = ((widths.get(seat.section) ?? 1) + 1) / 2;
  const frontCentre = (seat.row - 1) * 2 + Math.abs(seat.number - centre);
  return near === undefined ? frontCentre : otherSectionPenalty + frontCentre;
}

type Distance = (seat: Pick<SeatPosition, 'section' | 'row' | 'number'>) => number;

function bestAdjacentRun(candidates: readonly SeatPosition[], distance: Distance, quantity: number): string[] | null {
  const rows = new Map<string, SeatPosition[]>();
  for (const seat of candidates) {
    const key = `${seat.section}\u0000${seat.row}`;
    const row = rows.get(key);
    if (row === undefined) rows.set(key, [seat]);
    else row.push(seat);
  }
  let best: { ids: string[]; score: number } | null = null;
  for (const row of rows.values()) {
    row.sort((a, b) => a.number - b.number);
    for (const block of freeBlocks(row)) {
      for (let start = 0; start + quantity <= block.length; start++) {
        const score = runScore(block, start, quantity, distance);
        if (best === null || score < best.score) best = { ids: block.slice(start, start + quantity).map((s) => s.seatId), score };
      }
    }
  }
  return best?.ids ?? null;
}

/** Splits a sorted row of free seats into blocks of consecutive seat numbers. */
function freeBlocks(row: readonly SeatPosition[]): SeatPosition[][] {
  const blocks: SeatPosition[][] = [];
  for (const seat of row) {
    const last = blocks.at(-1);
    const prev = last?.at(-1);
    if (last !== undefined && prev !== undefined && seat.number === prev.number + 1) last.push(seat);
    else blocks.push([seat]);
  }
  return blocks;
}

const orphanPenalty = 1_000;

function runScore(block: readonly SeatPosition[], start: number, quantity: number, distance: Distance): number {
  const first = block[start];
  const last = block[start + quantity - 1];
  if (first === undefined || last === undefined) return Number.POSITIVE_INFINITY;
  const middle = { section: first.section, row: first.row, number: (first.number + last.number) / 2 };
  const leftGap = start;
  const rightGap = block.length - (start + quantity);
  const orphans = (leftGap === 1 ? 1 : 0) + (rightGap === 1 ? 1 : 0);
  return distance(middle) + orphans * orphanPenalty;
}
