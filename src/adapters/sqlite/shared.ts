import Database, { type Database as Db, type Statement } from 'better-sqlite3';
import type { Hold, Order, ReservationLine } from '../../domain/index.js';
import type { InventoryChanges, SeatChange, StockChange } from '../../ports/engine/index.js';
import * as records from './records.js';
import type { ShowCache } from './shows.js';

/** Statements prepared once per count of `?`s in an IN list (a hold has at most a few seats). */
export function byCount(db: Db, sql: (marks: string) => string): (count: number) => Statement {
  const cache = new Map<number, Statement>();
  return (count) => {
    let statement = cache.get(count);
    if (statement === undefined) {
      statement = db.prepare(sql(Array.from({ length: count }, () => '?').join(', ')));
      cache.set(count, statement);
    }
    return statement;
  };
}

export const isUniqueViolation = (error: unknown): boolean =>
  error instanceof Database.SqliteError && (error.code === 'SQLITE_CONSTRAINT_UNIQUE' || error.code === 'SQLITE_CONSTRAINT_PRIMARYKEY');

/**
 * Reads and effects several operations share: a hold's or order's lines, and giving a hold's
 * inventory back or taking it again (lapse, failed payment, late sale).
 */
export interface Shared {
  linesOf(holdId: string): ReservationLine[];
  holdRow(holdId: string): records.HoldRow | null;
  hold(row: records.HoldRow): Hold;
  order(row: records.OrderRow): Order;
  /**
   * Gives back whatever of the hold is still claimed: the claim flags of its lines are cleared (so
   * a second give-back finds nothing), its seats become AVAILABLE, units go back to their
   * sections, and the buyer's units go down by what was given back.
   */
  giveBack(hold: records.HoldRow): InventoryChanges;
  /**
   * A lapsed hold takes its inventory again for a late sale, all or nothing: false (some seat or
   * unit is gone) leaves the caller to roll back. The buyer's units go up without the cap: the
   * money is already taken.
   */
  takeBackSold(hold: records.HoldRow): InventoryChanges | false;
  /** The hold's seats HELD -> SOLD (a sale within the hold); false when one is not held by it. */
  sell(hold: records.HoldRow): InventoryChanges | false;
}

