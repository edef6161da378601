import type pg from 'pg';
import { holdPriceCents, waitlistLimits, type Hold, type ReservationLine, type WaitlistEntry, type WaitlistStatus } from '../../domain/index.js';
import type { InventoryChanges, OfferWaitlistInput, OfferWaitlistOutcome, SeatChange, WaitlistStore } from '../../ports/engine/index.js';
import { holdCreated, waitlistOffered } from '../shared/outbox-drafts.js';
import { seatLinesOf } from './claim-results.js';
import { unexpected, type PgLanes } from './db.js';
import { appendOutbox } from './outbox.js';
import { insertHold, takeSeats, takeUnits, takeUserUnits } from './stock.js';

interface EntryRow {
  entry_id: string; show_id: string; user_id: string; section_id: string | null; quantity: number; status: WaitlistStatus;
  joined_at: string | number; hold_id: string | null; claim_until: string | number | null; updated_at: string | number;
}

const toEntry = (r: EntryRow): WaitlistEntry => ({
  entryId: r.entry_id, showId: r.show_id, userId: r.user_id, sectionId: r.section_id, quantity: r.quantity, status: r.status,
  joinedAt: Number(r.joined_at), holdId: r.hold_id, claimUntil: r.claim_until === null ? null : Number(r.claim_until), updatedAt: Number(r.updated_at),
});

interface SectionRow { section_id: string; sell_by: 'SEAT' | 'QUANTITY'; price_cents: number }

async function takeFor(c: pg.ClientBase, entry: EntryRow, sections: ReadonlyMap<string, SectionRow>, input: OfferWaitlistInput): Promise<{ lines: ReservationLine[]; insert: { sectionId: string; seatId: string | null; bucket: number | null; quantity: number }[]; changes: InventoryChanges } | null> {
  const section = entry.section_id === null ? null : sections.get(entry.section_id);
  if (section === undefined) return null;
  if (section !== null && section.sell_by === 'QUANTITY') {
    const take = await takeUnits(c, input.showId, section.section_id, entry.quantity);
    if (!take.ok) return null;
    return {
      lines: [{ kind: 'UNITS', sectionId: section.section_id, quantity: entry.quantity }],
      insert: take.takes.map((t) => ({ sectionId: section.section_id, seatId: null, bucket: t.bucket, quantity: t.quantity })),
      changes: { showId: input.showId, seats: [], stock: [{ sectionId: section.section_id, delta: -entry.quantity, buckets: take.buckets }] },
    };
  }
  // Free seats, front rows first; a seat a buyer is taking right now is skipped, not waited for.
  const { rows } = await c.query<{ seat_id: string; section_id: string }>(
    `SELECT s.seat_id, s.section_id FROM seats s
     JOIN sections c ON c.show_id = s.show_id AND c.section_id = s.section_id AND c.sell_by = 'SEAT'
     WHERE s.show_id = $1 AND s.status = 'AVAILABLE' AND ($2::text IS NULL OR s.section_id = $2::text)
     ORDER BY c.position, s.row_no, s.seat_no LIMIT $3 FOR UPDATE OF s SKIP LOCKED`,
    [input.showId, entry.section_id, entry.quantity]);
  if (rows.length < entry.quantity) return null;
  const ids = rows.map((r) => r.seat_id);
  const taken: SeatChange[] = await takeSeats(c, input.showId, input.holdId, ids, 'HELD');
  if (taken.length !== ids.length) return null;
  const sectionOf = new Map(rows.map((r) => [r.seat_id, r.section_id]));
  const byId = new Map(taken.map((s) => [s.seatId, s]));
  return {
    lines: seatLinesOf(ids, sectionOf),
    insert: ids.map((seatId) => ({ sectionId: sectionOf.get(seatId) as string, seatId, bucket: null, quantity: 1 })),
    changes: { showId: input.showId, seats: ids.map((id) => byId.get(id) as SeatChange), stock: [] },
  };
}

/**
 * The offer inside a transaction of the caller (offerWaitlist's own, or a lapse's: see
 * LapseHoldInput.waitlist): after the caller's locks, it takes the waitlist rows, then seats or
 * buckets, then the buyer's counter.
 */
