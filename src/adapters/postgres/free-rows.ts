import type pg from 'pg';
import type { RowRef, SeatPosition } from '../../domain/index.js';
import type { FreeSeats } from '../shared/free-seats.js';

/** Rows of candidateRows read first; each further read doubles, up to limits.bestAvailableRowsMax rows at a time. */
export const firstWindowRows = 8;

/**
 * The free seats of some seat rows (a window of domain candidateRows), read without locks. A
 * LATERAL join does one index range scan (seats_by_row) per row read, whatever the show's size,
 * and returns one result row per seat row: its free seat numbers (negative: accessible) as one
 * string, so a window costs a few rows to transfer and parse, not one per seat.
 */
export async function readFreeRows(c: pg.ClientBase, free: FreeSeats, showId: string, rows: readonly RowRef[]): Promise<SeatPosition[]> {
  const { rows: found } = await c.query<{ section_id: string; row_no: number; seats: string }>({
    name: 'free-rows',
    text: `SELECT w.section_id, w.row_no, f.seats
      FROM unnest($2::text[], $3::int[]) AS w(section_id, row_no)
      CROSS JOIN LATERAL (
        SELECT string_agg((CASE WHEN s.accessible THEN -s.seat_no ELSE s.seat_no END)::text, ',') AS seats FROM seats s
        WHERE s.show_id = $1 AND s.section_id = w.section_id AND s.row_no = w.row_no AND s.status = 'AVAILABLE') f
      WHERE f.seats IS NOT NULL`,
    values: [showId, rows.map((r) => r.section), rows.map((r) => r.row)],
  });
  const seats: SeatPosition[] = [];
  for (const r of found) free.parseRow(showId, r.section_id, r.row_no, r.seats, seats);
  return seats;
}
