import type { Database as Db } from 'better-sqlite3';
import { holdPriceCents, seatLines, waitlistLimits, type Hold, type ReservationLine, type WaitlistEntry, type WaitlistStatus } from '../../domain/index.js';
import type { InventoryChanges, OfferWaitlistInput, OfferWaitlistOutcome, WaitlistStore } from '../../ports/engine/index.js';
import { holdCreated, waitlistOffered } from '../shared/outbox-drafts.js';
import type { GroupCommit } from './group-commit.js';
import type { OutboxWriter } from './outbox.js';
import * as records from './records.js';
import { byCount, isUniqueViolation } from './shared.js';
import type { ShowCache, ShowInfo } from './shows.js';

interface EntryRow {
  entry_id: string; show_id: string; user_id: string; section_id: string | null; quantity: number; status: WaitlistStatus;
  joined_at: number; hold_id: string | null; claim_until: number | null; updated_at: number;
}

const toEntry = (r: EntryRow): WaitlistEntry => ({
  entryId: r.entry_id, showId: r.show_id, userId: r.user_id, sectionId: r.section_id, quantity: r.quantity, status: r.status,
  joinedAt: r.joined_at, holdId: r.hold_id, claimUntil: r.claim_until, updatedAt: r.updated_at,
});

interface FreeSeat { seat_id: string; section: string; version: number }

/**
 * The waitlist on SQLite. The offer is one unit of the group commit: the line, the free seats or
 * stock, the buyer's cap, the hold and the entry's move are decided and written under one write
 * lock, each take still a conditional statement checked by its row count (the same guards as a
 * claim: seats only while AVAILABLE, stock only while enough, one live claim per seat).
 *
 * The offer as a step to run INSIDE a unit of the group commit (its own, or a lapse's: see
 * LapseHoldInput.waitlist). Under the write lock nothing changes between its reads and writes; a
 * take that still finds fewer rows than it read is an invariant broken, thrown (the unit rolls back).
 */
