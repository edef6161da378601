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
}

export interface BestAvailableChoice {
  readonly seatIds: string[];
  readonly adjacent: boolean;
}

/**
 * Picks `quantity` seats nearest the front-centre of their section: first the best run of
 * adjacent free seats in one row, preferring runs that leave no single orphan seat behind;
 * scattered seats only when the buyer allows it. Distance is measured from row 1, middle seat.
 */
export function chooseBestAvailable(
  seatMap: SeatMapSpec,
  seats: readonly SeatPosition[],
  request: BestAvailableRequest,
): BestAvailableChoice | null {
  const widths = new Map(seatMap.sections.map((s) => [s.id, s.seatsPerRow]));
  const candidates = seats.filter((s) => s.available && (request.section === undefined || s.section === request.section));
  if (candidates.length < request.quantity) return null;
  const run = bestAdjacentRun(candidates, widths, request.quantity);
  if (run !== null) return { seatIds: run, adjacent: true };
  if (request.allowSplit !== true) return null;
  const nearest = [...candidates].sort((a, b) => distance(a, widths) - distance(b, widths) || a.seatId.localeCompare(b.seatId));
  return { seatIds: nearest.slice(0, request.quantity).map((s) => s.seatId), adjacent: request.quantity === 1 };
}

function distance(seat: Pick<SeatPosition, 'section' | 'row' | 'number'>, widths: ReadonlyMap<string, number>): number {
  const centre = ((widths.get(seat.section) ?? 1) + 1) / 2;
  // Rows weigh more than seats: one row back is worse than two seats off-centre.
  return (seat.row - 1) * 2 + Math.abs(seat.number - centre);
}

function bestAdjacentRun(candidates: readonly SeatPosition[], widths: ReadonlyMap<string, number>, quantity: number): string[] | null {
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
        const score = runScore(block, start, quantity, widths);
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

function runScore(block: readonly SeatPosition[], start: number, quantity: number, widths: ReadonlyMap<string, number>): number {
  const first = block[start];
  const last = block[start + quantity - 1];
  if (first === undefined || last === undefined) return Number.POSITIVE_INFINITY;
  const middle = { section: first.section, row: first.row, number: (first.number + last.number) / 2 };
  const leftGap = start;
  const rightGap = block.length - (start + quantity);
  const orphans = (leftGap === 1 ? 1 : 0) + (rightGap === 1 ? 1 : 0);
  return distance(middle, widths) + orphans * orphanPenalty;
}
