import type pg from 'pg';
import { formsAdjacentRun, type Hold, type ReservationLine } from '../../domain/index.js';
import type { ClaimBase, SeatChange } from '../../ports/engine/index.js';
import type { SeatStatementResult } from './claim-statements.js';

/** What the claims of the PostgreSQL adapter answer with: the new hold, its lines, its seat changes. */

/** The buyer's units of a show, for the refusal PURCHASE_LIMIT_REACHED. */
export async function unitsOf(c: pg.ClientBase, userId: string, showId: string): Promise<number> {
  const { rows } = await c.query<{ units: number }>('SELECT units FROM user_show_units WHERE user_id = $1 AND show_id = $2', [userId, showId]);
  return rows[0]?.units ?? 0;
}

export function newHold(input: ClaimBase, lines: ReservationLine[], totalPriceCents: number): Hold {
  return {
    holdId: input.holdId, showId: input.showId, userId: input.userId, lines, totalPriceCents,
    status: 'ACTIVE', createdAt: input.now, expiresAt: input.expiresAt, extensions: 0,
  };
}

/** One SEATS line per section, in the order the seats were taken. */
export function seatLinesOf(seatIds: readonly string[], sectionOf: ReadonlyMap<string, string>): ReservationLine[] {
  const lines: { kind: 'SEATS'; sectionId: string; seatIds: string[] }[] = [];
  for (const seatId of seatIds) {
    const sectionId = sectionOf.get(seatId) as string;
    const line = lines.find((l) => l.sectionId === sectionId);
    if (line === undefined) lines.push({ kind: 'SEATS', sectionId, seatIds: [seatId] });
    else line.seatIds.push(seatId);
  }
  return lines;
}

/** The hold a complete claim statement made: lines per section in the order asked, priced by section. */
export function heldBy(input: ClaimBase, seatIds: readonly string[], r: SeatStatementResult): Hold {
  const sectionOf = new Map(r.taken.map((t) => [t.seatId, t.sectionId]));
  return newHold(input, seatLinesOf(seatIds, sectionOf), r.total);
}

export function seatChangesOf(input: ClaimBase, seatIds: readonly string[], r: SeatStatementResult): SeatChange[] {
  const versions = new Map(r.taken.map((t) => [t.seatId, t.version]));
  return seatIds.map((seatId) => ({ seatId, status: 'HELD', holdId: input.holdId, version: versions.get(seatId) as number }));
}

/** Whether the seats a complete claim statement took sit side by side (the same answer SQLite gives). */
export function adjacentTaken(r: SeatStatementResult): boolean {
  return formsAdjacentRun(r.taken.map((t) => ({ section: t.sectionId, row: t.row, number: t.number })));
}