export function sqliteWaitlistOffer(db: Db, shows: ShowCache, ob: OutboxWriter): (input: OfferWaitlistInput) => OfferWaitlistOutcome {
  const q = {
    line: db.prepare("SELECT * FROM waitlist_entries WHERE show_id = ? AND status = 'WAITING' ORDER BY joined_at, entry_id LIMIT ?"),
    // Free seats of sections sold seat by seat, front rows first (the order the map is drawn).
    freeSeats: db.prepare(`SELECT s.seat_id, s.section, s.version FROM seats s
      JOIN sections c ON c.show_id = s.show_id AND c.section_id = s.section AND c.sell_by = 'SEAT'
      WHERE s.show_id = @showId AND s.status = 'AVAILABLE' AND (@section IS NULL OR s.section = @section)
      ORDER BY c.position, s.row_no, s.seat_no LIMIT @n`),
    // The take of a claim: only seats still AVAILABLE; the row count says whether all were.
    takeSeats: byCount(db, (marks) => `UPDATE seats SET status = 'HELD', hold_id = ?, version = version + 1
      WHERE show_id = ? AND seat_id IN (${marks}) AND status = 'AVAILABLE' RETURNING seat_id, section, version`),
    stockDown: db.prepare('UPDATE sections SET available = available - ?, stock_version = stock_version + 1 WHERE show_id = ? AND section_id = ? AND available >= ? RETURNING available, stock_version'),
    units: db.prepare('SELECT units FROM user_show_units WHERE user_id = ? AND show_id = ?'),
    unitsUp: db.prepare(`INSERT INTO user_show_units (user_id, show_id, units) VALUES (?, ?, ?)
      ON CONFLICT (user_id, show_id) DO UPDATE SET units = units + excluded.units WHERE units + excluded.units <= ?`),
    holdInsert: db.prepare(`INSERT INTO holds (hold_id, show_id, user_id, total_price_cents, units, status, created_at, expires_at, extensions)
      VALUES (?, ?, ?, ?, ?, 'ACTIVE', ?, ?, 0)`),
    lineInsert: db.prepare('INSERT INTO hold_lines (hold_id, line_no, show_id, section_id, seat_id, quantity, claim) VALUES (?, ?, ?, ?, ?, ?, 1)'),
    // The entry's move is conditional on WAITING: an entry that left meanwhile is not offered.
    offer: db.prepare(`UPDATE waitlist_entries SET status = 'OFFERED', hold_id = ?, claim_until = ?, updated_at = ?
      WHERE entry_id = ? AND status = 'WAITING' RETURNING *`),
  };

  /** The buyer's cap, read under the write lock (nothing else writes in between). */
  const fitsCap = (userId: string, showId: string, n: number, max: number): boolean =>
    ((q.units.get(userId, showId) as { units: number } | undefined)?.units ?? 0) + n <= max;

  /** Takes what the entry asks for, or answers null having written nothing. */
  function take(info: ShowInfo, entry: EntryRow, input: OfferWaitlistInput): { lines: ReservationLine[]; changes: InventoryChanges } | null {
    const section = entry.section_id === null ? null : info.sections.get(entry.section_id);
    if (section === undefined) return null;
    if (section !== null && section.counted) {
      const after = q.stockDown.get(entry.quantity, input.showId, section.id, entry.quantity) as records.StockRow | undefined;
      if (after === undefined) return null;
      return {
        lines: [{ kind: 'UNITS', sectionId: section.id, quantity: entry.quantity }],
        changes: { showId: input.showId, seats: [], stock: [{ sectionId: section.id, delta: -entry.quantity, buckets: [records.toBucket(after)] }] },
      };
    }
    const free = q.freeSeats.all({ showId: input.showId, section: entry.section_id, n: entry.quantity }) as FreeSeat[];
    if (free.length < entry.quantity) return null;
    const ids = free.map((s) => s.seat_id);
    const taken = q.takeSeats(ids.length).all(input.holdId, input.showId, ...ids) as FreeSeat[];
    if (taken.length !== ids.length) throw new Error(`offerWaitlist on ${input.showId}: the write lock did not hold`);
    const perSection = new Map<string, number>();
    for (const seat of taken) perSection.set(seat.section, (perSection.get(seat.section) ?? 0) + 1);
    for (const [sectionId, n] of perSection) {
      if (q.stockDown.get(n, input.showId, sectionId, n) === undefined) throw new Error(`section ${sectionId} of ${input.showId}: free seats and count disagree`);
    }
    const bySeat = new Map(taken.map((s) => [s.seat_id, s]));
    const ordered = ids.map((id) => bySeat.get(id) as FreeSeat);
    return {
      lines: seatLines(ordered.map((s) => ({ seatId: s.seat_id, section: s.section }))),
      changes: { showId: input.showId, seats: ordered.map((s) => ({ seatId: s.seat_id, status: 'HELD', holdId: input.holdId, version: s.version })), stock: [] },
    };
  }

  function offerOnce(input: OfferWaitlistInput): OfferWaitlistOutcome {
    const info = shows.get(input.showId);
    if (info === null) return { ok: false, code: 'NOTHING_TO_OFFER' };
    for (const entry of q.line.all(input.showId, waitlistLimits.offerScanMax) as EntryRow[]) {
      if (!fitsCap(entry.user_id, input.showId, entry.quantity, input.userUnitsMax)) continue;
      const got = take(info, entry, input);
      if (got === null) continue;
      if (q.unitsUp.run(entry.user_id, input.showId, entry.quantity, input.userUnitsMax).changes !== 1) throw new Error(`offerWaitlist on ${input.showId}: the write lock did not hold`);
      const price = holdPriceCents(got.lines, (sectionId) => info.sections.get(sectionId)?.priceCents);
      q.holdInsert.run(input.holdId, input.showId, entry.user_id, price, entry.quantity, input.now, input.claimUntil);
      let lineNo = 0;
      for (const line of got.lines) {
        if (line.kind === 'SEATS') for (const seatId of line.seatIds) q.lineInsert.run(input.holdId, lineNo++, input.showId, line.sectionId, seatId, 1);
        else q.lineInsert.run(input.holdId, lineNo++, input.showId, line.sectionId, null, line.quantity);
      }
      const moved = q.offer.get(input.holdId, input.claimUntil, input.now, entry.entry_id) as EntryRow | undefined;
      if (moved === undefined) throw new Error(`offerWaitlist on ${input.showId}: the write lock did not hold`);
      const hold: Hold = {
        holdId: input.holdId, showId: input.showId, userId: entry.user_id, lines: got.lines, totalPriceCents: price, status: 'ACTIVE',
        createdAt: input.now, expiresAt: input.claimUntil, extensions: 0,
      };
      ob.append(input.now, [holdCreated(hold, got.changes), waitlistOffered(toEntry(moved), input.holdId, input.claimUntil)]);
      return { ok: true, entry: toEntry(moved), hold, changes: got.changes };
    }
    return { ok: false, code: 'NOTHING_TO_OFFER' };
  }
  return offerOnce;
}

