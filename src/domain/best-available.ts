import type { SeatMapSpec, SeatedSectionSpec } from './show.js';
import { seatMetric, type SeatMetric, type SeatPoint } from './stage-distance.js';

/** The minimum a seat chooser needs to know about a seat. */
export interface SeatPosition {
  readonly seatId: string;
  readonly section: string;
  readonly row: number;
  readonly number: number;
  readonly available: boolean;
  readonly accessible: boolean;
}

export interface BestAvailableRequest {
  readonly quantity: number;
  /**
   * Only seats of this section (any SEATED section, whatever it sells by: issuing tickets of a
   * sellBy QUANTITY section uses the chooser too). When absent: seats of SEATED sections sold by SEAT.
   */
  readonly section?: string;
  /**
   * The seat to sit nearest (its section first, then the others by their distance to it on the
   * drawn map); when absent, the stage's front-centre as the seat map draws it (venue-geometry.ts).
   */
  readonly near?: SeatPoint;
  /** Only a run of `quantity` side-by-side seats in one row; otherwise scattered seats are allowed when no run is left. */
  readonly adjacentOnly: boolean;
  /** At least this many of the chosen seats must be accessible. */
  readonly accessibleMin?: number;
}

export interface BestAvailableChoice {
  readonly seatIds: string[];
  /** The seats sit side by side in one row. */
  readonly adjacent: boolean;
  /**
   * How good the choice is, lower is better, in the units of RowRef.minDistance: an orphan-free
   * run scores its distance; a run that strands a seat adds orphanPenalty per orphan; scattered
   * seats add scatteredPenalty. A choice whose score is <= the minDistance of every row not read
   * yet cannot be beaten by reading more rows.
   */
  readonly score: number;
}

/** A row of a seated section, with a lower bound of the score of any choice in it. */
export interface RowRef {
  readonly section: string;
  readonly row: number;
  readonly minDistance: number;
}

/** Added per stranded seat: above any distance, so an orphan-free run anywhere wins. */
export const orphanPenalty = 1e9;
/** Added to scattered picks: above any run's score. */
export const scatteredPenalty = 1e12;

function seatedSections(seatMap: SeatMapSpec, section: string | undefined): SeatedSectionSpec[] {
  return seatMap.sections.filter((s): s is SeatedSectionSpec =>
    s.kind === 'SEATED' && (section === undefined ? s.sellBy === 'SEAT' : s.id === section));
}

/**
 * The rows a best-available choice may use, across sections, nearest the stage's front-centre as
 * the seat map draws it (or nearest `near`) first; ties: seat-map order, then row. A row's place is
 * the distance of its nearest possible seat, so reading rows in this order and stopping early
 * never skips a nearer seat. Adapters read the free seats of a bounded number of these rows at a
 * time (limits.bestAvailableRowsMax): the cost of a choice grows with the rows it looks at, not
 * with the size of the show.
 */
export function candidateRows(seatMap: SeatMapSpec, request: Pick<BestAvailableRequest, 'section' | 'near'>): RowRef[] {
  const metric = seatMetric(seatMap, request.near);
  const rows: { ref: RowRef; order: number }[] = [];
  let order = 0;
  for (const section of seatedSections(seatMap, request.section)) {
    for (let row = 1; row <= section.rows; row++) rows.push({ ref: { section: section.id, row, minDistance: metric.row(section.id, row) }, order: order++ });
  }
  rows.sort((a, b) => a.ref.minDistance - b.ref.minDistance || a.order - b.order);
  return rows.map((r) => r.ref);
}

/**
 * Picks `quantity` seats among `seats` (typically the free seats of a window of candidateRows):
 * 1. the best run of side-by-side free seats in one row: first one that leaves no single orphan
 *    seat (a free seat alone between taken seats or a wall) when such a run exists (seats.io's
 *    rule), then nearest the preferred point (by default the stage's front-centre, on the map as
 *    drawn: a centre seat of the stalls before the balcony's front row);
 * 2. scattered seats, nearest first, only when no run is left and the buyer allows it.
 * With accessibleMin k, a choice must contain at least k accessible seats.
 * Pure; linear in the seats given (times quantity).
 */
export function chooseBestAvailable(seatMap: SeatMapSpec, seats: readonly SeatPosition[], request: BestAvailableRequest): BestAvailableChoice | null {
  const sections = seatedSections(seatMap, request.section);
  const allowed = new Set(sections.map((s) => s.id));
  const metric = seatMetric(seatMap, request.near);
  const distance = (seat: Pick<SeatPosition, 'section' | 'row' | 'number'>): number => metric.seat(seat.section, seat.row, seat.number);
  const candidates = seats.filter((s) => s.available && allowed.has(s.section));
  const accessibleMin = request.accessibleMin ?? 0;
  if (candidates.length < request.quantity || request.quantity < 1) return null;
  if (accessibleMin > 0 && candidates.filter((s) => s.accessible).length < accessibleMin) return null;
  const run = bestAdjacentRun(candidates, distance, request.quantity, accessibleMin, metric);
  if (run !== null) return { seatIds: run.ids, adjacent: true, score: run.orphans * orphanPenalty + run.distance };
  if (request.adjacentOnly) return null;
  const nearest = [...candidates].sort((a, b) => distance(a) - distance(b) || a.seatId.localeCompare(b.seatId));
  const accessible = nearest.filter((s) => s.accessible).slice(0, accessibleMin);
  const rest = nearest.filter((s) => !accessible.includes(s)).slice(0, request.quantity - accessible.length);
  const picked = [...accessible, ...rest].sort((a, b) => distance(a) - distance(b) || a.seatId.localeCompare(b.seatId));
  const farthest = picked.reduce((max, s) => Math.max(max, distance(s)), 0);
  return { seatIds: picked.map((s) => s.seatId), adjacent: formsAdjacentRun(picked), score: scatteredPenalty + farthest };
}

