import type pg from 'pg';
import { formsAdjacentRun, holdPriceCents, type Hold, type ReservationLine } from '../../domain/index.js';
import type { ClaimBase, ClaimOutcome, InventoryStore, LapseHoldInput, SeatChange, WaitlistOffer } from '../../ports/engine/index.js';
import { offerInTx } from './waitlist.js';
import { pgBestAvailable } from './best-available.js';
import { adjacentTaken, heldBy, newHold, seatChangesOf, seatLinesOf, unitsOf } from './claim-results.js';
import { claimSeatsStatement, claimUnitsStatement } from './claim-statements.js';
import { holdCreated, holdEnded, orderMoved } from '../shared/outbox-drafts.js';
import { unexpected, type PgLanes } from './db.js';
import { appendOutbox } from './outbox.js';
import { loadHolds, toOrder, type HoldRow, type OrderRow } from './rows.js';
import { giveBack, insertHold, moveUserUnits, refuse, takeSeats, takeUnits, takeUserUnits } from './stock.js';

/** Fast-path tries of a GA claim that found every bucket with enough busy, before it locks them all. */
const unitsBusyRetriesMax = 8;
/** Upper bound of the random pause between those tries: about one claim statement. */
const unitsBusyPauseMs = 2;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

interface SectionRow { section_id: string; kind: 'SEATED' | 'GENERAL_ADMISSION'; sell_by: 'SEAT' | 'QUANTITY'; price_cents: number }

/** Seat claims: insert the hold and one line row per seat, priced by section. */
async function commitSeatHold(c: pg.ClientBase, origin: string, input: ClaimBase, seatIds: readonly string[], sectionOf: ReadonlyMap<string, string>, sections: ReadonlyMap<string, SectionRow>, taken: SeatChange[], adjacent: boolean): Promise<ClaimOutcome> {
  const lines = seatLinesOf(seatIds, sectionOf);
  const total = holdPriceCents(lines, (sectionId) => sections.get(sectionId)?.price_cents);
  await insertHold(c, { ...input, totalPriceCents: total, units: seatIds.length, createdAt: input.now },
    seatIds.map((seatId) => ({ sectionId: sectionOf.get(seatId) as string, seatId, bucket: null, quantity: 1 })));
  const hold = newHold(input, lines, total);
  const changes = { showId: input.showId, seats: taken, stock: [] };
  await appendOutbox(c, origin, input.now, [holdCreated(hold, changes)]);
  return { ok: true, hold, adjacent, changes };
}

/**
 * Claims run in the rush lane; ending, extending and reading holds in the checkout lane (db.ts):
 * the release of a hold and the expiry sweep are how seats come back, so a rush of claims must
 * not starve them.
 */