export function sqliteWaitlist(db: Db, gc: GroupCommit, offerOnce: (input: OfferWaitlistInput) => OfferWaitlistOutcome): WaitlistStore {
  const q = {
    insert: db.prepare(`INSERT INTO waitlist_entries (entry_id, show_id, user_id, section_id, quantity, status, joined_at, hold_id, claim_until, updated_at)
      VALUES (?, ?, ?, ?, ?, 'WAITING', ?, NULL, NULL, ?) RETURNING *`),
    live: db.prepare("SELECT * FROM waitlist_entries WHERE show_id = ? AND user_id = ? AND status IN ('WAITING','OFFERED')"),
    leave: db.prepare(`UPDATE waitlist_entries SET status = 'LEFT', updated_at = ?
      WHERE show_id = ? AND user_id = ? AND status IN ('WAITING','OFFERED') RETURNING *`),
    settle: db.prepare(`UPDATE waitlist_entries SET status = ?, updated_at = ? WHERE hold_id = ? AND status = 'OFFERED' RETURNING *`),
    ofUser: db.prepare('SELECT * FROM waitlist_entries WHERE user_id = ? ORDER BY joined_at DESC, entry_id DESC LIMIT ?'),
    waiting: db.prepare("SELECT count(*) AS n FROM waitlist_entries WHERE show_id = ? AND status = 'WAITING'"),
  };

  return {
    joinWaitlist: (input) =>
      gc.write('joinWaitlist', () => {
        try {
          const row = q.insert.get(input.entryId, input.showId, input.userId, input.sectionId, input.quantity, input.now, input.now) as EntryRow;
          return { ok: true, entry: toEntry(row) } as const;
        } catch (error) {
          if (!isUniqueViolation(error)) throw error;
          const live = q.live.get(input.showId, input.userId) as EntryRow | undefined;
          return { ok: false, code: 'WAITLIST_ALREADY_JOINED', entry: live === undefined ? null : toEntry(live) } as const;
        }
      }),

    leaveWaitlist: (input) =>
      gc.write('leaveWaitlist', () => {
        const row = q.leave.get(input.now, input.showId, input.userId) as EntryRow | undefined;
        return row === undefined ? ({ ok: false, code: 'WAITLIST_NOT_FOUND' } as const) : ({ ok: true, entry: toEntry(row) } as const);
      }),

    offerWaitlist: (input) => gc.write('offerWaitlist', () => offerOnce(input)),

    settleWaitlistOffer: (input) =>
      gc.write('settleWaitlistOffer', () => {
        const row = q.settle.get(input.event === 'CLAIM' ? 'CLAIMED' : 'LAPSED', input.now, input.holdId) as EntryRow | undefined;
        return row === undefined ? null : toEntry(row);
      }),

    waitlistOfUser: async (userId, limit) => (q.ofUser.all(userId, limit) as EntryRow[]).map(toEntry),

    waitingCount: async (showId) => (q.waiting.get(showId) as { n: number }).n,
  };
}