/** True when the seats are side by side: one row of one section, consecutive numbers. */
export function formsAdjacentRun(seats: readonly Pick<SeatPosition, 'section' | 'row' | 'number'>[]): boolean {
  const first = seats[0];
  if (first === undefined) return false;
  if (!seats.every((s) => s.section === first.section && s.row === first.row)) return false;
  const numbers = seats.map((s) => s.number).sort((a, b) => a - b);
  return numbers.every((n, i) => i === 0 || n === (numbers[i - 1] ?? n) + 1);
}

type Distance = (seat: Pick<SeatPosition, 'section' | 'row' | 'number'>) => number;

interface Scored {
  readonly block: readonly SeatPosition[];
  readonly start: number;
  readonly orphans: number;
  readonly distance: number;
  /** Where the run's row first appears in the input: equal runs go to the earlier row. */
  readonly rowOrder: number;
}

interface SeatRow {
  readonly seats: SeatPosition[];
  /** No run in this row scores below this (SeatMetric.row). */
  readonly bound: number;
  readonly order: number;
}

/** The candidates by row, nearest row first (ties: input order). Input grouped by row is grouped without hashing. */
function rowsOf(candidates: readonly SeatPosition[], metric: SeatMetric): SeatRow[] {
  const byKey = new Map<string, SeatRow>();
  let current: SeatRow | undefined;
  let currentSection = '';
  let currentRow = -1;
  for (const seat of candidates) {
    if (current === undefined || seat.row !== currentRow || seat.section !== currentSection) {
      const key = `${seat.section}\u0000${seat.row}`;
      current = byKey.get(key);
      if (current === undefined) {
        current = { seats: [], bound: metric.row(seat.section, seat.row), order: byKey.size };
        byKey.set(key, current);
      }
      currentSection = seat.section;
      currentRow = seat.row;
    }
    current.seats.push(seat);
  }
  return [...byKey.values()].sort((a, b) => a.bound - b.bound || a.order - b.order);
}

/**
 * The best run over every block of consecutive free seats. Runs are compared without building
 * them (this is the hot path of a herd): only the winner is sliced out at the end. Rows are
 * visited nearest first, and once an orphan-free run is found no row whose nearest possible run
 * is farther can beat it: the rest are not looked at, so a herd's front-row choice scores a row
 * or two of what the adapter read, not all of it. Ties go to the row met first in the input,
 * then the run met first in the row, whatever order the rows are visited in.
 */
function bestAdjacentRun(candidates: readonly SeatPosition[], distance: Distance, quantity: number, accessibleMin: number, metric: SeatMetric): { ids: string[]; orphans: number; distance: number } | null {
  let best: Scored | null = null;
  for (const { seats: row, bound, order } of rowsOf(candidates, metric)) {
    if (best !== null && best.orphans === 0 && bound > best.distance) break;
    row.sort((a, b) => a.number - b.number);
    for (const block of freeBlocks(row)) {
      if (block.length < quantity) continue;
      // accessible[i] = accessible seats among block[0..i), so a run's count is one subtraction.
      const accessible = accessibleMin > 0 ? prefixAccessible(block) : null;
      for (let start = 0; start + quantity <= block.length; start++) {
        if (accessible !== null && (accessible[start + quantity] as number) - (accessible[start] as number) < accessibleMin) continue;
        const first = block[start] as SeatPosition;
        const last = block[start + quantity - 1] as SeatPosition;
        const rightGap = block.length - (start + quantity);
        const orphans = (start === 1 ? 1 : 0) + (rightGap === 1 ? 1 : 0);
        const runDistance = distance({ section: first.section, row: first.row, number: (first.number + last.number) / 2 });
        if (best === null || orphans < best.orphans || (orphans === best.orphans && (runDistance < best.distance || (runDistance === best.distance && order < best.rowOrder)))) {
          best = { block, start, orphans, distance: runDistance, rowOrder: order };
        }
      }
    }
  }
  if (best === null) return null;
  return { ids: best.block.slice(best.start, best.start + quantity).map((s) => s.seatId), orphans: best.orphans, distance: best.distance };
}

function prefixAccessible(block: readonly SeatPosition[]): number[] {
  const counts = [0];
  for (const seat of block) counts.push((counts.at(-1) as number) + (seat.accessible ? 1 : 0));
  return counts;
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