export async function offerInTx(c: pg.ClientBase, origin: string, input: OfferWaitlistInput): Promise<OfferWaitlistOutcome> {
  const line = await c.query<EntryRow>(
    `SELECT * FROM waitlist_entries WHERE show_id = $1 AND status = 'WAITING'
     ORDER BY joined_at, entry_id COLLATE "C" LIMIT $2 FOR UPDATE SKIP LOCKED`, [input.showId, waitlistLimits.offerScanMax]);
  if (line.rows.length === 0) return { ok: false, code: 'NOTHING_TO_OFFER' };
  const secs = await c.query<SectionRow>('SELECT section_id, sell_by, price_cents FROM sections WHERE show_id = $1', [input.showId]);
  const sections = new Map(secs.rows.map((r) => [r.section_id, r]));
  for (const entry of line.rows) {
    await c.query('SAVEPOINT entry');
    const got = await takeFor(c, entry, sections, input);
    // Seats or stock, then the buyer's counter: the lock order of stock.ts.
    const units = got === null ? null : await takeUserUnits(c, entry.user_id, input.showId, entry.quantity, input.userUnitsMax);
    if (got === null || units === null || !units.ok) {
      await c.query('ROLLBACK TO SAVEPOINT entry');
      continue;
    }
    const total = holdPriceCents(got.lines, (sectionId) => sections.get(sectionId)?.price_cents);
    await insertHold(c, { holdId: input.holdId, showId: input.showId, userId: entry.user_id, totalPriceCents: total, units: entry.quantity, createdAt: input.now, expiresAt: input.claimUntil }, got.insert);
    const moved = await c.query<EntryRow>(
      `UPDATE waitlist_entries SET status = 'OFFERED', hold_id = $2, claim_until = $3, updated_at = $4
       WHERE entry_id = $1 AND status = 'WAITING' RETURNING *`, [entry.entry_id, input.holdId, input.claimUntil, input.now]);
    if (moved.rows[0] === undefined) {
      await c.query('ROLLBACK TO SAVEPOINT entry');
      continue;
    }
    const offered = toEntry(moved.rows[0]);
    const hold: Hold = {
      holdId: input.holdId, showId: input.showId, userId: entry.user_id, lines: got.lines, totalPriceCents: total, status: 'ACTIVE',
      createdAt: input.now, expiresAt: input.claimUntil, extensions: 0,
    };
    await appendOutbox(c, origin, input.now, [holdCreated(hold, got.changes), waitlistOffered(offered, input.holdId, input.claimUntil)]);
    return { ok: true, entry: offered, hold, changes: got.changes };
  }
  return { ok: false, code: 'NOTHING_TO_OFFER' };
}

/**
 * The waitlist on PostgreSQL, in the checkout lane (offers follow releases and expiries, which run
 * there). The offer is one READ COMMITTED transaction: the WAITING entries it looks at are locked
 * (FOR UPDATE SKIP LOCKED: two relays offering at once serve different entries), the free seats
 * are locked and taken by the claim's own conditional update (status = 'AVAILABLE'), so a buyer
 * claiming the same seat either took it first (the offer skips it) or waits for the offer and
 * finds it HELD. Each entry is tried under a savepoint: one the cap refuses is undone and skipped.
 */
export function pgWaitlist(lanes: PgLanes, origin: string): WaitlistStore {
  const db = lanes.checkout;

  return {
    async joinWaitlist(input) {
      const result = await db.tx('joinWaitlist', async (c) => {
        const { rows } = await c.query<EntryRow>(
          `INSERT INTO waitlist_entries (entry_id, show_id, user_id, section_id, quantity, status, joined_at, hold_id, claim_until, updated_at)
           VALUES ($1, $2, $3, $4, $5, 'WAITING', $6, NULL, NULL, $6) RETURNING *`,
          [input.entryId, input.showId, input.userId, input.sectionId, input.quantity, input.now]);
        return toEntry(rows[0] as EntryRow);
      });
      if (result.ok) return { ok: true, entry: result.value };
      if (result.kind === 'unique' && result.constraint === 'waitlist_one_live_per_user') {
        const { rows } = await db.query<EntryRow>("SELECT * FROM waitlist_entries WHERE show_id = $1 AND user_id = $2 AND status IN ('WAITING','OFFERED')", [input.showId, input.userId]);
        return { ok: false, code: 'WAITLIST_ALREADY_JOINED', entry: rows[0] === undefined ? null : toEntry(rows[0]) };
      }
      return unexpected('joinWaitlist', result);
    },

    async leaveWaitlist(input) {
      const { rows } = await db.query<EntryRow>(
        `UPDATE waitlist_entries SET status = 'LEFT', updated_at = $3
         WHERE show_id = $1 AND user_id = $2 AND status IN ('WAITING','OFFERED') RETURNING *`, [input.showId, input.userId, input.now]);
      return rows[0] === undefined ? { ok: false, code: 'WAITLIST_NOT_FOUND' } : { ok: true, entry: toEntry(rows[0]) };
    },

    async offerWaitlist(input) {
      const result = await db.tx('offerWaitlist', (c) => offerInTx(c, origin, input));
      if (result.ok) return result.value;
      // The storage's last word on a seat: a second live claim is refused, and nothing was offered.
      if (result.kind === 'unique' && result.constraint === 'hold_lines_one_live_claim') return { ok: false, code: 'NOTHING_TO_OFFER' };
      return unexpected('offerWaitlist', result);
    },

    async settleWaitlistOffer(input) {
      const { rows } = await db.query<EntryRow>(
        `UPDATE waitlist_entries SET status = $2, updated_at = $3 WHERE hold_id = $1 AND status = 'OFFERED' RETURNING *`,
        [input.holdId, input.event === 'CLAIM' ? 'CLAIMED' : 'LAPSED', input.now]);
      return rows[0] === undefined ? null : toEntry(rows[0]);
    },

    async waitlistOfUser(userId, limit) {
      const { rows } = await db.query<EntryRow>('SELECT * FROM waitlist_entries WHERE user_id = $1 ORDER BY joined_at DESC, entry_id COLLATE "C" DESC LIMIT $2', [userId, limit]);
      return rows.map(toEntry);
    },

    async waitingCount(showId) {
      const { rows } = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM waitlist_entries WHERE show_id = $1 AND status = 'WAITING'", [showId]);
      return rows[0]?.n ?? 0;
    },
  };
}
