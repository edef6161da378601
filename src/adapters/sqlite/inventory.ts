import type { Database as Db } from 'better-sqlite3';
import { formsAdjacentRun, holdPriceCents, seatLines, unitsOf, type Hold, type ReservationLine } from '../../domain/index.js';
import type {
  ClaimBase, ClaimBestAvailableInput, ClaimOutcome, ClaimSeatsInput, ClaimUnitsInput, ExtendHoldInput, ExtendHoldOutcome, InventoryChanges,
  InventoryStore, KeysetPosition, LapseHoldInput, LapseHoldOutcome, OfferWaitlistInput, OfferWaitlistOutcome, Page, WaitlistOffer,
} from '../../ports/engine/index.js';
import { holdCreated, holdEnded, orderMoved } from '../shared/outbox-drafts.js';
import type { SeatChooser } from './choose-seats.js';
import type { OutboxWriter } from './outbox.js';
import { Rollback, type GroupCommit } from './group-commit.js';
import * as records from './records.js';
import { byCount, isUniqueViolation, type Shared } from './shared.js';
import type { ShowCache, ShowInfo } from './shows.js';

interface TakenSeat { seat_id: string; section: string; row_no: number; seat_no: number; version: number }

/**
 * Check-and-take on SQLite. Each claim is one unit of the group commit: it holds the write lock
 * from its first statement to its last, so the state it decides on is the state it writes to, and
 * concurrent buyers (later units of the batch) see its seats taken. Every take is still a
 * conditional statement checked by its row count, and the schema's guards (one live claim per
 * seat, stock within 0..capacity, units >= 0) refuse what a wrong take would write.
 */