export function pgInventory(lanes: PgLanes, origin: string): InventoryStore {
  const db = lanes.rush;
  const checkout = lanes.checkout;
  return {
    // The common case is one statement (claim-statements.ts): every seat free, nobody else taking
    // it. Otherwise a READ COMMITTED transaction of conditional writes decides: (1) the seats are
    // looked up (existence, sold by seat); (2) they are taken by a conditional UPDATE ... WHERE
    // status = 'AVAILABLE' on rows locked in seat-id order, so of two claims on a seat the second
    // waits for the first, re-checks the committed status, and finds it HELD; (3) the buyer's
    // counter is incremented only if it stays within the cap (after the seats: the lock order of
    // stock.ts). Either refusal rolls everything back. The partial unique index on live claims
    // (hold_lines) is the storage's last word.
    async claimSeats(input) {
      // The common case in one statement: every seat free and nobody else taking it.
      const fast = await db.statement('claimSeats', (c) => claimSeatsStatement(c, input, input.seatIds, origin));
      if (fast.ok && fast.value.complete) {
        const r = fast.value;
        if (r.units === null) return { ok: false, code: 'PURCHASE_LIMIT_REACHED', limit: input.userUnitsMax, claimed: await db.read((c) => unitsOf(c, input.userId, input.showId)) };
        return { ok: true, hold: heldBy(input, input.seatIds, r), adjacent: adjacentTaken(r), changes: { showId: input.showId, seats: seatChangesOf(input, input.seatIds, r), stock: [] } };
      }
      if (!fast.ok && !(fast.kind === 'unique' && fast.constraint === 'hold_lines_one_live_claim')) return unexpected('claimSeats', fast);
      // A seat missing, taken, or being taken right now: the transaction below waits for the other
      // claims on these seats and gives the exact refusal (or takes them, if those rolled back).
      const result = await db.tx('claimSeats', async (c) => {
        const { rows } = await c.query<{ seat_id: string; section_id: string; row_no: number; seat_no: number; sell_by: string; price_cents: number }>(
          // The seats by primary key first (MATERIALIZED), then their sections: joined in one
          // step, stale statistics let the planner scan whole sections by seats_by_row instead
          // (50 ms a claim on a 100,000-seat show).
          `WITH s AS MATERIALIZED (SELECT seat_id, section_id, row_no, seat_no FROM seats WHERE show_id = $1 AND seat_id = ANY($2::text[]))
           SELECT s.seat_id, s.section_id, s.row_no, s.seat_no, c.sell_by, c.price_cents FROM s
           JOIN sections c ON c.show_id = $1 AND c.section_id = s.section_id`, [input.showId, input.seatIds]);
        const bySeat = new Map(rows.filter((r) => r.sell_by === 'SEAT').map((r) => [r.seat_id, r]));
        const unknown = input.seatIds.filter((id) => !bySeat.has(id));
        if (unknown.length > 0) return { ok: false, code: 'SEAT_NOT_FOUND', seatIds: unknown } as const;
        // Seats, then the buyer's counter: the lock order of every operation (stock.ts). The
        // refusals are decided after both, in the port's order; either one rolls back both.
        const taken = await takeSeats(c, input.showId, input.holdId, input.seatIds, 'HELD');
        const units = await takeUserUnits(c, input.userId, input.showId, input.seatIds.length, input.userUnitsMax);
        if (!units.ok) refuse<ClaimOutcome>({ ok: false, code: 'PURCHASE_LIMIT_REACHED', limit: input.userUnitsMax, claimed: units.claimed });
        if (taken.length < input.seatIds.length) {
          const got = new Set(taken.map((s) => s.seatId));
          refuse<ClaimOutcome>({ ok: false, code: 'SEAT_UNAVAILABLE', seatIds: input.seatIds.filter((id) => !got.has(id)) });
        }
        const sectionOf = new Map([...bySeat].map(([id, r]) => [id, r.section_id]));
        const sections = new Map([...bySeat.values()].map((r) => [r.section_id, { section_id: r.section_id, kind: 'SEATED', sell_by: 'SEAT', price_cents: r.price_cents } as SectionRow]));
        const byId = new Map(taken.map((s) => [s.seatId, s]));
        const adjacent = formsAdjacentRun([...bySeat.values()].map((r) => ({ section: r.section_id, row: r.row_no, number: r.seat_no })));
        return commitSeatHold(c, origin, input, input.seatIds, sectionOf, sections, input.seatIds.map((id) => byId.get(id) as SeatChange), adjacent);
      });
      if (result.ok) return result.value;
      // Only reachable with the conditional update gone: the unique index still refuses a second live claim.
      if (result.kind === 'unique' && result.constraint === 'hold_lines_one_live_claim') return { ok: false, code: 'SEAT_UNAVAILABLE', seatIds: input.seatIds };
      if (result.kind === 'check' && result.constraint === 'seat_owned_unless_available') return { ok: false, code: 'SEAT_UNAVAILABLE', seatIds: input.seatIds };
      return unexpected('claimSeats', result);
    },

    claimBestAvailable: pgBestAvailable(db, origin),

    // Hot path first: ONE atomic statement (claim-statements.ts) takes a random unlocked bucket
    // with enough stock, the buyer's counter within the cap, and inserts the hold. When no
    // unlocked bucket has enough (stock low or spread thin, or every bucket busy), the
    // transaction below decides over all the section's buckets.
    async claimUnits(input) {
      for (let attempt = 0; ; attempt++) {
        const fast = await db.statement('claimUnits', (c) => claimUnitsStatement(c, input, origin));
        if (!fast.ok) return unexpected('claimUnits', fast);
        if (fast.value.picked && fast.value.bucket !== null && fast.value.units !== null) {
          const total = fast.value.total ?? 0;
          const lines: ReservationLine[] = [{ kind: 'UNITS', sectionId: input.sectionId, quantity: input.quantity }];
          const bucket = { bucket: fast.value.bucket, available: fast.value.bucket_available ?? 0, version: fast.value.bucket_version ?? 0 };
          return { ok: true, hold: newHold(input, lines, total), adjacent: false, changes: { showId: input.showId, seats: [], stock: [{ sectionId: input.sectionId, delta: -input.quantity, buckets: [bucket] }] } };
        }
        if (fast.value.picked) return { ok: false, code: 'PURCHASE_LIMIT_REACHED', limit: input.userUnitsMax, claimed: await db.read((c) => unitsOf(c, input.userId, input.showId)) };
        // Every bucket with enough was locked by another claim at that instant: try again in a
        // moment. Locking every bucket instead (below) would make the claims that follow find them
        // all locked too, and one busy moment would turn into a queue on the whole section.
        if (!fast.value.enough || attempt >= unitsBusyRetriesMax) break;
        await sleep(Math.random() * unitsBusyPauseMs);
      }
      const result = await db.tx('claimUnits', async (c) => {
        const { rows } = await c.query<SectionRow>('SELECT section_id, kind, sell_by, price_cents FROM sections WHERE show_id = $1 AND section_id = $2', [input.showId, input.sectionId]);
        const section = rows[0];
        if (section === undefined || section.sell_by !== 'QUANTITY') return { ok: false, code: 'NOT_ENOUGH_SEATS', available: 0 } as const;
        // Buckets, then the buyer's counter (the lock order of stock.ts); refusals in the port's order.
        const take = await takeUnits(c, input.showId, input.sectionId, input.quantity);
        const units = await takeUserUnits(c, input.userId, input.showId, input.quantity, input.userUnitsMax);
        if (!units.ok) refuse<ClaimOutcome>({ ok: false, code: 'PURCHASE_LIMIT_REACHED', limit: input.userUnitsMax, claimed: units.claimed });
        if (!take.ok) refuse<ClaimOutcome>({ ok: false, code: 'NOT_ENOUGH_SEATS', available: take.available });
        const lines: ReservationLine[] = [{ kind: 'UNITS', sectionId: input.sectionId, quantity: input.quantity }];
        const total = holdPriceCents(lines, () => section.price_cents);
        await insertHold(c, { ...input, totalPriceCents: total, units: input.quantity, createdAt: input.now },
          take.takes.map((t) => ({ sectionId: input.sectionId, seatId: null, bucket: t.bucket, quantity: t.quantity })));
        const hold = newHold(input, lines, total);
        const changes = { showId: input.showId, seats: [], stock: [{ sectionId: input.sectionId, delta: -input.quantity, buckets: take.buckets }] };
        await appendOutbox(c, origin, input.now, [holdCreated(hold, changes)]);
        return { ok: true, hold, adjacent: false, changes } as const;
      });
      if (result.ok) return result.value;
      if (result.kind === 'check' && result.constraint === 'stock_within_capacity') return { ok: false, code: 'NOT_ENOUGH_SEATS' };
      return unexpected('claimUnits', result);
    },

    // READ COMMITTED: the conditional UPDATE of the hold row (status = 'ACTIVE' and the expected
    // expiry, or overdue) is the one step that can succeed once; it locks the row, so a concurrent
    // lapse, settlement or order opening on this hold waits and then finds it no longer ACTIVE.
    // Everything else (counter, seats, buckets, the unpaid order) follows inside the same
    // transaction, in the lock order of stock.ts.
    async lapseHold(input) {
      const result = await checkout.tx('lapseHold', async (c) => {
        const to = input.event === 'RELEASE' ? 'RELEASED' : 'EXPIRED';
        const { rows } = await c.query<HoldRow>(
          `UPDATE holds SET status = $2::text WHERE hold_id = $1 AND status = 'ACTIVE'
             AND (($2::text = 'RELEASED' AND expires_at = $3::bigint) OR ($2::text = 'EXPIRED' AND expires_at <= $4::bigint))
           RETURNING *`, [input.holdId, to, input.expectedExpiresAt, input.now]);
        const hold = rows[0];
        if (hold === undefined) {
          const exists = await c.query('SELECT 1 FROM holds WHERE hold_id = $1', [input.holdId]);
          return exists.rowCount === 0 ? ({ ok: false, code: 'HOLD_NOT_FOUND' } as const) : ({ ok: false, stale: 'hold' } as const);
        }
        const back = await giveBack(c, hold.show_id, hold.hold_id);
        await moveUserUnits(c, hold.user_id, hold.show_id, -hold.units);
        const cancelled = await c.query<OrderRow>(
          `UPDATE orders SET status = 'CANCELLED', updated_at = $2 WHERE hold_id = $1 AND status IN ('INIT','PENDING_PAY') RETURNING *`,
          [hold.hold_id, input.now]);
        const [after] = await loadHolds(c, [hold]);
        const cancelledOrder = cancelled.rows[0] === undefined ? null : toOrder(cancelled.rows[0]);
        // A dearer exchange's difference order ends with its hold: the exchange is ABANDONED (exchangeMachine), the old tickets untouched.
        if (cancelledOrder !== null) await c.query(`UPDATE exchanges SET status = 'ABANDONED' WHERE new_order_id = $1 AND status = 'PENDING'`, [cancelledOrder.orderId]);
        const changes = { showId: hold.show_id, seats: back.seats, stock: back.stock };
        await appendOutbox(c, origin, input.now, [holdEnded(after as Hold, changes), cancelledOrder === null ? null : orderMoved(cancelledOrder, null)]);
        // The waitlist goes first, in this same transaction: the seats are never free to the public
        // in between (this transaction still holds their row locks).
        const offered: WaitlistOffer[] = [];
        for (const holdId of input.waitlist?.holdIds ?? []) {
          const w = input.waitlist as NonNullable<LapseHoldInput['waitlist']>;
          const offer = await offerInTx(c, origin, { showId: hold.show_id, holdId, now: input.now, claimUntil: w.claimUntil, userUnitsMax: w.userUnitsMax });
          if (!offer.ok) break;
          offered.push({ entry: offer.entry, hold: offer.hold, changes: offer.changes });
        }
        return { ok: true, hold: after as Hold, cancelledOrder, changes, ...(input.waitlist === undefined ? {} : { offered }) } as const;
      });
      return result.ok ? result.value : unexpected('lapseHold', result);
    },

    // One conditional UPDATE on the expected expiry and extension count: of two extensions one wins.
    async extendHold(input) {
      const result = await checkout.tx('extendHold', async (c) => {
        const { rows } = await c.query<HoldRow>(
          `UPDATE holds SET expires_at = $4, extensions = $5
           WHERE hold_id = $1 AND status = 'ACTIVE' AND expires_at = $2 AND extensions = $3 RETURNING *`,
          [input.holdId, input.expectedExpiresAt, input.expectedExtensions, input.expiresAt, input.extensions]);
        if (rows[0] === undefined) {
          const exists = await c.query('SELECT 1 FROM holds WHERE hold_id = $1', [input.holdId]);
          return exists.rowCount === 0 ? ({ ok: false, code: 'HOLD_NOT_FOUND' } as const) : ({ ok: false, stale: 'hold' } as const);
        }
        const [hold] = await loadHolds(c, rows);
        return { ok: true, hold: hold as Hold } as const;
      });
      return result.ok ? result.value : unexpected('extendHold', result);
    },

    async getHold(holdId) {
      return checkout.read(async (c) => {
        const { rows } = await c.query<HoldRow>('SELECT * FROM holds WHERE hold_id = $1', [holdId]);
        const [hold] = await loadHolds(c, rows);
        return hold ?? null;
      });
    },

    // From the partial index holds_active_by_user (migration 2).
    async activeHoldsOfUser(userId, now, page) {
      return db.read(async (c) => {
        const { rows } = await c.query<HoldRow>(
          `SELECT * FROM holds WHERE user_id = $1 AND status = 'ACTIVE' AND expires_at > $2
           ORDER BY expires_at, hold_id COLLATE "C" LIMIT $3 OFFSET $4`, [userId, now, page.limit, page.offset]);
        return loadHolds(c, rows);
      });
    },

    async overdueHolds(now, after, limit) {
      return checkout.read(async (c) => {
        const { rows } = after === null
          ? await c.query<HoldRow>("SELECT * FROM holds WHERE status = 'ACTIVE' AND expires_at <= $1 ORDER BY expires_at, hold_id COLLATE \"C\" LIMIT $2", [now, limit])
          : await c.query<HoldRow>(
            `SELECT * FROM holds WHERE status = 'ACTIVE' AND expires_at <= $1 AND (expires_at, hold_id COLLATE "C") > ($2, $3 COLLATE "C")
             ORDER BY expires_at, hold_id COLLATE "C" LIMIT $4`, [now, after.at, after.id, limit]);
        return loadHolds(c, rows);
      });
    },
  };
}