export function sqliteShared(db: Db, shows: ShowCache): Shared {
  const q = {
    lines: db.prepare('SELECT section_id, seat_id, quantity FROM hold_lines WHERE hold_id = ? ORDER BY line_no'),
    hold: db.prepare('SELECT * FROM holds WHERE hold_id = ?'),
    // Clearing the claim is the give-back's exactly-once guard: only lines still claimed return.
    unclaim: db.prepare('UPDATE hold_lines SET claim = NULL WHERE hold_id = ? AND claim = 1 RETURNING section_id, seat_id, quantity'),
    // The partial unique index "one live claim per seat" refuses this when a seat was claimed again.
    reclaim: db.prepare('UPDATE hold_lines SET claim = 1 WHERE hold_id = ? AND claim IS NULL RETURNING section_id, seat_id, quantity'),
    freeSeat: db.prepare(`UPDATE seats SET status = 'AVAILABLE', hold_id = NULL, version = version + 1
      WHERE show_id = ? AND seat_id = ? AND hold_id = ? AND status = 'HELD' RETURNING version`),
    sellSeat: db.prepare(`UPDATE seats SET status = 'SOLD', version = version + 1
      WHERE show_id = ? AND seat_id = ? AND hold_id = ? AND status = 'HELD' RETURNING version`),
    sellFreeSeat: db.prepare(`UPDATE seats SET status = 'SOLD', hold_id = ?, version = version + 1
      WHERE show_id = ? AND seat_id = ? AND status = 'AVAILABLE' RETURNING version`),
    liveSeats: db.prepare('SELECT seat_id FROM hold_lines WHERE hold_id = ? AND claim = 1 AND seat_id IS NOT NULL ORDER BY line_no'),
    // CHECK (available BETWEEN 0 AND capacity) refuses a give-back that would make stock from nothing.
    stockUp: db.prepare('UPDATE sections SET available = available + ?, stock_version = stock_version + 1 WHERE show_id = ? AND section_id = ? RETURNING available, stock_version'),
    // Conditional: the take happens only if that much is left.
    stockDown: db.prepare('UPDATE sections SET available = available - ?, stock_version = stock_version + 1 WHERE show_id = ? AND section_id = ? AND available >= ? RETURNING available, stock_version'),
    // What a counted section sold: raised once per sale (the hold moves to CONFIRMED once).
    soldUp: db.prepare("UPDATE sections SET sold = sold + ? WHERE show_id = ? AND section_id = ? AND sell_by = 'QUANTITY'"),
    liveUnits: db.prepare('SELECT section_id, sum(quantity) AS quantity FROM hold_lines WHERE hold_id = ? AND claim = 1 AND seat_id IS NULL GROUP BY section_id ORDER BY section_id'),
    // CHECK (units >= 0) refuses a second give-back.
    unitsDown: db.prepare('UPDATE user_show_units SET units = units - ? WHERE user_id = ? AND show_id = ?'),
    unitsUp: db.prepare(`INSERT INTO user_show_units (user_id, show_id, units) VALUES (?, ?, ?)
      ON CONFLICT (user_id, show_id) DO UPDATE SET units = units + excluded.units`),
  };
  const linesOf = (holdId: string): ReservationLine[] => records.toLines(q.lines.all(holdId) as records.HoldLineRow[]);
  const counted = (showId: string, sectionId: string): boolean => shows.get(showId)?.sections.get(sectionId)?.counted ?? false;

  return {
    linesOf,
    holdRow: (holdId) => (q.hold.get(holdId) as records.HoldRow | undefined) ?? null,
    hold: (row) => records.toHold(row, linesOf(row.hold_id)),
    order: (row) => records.toOrder(row, linesOf(row.hold_id)),
    giveBack(hold) {
      const seats: SeatChange[] = [];
      const stock: StockChange[] = [];
      const bySection = new Map<string, number>();
      const unitsBySection = new Map<string, number>();
      let units = 0;
      for (const line of q.unclaim.all(hold.hold_id) as records.HoldLineRow[]) {
        if (line.seat_id !== null) {
          const freed = q.freeSeat.get(hold.show_id, line.seat_id, hold.hold_id) as { version: number } | undefined;
          if (freed === undefined) continue; // not held by this hold: nothing to give back
          seats.push({ seatId: line.seat_id, status: 'AVAILABLE', holdId: null, version: freed.version });
        } else {
          unitsBySection.set(line.section_id, (unitsBySection.get(line.section_id) ?? 0) + line.quantity);
        }
        bySection.set(line.section_id, (bySection.get(line.section_id) ?? 0) + line.quantity);
        units += line.quantity;
      }
      for (const [sectionId, quantity] of bySection) {
        const after = q.stockUp.get(quantity, hold.show_id, sectionId) as records.StockRow;
        const given = unitsBySection.get(sectionId);
        // One change per section, with the section's stock as stored after it (its one bucket).
        if (given !== undefined) stock.push({ sectionId, delta: given, buckets: [records.toBucket(after)] });
      }
      if (units > 0) q.unitsDown.run(units, hold.user_id, hold.show_id);
      return { showId: hold.show_id, seats, stock };
    },
    takeBackSold(hold) {
      let lines: records.HoldLineRow[];
      try {
        lines = q.reclaim.all(hold.hold_id) as records.HoldLineRow[];
      } catch (error) {
        if (isUniqueViolation(error)) return false;
        throw error;
      }
      const seats: SeatChange[] = [];
      const stock: StockChange[] = [];
      let units = 0;
      for (const line of lines) {
        if (line.seat_id !== null) {
          const sold = q.sellFreeSeat.get(hold.hold_id, hold.show_id, line.seat_id) as { version: number } | undefined;
          if (sold === undefined) return false;
          seats.push({ seatId: line.seat_id, status: 'SOLD', holdId: hold.hold_id, version: sold.version });
        }
        const after = q.stockDown.get(line.quantity, hold.show_id, line.section_id, line.quantity) as records.StockRow | undefined;
        if (after === undefined) return false;
        if (line.seat_id === null && counted(hold.show_id, line.section_id)) {
          stock.push({ sectionId: line.section_id, delta: -line.quantity, sold: line.quantity, buckets: [records.toBucket(after)] });
          q.soldUp.run(line.quantity, hold.show_id, line.section_id);
        }
        units += line.quantity;
      }
      if (units > 0) q.unitsUp.run(hold.user_id, hold.show_id, units);
      return { showId: hold.show_id, seats, stock };
    },
    sell(hold) {
      const seats: SeatChange[] = [];
      for (const { seat_id: seatId } of q.liveSeats.all(hold.hold_id) as { seat_id: string }[]) {
        const sold = q.sellSeat.get(hold.show_id, seatId, hold.hold_id) as { version: number } | undefined;
        if (sold === undefined) return false;
        seats.push({ seatId, status: 'SOLD', holdId: hold.hold_id, version: sold.version });
      }
      // Units stay taken (available unchanged); they move from held to sold.
      const stock: StockChange[] = [];
      for (const { section_id: sectionId, quantity } of q.liveUnits.all(hold.hold_id) as { section_id: string; quantity: number }[]) {
        q.soldUp.run(quantity, hold.show_id, sectionId);
        stock.push({ sectionId, delta: 0, sold: quantity });
      }
      return { showId: hold.show_id, seats, stock };
    },
  };
}