export function sqliteInventory(db: Db, gc: GroupCommit, shows: ShowCache, shared: Shared, choose: SeatChooser, ob: OutboxWriter, offerWaitlist: (input: OfferWaitlistInput) => OfferWaitlistOutcome): InventoryStore {
  const q = {
    // Hot: one statement takes every requested seat, only those still AVAILABLE; the row count says
    // whether all were. RETURNING gives the sections and places for the lines and the read model.
    takeSeats: byCount(db, (marks) => `UPDATE seats SET status = 'HELD', hold_id = ?, version = version + 1
      WHERE show_id = ? AND seat_id IN (${marks}) AND status = 'AVAILABLE'
      RETURNING seat_id, section, row_no, seat_no, version`),
    // Hot: the per-buyer cap as one conditional upsert; no row changed means the cap refused it.
    unitsUp: db.prepare(`INSERT INTO user_show_units (user_id, show_id, units) VALUES (?, ?, ?)
      ON CONFLICT (user_id, show_id) DO UPDATE SET units = units + excluded.units WHERE units + excluded.units <= ?`),
    units: db.prepare('SELECT units FROM user_show_units WHERE user_id = ? AND show_id = ?'),
    // Hot: conditional decrement; CHECK (available BETWEEN 0 AND capacity) backs it.
    stockDown: db.prepare('UPDATE sections SET available = available - ?, stock_version = stock_version + 1 WHERE show_id = ? AND section_id = ? AND available >= ? RETURNING available, stock_version'),
    stock: db.prepare('SELECT available FROM sections WHERE show_id = ? AND section_id = ?'),
    holdInsert: db.prepare(`INSERT INTO holds (hold_id, show_id, user_id, total_price_cents, units, status, created_at, expires_at, extensions)
      VALUES (?, ?, ?, ?, ?, 'ACTIVE', ?, ?, 0)`),
    // Hot: every line of the hold in one multi-row insert; "one live claim per seat" guards it.
    linesInsert: byCount(db, (marks) => `INSERT INTO hold_lines (hold_id, line_no, show_id, section_id, seat_id, quantity, claim) VALUES ${
      marks.split(', ').map(() => '(?, ?, ?, ?, ?, ?, 1)').join(', ')}`),
    seatsByIds: byCount(db, (marks) => `SELECT seat_id, section, status FROM seats WHERE show_id = ? AND seat_id IN (${marks})`),
    liveClaims: byCount(db, (marks) => `SELECT seat_id FROM hold_lines WHERE show_id = ? AND claim = 1 AND seat_id IN (${marks})`),
    lapse: db.prepare(`UPDATE holds SET status = @status WHERE hold_id = @holdId AND status = 'ACTIVE'
      AND CASE @status WHEN 'EXPIRED' THEN expires_at <= @now ELSE expires_at = @expectedExpiresAt END RETURNING *`),
    abandonExchange: db.prepare(`UPDATE exchanges SET status = 'ABANDONED' WHERE new_order_id = ? AND status = 'PENDING'`),
    // The NOT IN term repeats the partial index's condition so the planner uses "one live order
    // per hold" (a lookup by hold) rather than every INIT and PENDING_PAY order by status.
    cancelUnpaid: db.prepare(`UPDATE orders SET status = 'CANCELLED', updated_at = ?
      WHERE hold_id = ? AND status NOT IN ('CANCELLED','REFUNDED') AND status IN ('INIT','PENDING_PAY') RETURNING *`),
    extend: db.prepare(`UPDATE holds SET expires_at = ?, extensions = ?
      WHERE hold_id = ? AND status = 'ACTIVE' AND expires_at = ? AND extensions = ? RETURNING *`),
    holdExists: db.prepare('SELECT 1 FROM holds WHERE hold_id = ?'),
    overdue: db.prepare(`SELECT * FROM holds WHERE status = 'ACTIVE' AND expires_at <= ? AND (expires_at, hold_id) > (?, ?)
      ORDER BY expires_at, hold_id LIMIT ?`),
    // A buyer's live holds, from the partial index holds_active_by_user (migration v8).
    activeOfUser: db.prepare(`SELECT * FROM holds WHERE user_id = ? AND status = 'ACTIVE' AND expires_at > ?
      ORDER BY expires_at, hold_id LIMIT ? OFFSET ?`),
  };

  /** Refusal of the per-buyer cap, with what the buyer has now. */
  const limitReached = (input: ClaimBase): ClaimOutcome => ({
    ok: false, code: 'PURCHASE_LIMIT_REACHED', limit: input.userUnitsMax,
    claimed: (q.units.get(input.userId, input.showId) as { units: number } | undefined)?.units ?? 0,
  });

  /** The conditional increment of the buyer's units; false when the cap refuses it. */
  const countUnits = (input: ClaimBase, units: number): boolean =>
    units <= input.userUnitsMax && q.unitsUp.run(input.userId, input.showId, units, input.userUnitsMax).changes === 1;

  /** Inserts the hold and its lines (lines already taken), and returns it. */
  function insertHold(input: ClaimBase, info: ShowInfo, lines: readonly ReservationLine[]): Hold {
    const values: unknown[] = [];
    let lineNo = 0;
    for (const line of lines) {
      if (line.kind === 'SEATS') for (const seatId of line.seatIds) values.push(input.holdId, lineNo++, input.showId, line.sectionId, seatId, 1);
      else values.push(input.holdId, lineNo++, input.showId, line.sectionId, null, line.quantity);
    }
    const units = unitsOf(lines);
    const price = holdPriceCents(lines, (sectionId) => info.sections.get(sectionId)?.priceCents);
    q.holdInsert.run(input.holdId, input.showId, input.userId, price, units, input.now, input.expiresAt);
    q.linesInsert(lineNo).run(values);
    return {
      holdId: input.holdId, showId: input.showId, userId: input.userId, lines, totalPriceCents: price, status: 'ACTIVE',
      createdAt: input.now, expiresAt: input.expiresAt, extensions: 0,
    };
  }

  /** Why a seat claim failed, in the port's order: SEAT_NOT_FOUND, PURCHASE_LIMIT_REACHED, SEAT_UNAVAILABLE. */
  function refuseSeats(input: ClaimSeatsInput, info: ShowInfo | null, taken: ReadonlySet<string>): ClaimOutcome {
    const found = new Map<string, string>();
    for (const row of q.seatsByIds(input.seatIds.length).all(input.showId, ...input.seatIds) as { seat_id: string; section: string }[]) {
      if (info?.sections.get(row.section)?.sellBy === 'SEAT') found.set(row.seat_id, row.section);
    }
    const missing = input.seatIds.filter((id) => !found.has(id));
    if (missing.length > 0) return { ok: false, code: 'SEAT_NOT_FOUND', seatIds: missing };
    const claimed = (q.units.get(input.userId, input.showId) as { units: number } | undefined)?.units ?? 0;
    if (claimed + input.seatIds.length > input.userUnitsMax) return limitReached(input);
    return { ok: false, code: 'SEAT_UNAVAILABLE', seatIds: input.seatIds.filter((id) => !taken.has(id)) };
  }

  /**
   * Takes exactly these seats for the hold (the unit's write lock makes the check and the take
   * one step), counts them against the buyer's cap, and inserts the hold and its lines. Anything
   * refused rolls the unit back through Rollback.
   */
  function claimExactSeats(input: ClaimSeatsInput, info: ShowInfo | null, chosen?: { adjacent: boolean }): ClaimOutcome & { ok: true } {
    const { seatIds } = input;
    const rows = q.takeSeats(seatIds.length).all(input.holdId, input.showId, ...seatIds) as TakenSeat[];
    const bySeat = new Map(rows.map((r) => [r.seat_id, r]));
    const sellsBySeat = rows.every((r) => info?.sections.get(r.section)?.sellBy === 'SEAT');
    if (info === null || rows.length !== seatIds.length || !sellsBySeat) {
      throw new Rollback(refuseSeats(input, info, new Set(sellsBySeat ? bySeat.keys() : [])));
    }
    // Best-available counted the units before choosing (the cap is checked before the stock).
    if (chosen === undefined && !countUnits(input, seatIds.length)) throw new Rollback(limitReached(input));
    const ordered = seatIds.map((id) => bySeat.get(id) as TakenSeat);
    const perSection = new Map<string, number>();
    for (const seat of ordered) perSection.set(seat.section, (perSection.get(seat.section) ?? 0) + 1);
    for (const [sectionId, n] of perSection) {
      if (q.stockDown.get(n, input.showId, sectionId, n) === undefined) throw new Error(`section ${sectionId} of ${input.showId}: free seats and count disagree`);
    }
    const lines = seatLines(ordered.map((s) => ({ seatId: s.seat_id, section: s.section })));
    let hold: Hold;
    try {
      hold = insertHold(input, info, lines);
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      // A seat marked free while another hold still has a live claim on it: the partial unique
      // index is the last line of defence, and its refusal is a typed outcome.
      const claimed = q.liveClaims(seatIds.length).all(input.showId, ...seatIds) as { seat_id: string }[];
      throw new Rollback<ClaimOutcome>({ ok: false, code: 'SEAT_UNAVAILABLE', seatIds: claimed.map((r) => r.seat_id) });
    }
    const changes: InventoryChanges = { showId: input.showId, seats: ordered.map((s) => ({ seatId: s.seat_id, status: 'HELD', holdId: input.holdId, version: s.version })), stock: [] };
    ob.append(input.now, [holdCreated(hold, changes)]);
    return {
      ok: true,
      hold,
      adjacent: chosen?.adjacent ?? formsAdjacentRun(ordered.map((s) => ({ section: s.section, row: s.row_no, number: s.seat_no }))),
      changes,
    };
  }

  return {
    claimSeats: (input) => gc.write('claimSeats', () => claimExactSeats(input, shows.get(input.showId))),

    claimBestAvailable: (input) =>
      gc.write('claimBestAvailable', (): ClaimOutcome => {
        const info = shows.get(input.showId);
        if (info === null) return { ok: false, code: 'NOT_ENOUGH_SEATS' };
        if (!countUnits(input, input.quantity)) return limitReached(input);
        // A section sold by quantity is claimed by count (claimUnits), never seat by seat.
        if (input.sectionId !== undefined && info.sections.get(input.sectionId)?.counted !== false) throw new Rollback<ClaimOutcome>({ ok: false, code: 'NOT_ENOUGH_SEATS' });
        const choice = choose(input.showId, info.show.seatMap, {
          quantity: input.quantity,
          adjacentOnly: input.adjacentOnly,
          ...(input.sectionId === undefined ? {} : { section: input.sectionId }),
          ...(input.near === undefined ? {} : { near: input.near }),
          ...(input.accessibleMin === undefined ? {} : { accessibleMin: input.accessibleMin }),
        });
        if (choice === null) throw new Rollback<ClaimOutcome>({ ok: false, code: 'NOT_ENOUGH_SEATS' });
        // The chooser saw only free seats and nothing else writes in between: the take succeeds
        // (and if it did not, claimExactSeats rolls the whole unit back with the reason).
        return claimExactSeats({ ...input, seatIds: choice.seatIds }, info, choice);
      }),

    claimUnits: (input) =>
      gc.write('claimUnits', (): ClaimOutcome => {
        const info = shows.get(input.showId);
        const section = info?.sections.get(input.sectionId);
        if (info === null || section === undefined || !section.counted) return { ok: false, code: 'NOT_ENOUGH_SEATS', available: 0 };
        if (!countUnits(input, input.quantity)) return limitReached(input);
        const after = q.stockDown.get(input.quantity, input.showId, input.sectionId, input.quantity) as records.StockRow | undefined;
        if (after === undefined) {
          const left = (q.stock.get(input.showId, input.sectionId) as { available: number }).available;
          throw new Rollback<ClaimOutcome>({ ok: false, code: 'NOT_ENOUGH_SEATS', available: left });
        }
        const hold = insertHold(input, info, [{ kind: 'UNITS', sectionId: input.sectionId, quantity: input.quantity }]);
        const changes: InventoryChanges = { showId: input.showId, seats: [], stock: [{ sectionId: input.sectionId, delta: -input.quantity, buckets: [records.toBucket(after)] }] };
        ob.append(input.now, [holdCreated(hold, changes)]);
        return { ok: true, hold, adjacent: false, changes };
      }),

    lapseHold: (input: LapseHoldInput) =>
      gc.write('lapseHold', (): LapseHoldOutcome => {
        const status = input.event === 'EXPIRE' ? 'EXPIRED' : 'RELEASED';
        // The hold's own transition is the guard: only the lapse that moves it off ACTIVE gives back.
        const row = q.lapse.get({ status, holdId: input.holdId, now: input.now, expectedExpiresAt: input.expectedExpiresAt }) as records.HoldRow | undefined;
        if (row === undefined) return q.holdExists.get(input.holdId) === undefined ? { ok: false, code: 'HOLD_NOT_FOUND' } : { ok: false, stale: 'hold' };
        const changes = shared.giveBack(row);
        const cancelled = q.cancelUnpaid.get(input.now, input.holdId) as records.OrderRow | undefined;
        const hold = shared.hold(row);
        const cancelledOrder = cancelled === undefined ? null : records.toOrder(cancelled, hold.lines);
        // A dearer exchange's difference order ends with its hold: the exchange is ABANDONED (exchangeMachine), the old tickets untouched.
        if (cancelled !== undefined) q.abandonExchange.run(cancelled.order_id);
        ob.append(input.now, [holdEnded(hold, changes), cancelledOrder === null ? null : orderMoved(cancelledOrder, null)]);
        // The waitlist goes first, in this same unit: the seats never show as free to the public.
        const offered: WaitlistOffer[] = [];
        for (const holdId of input.waitlist?.holdIds ?? []) {
          const w = input.waitlist as NonNullable<LapseHoldInput['waitlist']>;
          const offer = offerWaitlist({ showId: hold.showId, holdId, now: input.now, claimUntil: w.claimUntil, userUnitsMax: w.userUnitsMax });
          if (!offer.ok) break;
          offered.push({ entry: offer.entry, hold: offer.hold, changes: offer.changes });
        }
        return { ok: true, hold, cancelledOrder, changes, ...(input.waitlist === undefined ? {} : { offered }) };
      }),

    extendHold: (input: ExtendHoldInput) =>
      gc.write('extendHold', (): ExtendHoldOutcome => {
        const row = q.extend.get(input.expiresAt, input.extensions, input.holdId, input.expectedExpiresAt, input.expectedExtensions) as records.HoldRow | undefined;
        if (row === undefined) return q.holdExists.get(input.holdId) === undefined ? { ok: false, code: 'HOLD_NOT_FOUND' } : { ok: false, stale: 'hold' };
        return { ok: true, hold: shared.hold(row) };
      }),

    getHold: async (holdId) => {
      const row = shared.holdRow(holdId);
      return row === null ? null : shared.hold(row);
    },

    activeHoldsOfUser: async (userId: string, now: number, page: Page) =>
      (q.activeOfUser.all(userId, now, page.limit, page.offset) as records.HoldRow[]).map(shared.hold),

    overdueHolds: async (now: number, after: KeysetPosition | null, limit: number) =>
      (q.overdue.all(now, after?.at ?? -1, after?.id ?? '', limit) as records.HoldRow[]).map(shared.hold),
  };
}
