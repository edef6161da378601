import type { Database as Db } from 'better-sqlite3';
import {
  candidateRows, chooseBestAvailable, limits, type BestAvailableChoice, type BestAvailableRequest, type RowRef, type SeatMapSpec, type SeatPosition,
} from '../../domain/index.js';
import { FreeSeats } from '../shared/free-seats.js';

/**
 * The domain chooser over the current free seats, nearest the preferred point first (domain
 * candidateRows): rows are read in growing steps (2, 4, 8, ... at most limits.bestAvailableRowsMax)
 * until a choice exists, then only the rows that could still beat it, so a front-row choice reads
 * a few rows: its cost grows with the rows it looks at, not with the size of the show.
 * Runs inside the caller's unit, so the seats it returns are still free when the caller takes them.
 */
export type SeatChooser = (showId: string, seatMap: SeatMapSpec, request: BestAvailableRequest) => BestAvailableChoice | null;

interface FreeRow { row_no: number; seats: string }

export function seatChooser(db: Db): SeatChooser {
  // Hot (best-available): the free seats of a range of rows of one section, one string per row,
  // straight from the partial covering index of free seats. Materialising a JS row per seat cost
  // ~4 us a seat; one string per row of "number" (negative: an accessible seat) costs a tenth.
  const freeRows = db.prepare(`SELECT row_no, group_concat(CASE accessible WHEN 1 THEN -seat_no ELSE seat_no END) AS seats
    FROM seats WHERE show_id = ? AND section = ? AND row_no BETWEEN ? AND ? AND status = 'AVAILABLE' GROUP BY row_no`);

  const free = new FreeSeats();

  /**
   * Free seats of `rows`: one range query per run of consecutive rows of a section. A window of
   * rows nearest the stage is one run per section; nearest a seat it can be two (rows on either
   * side of it), and a range across both would read again the rows between, read before.
   */
  function readRows(showId: string, rows: readonly RowRef[], into: SeatPosition[]): void {
    const bySection = new Map<string, number[]>();
    for (const { section, row } of rows) {
      const list = bySection.get(section);
      if (list === undefined) bySection.set(section, [row]);
      else list.push(row);
    }
    for (const [section, list] of bySection) {
      list.sort((a, b) => a - b);
      let start = 0;
      for (let i = 1; i <= list.length; i++) {
        if (i < list.length && (list[i] as number) === (list[i - 1] as number) + 1) continue;
        for (const row of freeRows.all(showId, section, list[start], list[i - 1]) as FreeRow[]) free.parseRow(showId, section, row.row_no, row.seats, into);
        start = i;
      }
    }
  }

  return (showId, seatMap, request) => {
    const rows = candidateRows(seatMap, {
      ...(request.section === undefined ? {} : { section: request.section }),
      ...(request.near === undefined ? {} : { near: request.near }),
    });
    const seats: SeatPosition[] = [];
    let read = 0;
    let step = firstStepRows;
    while (read < rows.length) {
      readRows(showId, rows.slice(read, read + step), seats);
      read = Math.min(read + step, rows.length);
      let choice = chooseBestAvailable(seatMap, seats, request);
      if (choice === null) {
        step = Math.min(step * 2, limits.bestAvailableRowsMax);
        continue;
      }
      // Rows come nearest first, and no choice in a row scores below its minDistance: only the
      // unread rows nearer than this choice's score can hold a better one. Read exactly those
      // (within one window of rows: past it any choice will do, a full front cannot make every
      // buyer read the whole show) and choose once more; the answer is then final.
      const { score } = choice;
      let more = read;
      while (more < rows.length && more < limits.bestAvailableRowsMax && (rows[more]?.minDistance ?? Infinity) < score) more++;
      if (more > read) {
        readRows(showId, rows.slice(read, more), seats);
        choice = chooseBestAvailable(seatMap, seats, request) ?? choice;
      }
      return choice;
    }
    return null;
  };
}

/** The first step reads this many rows; each next step (while nothing fits) doubles, up to limits.bestAvailableRowsMax. */
const firstStepRows = 2;
