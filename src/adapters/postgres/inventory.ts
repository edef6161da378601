import type pg from 'pg';
import { candidateRows, chooseBestAvailable, type Hold, type ReservationLine, type SeatMapSpec, type SeatPosition } from '../../domain/index.js';
import { StoreBusyError, type ClaimBase, type ClaimOutcome, type InventoryStore, type SeatChange } from '../../ports/engine/index.js';
import { limits } from '../../domain/index.js';
import { FreeSeats } from '../shared/free-seats.js';
import { unexpected, type PgDb } from './db.js';
import { loadHolds, toOrder, type HoldRow, type OrderRow } from './rows.js';
import { claimSeatsStatement, claimUnitsStatement, type SeatStatementResult } from './claim-statements.js';
import { giveBack, insertHold, moveUserUnits, refuse, takeSeats, takeUnits, takeUserUnits } from './stock.js';

/** Chosen seats lost to concurrent claims before best-available gives up with BUSY (each loss costs one statement). */
const bestAvailableCollisionsMax = 64;
/**
 * How long best-available leaves out seats this process took: longer than a window read can be
 * stale under load, short enough that a seat given back soon after is offered again quickly.
 */
const recentlyTakenMs = 3_000;
/** A show's recently-taken seats are pruned of expired ones once it holds this many. */
const recentPruneAt = 4_096;
/** Shows with recently-taken seats kept before the idle ones are dropped. */
const recentShowsMax = 256;
/** How long one window read serves the other best-available claims of the show. */
const windowReadShareMs = 100;
/** Fast-path tries of a GA claim that found every bucket with enough busy, before it locks them all. */
const unitsBusyRetriesMax = 8;
/** Upper bound of the random pause between those tries: about one claim statement. */
const unitsBusyPauseMs = 2;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
/** Rows best-available reads first; each further read doubles, up to limits.bestAvailableRowsMax rows at a time. */
const bestAvailableFirstRows = 8;

interface SectionRow { section_id: string; kind: 'SEATED' | 'GENERAL_ADMISSION'; sell_by: 'SEAT' | 'QUANTITY'; price_cents: number }

async function unitsOf(c: pg.ClientBase | pg.Pool, userId: string, showId: string): Promise<number> {
  const { rows } = await c.query<{ units: number }>('SELECT units FROM user_show_units WHERE user_id = $1 AND show_id = $2', [userId, showId]);
  return rows[0]?.units ?? 0;
}

/** A show's seat map never changes after creation: read it once per process. */
function seatMapCache(db: PgDb): (showId: string) => Promise<SeatMapSpec | null> {
  const cache = new Map<string, SeatMapSpec>();
  return async (showId) => {
    const cached = cache.get(showId);
    if (cached !== undefined) return cached;
    const { rows } = await db.pool.query<{ seat_map: string }>('SELECT seat_map FROM shows WHERE show_id = $1', [showId]);
    if (rows[0] === undefined) return null;
    const seatMap = JSON.parse(rows[0].seat_map) as SeatMapSpec;
    if (cache.size > 10_000) cache.clear();
    cache.set(showId, seatMap);
    return seatMap;
  };
}

function newHold(input: ClaimBase, lines: ReservationLine[], totalPriceCents: number): Hold {
  return {
    holdId: input.holdId, showId: input.showId, userId: input.userId, lines, totalPriceCents,
    status: 'ACTIVE', createdAt: input.now, expiresAt: input.expiresAt, extensions: 0,
  };
}

/** One SEATS line per section, in the order the seats were taken. */
function seatLinesOf(seatIds: readonly string[], sectionOf: ReadonlyMap<string, string>): ReservationLine[] {
  const lines: { kind: 'SEATS'; sectionId: string; seatIds: string[] }[] = [];
  for (const seatId of seatIds) {
    const sectionId = sectionOf.get(seatId) as string;
    const line = lines.find((l) => l.sectionId === sectionId);
    if (line === undefined) lines.push({ kind: 'SEATS', sectionId, seatIds: [seatId] });
    else line.seatIds.push(seatId);
  }
  return lines;
}

async function sectionPrices(c: pg.ClientBase, showId: string): Promise<Map<string, SectionRow>> {
  const { rows } = await c.query<SectionRow>('SELECT section_id, kind, sell_by, price_cents FROM sections WHERE show_id = $1', [showId]);
  return new Map(rows.map((r) => [r.section_id, r]));
}

/** Seat claims: insert the hold and one line row per seat, priced by section. */
async function commitSeatHold(c: pg.ClientBase, input: ClaimBase, seatIds: readonly string[], sectionOf: ReadonlyMap<string, string>, sections: ReadonlyMap<string, SectionRow>, taken: SeatChange[], adjacent: boolean): Promise<ClaimOutcome> {
  const lines = seatLinesOf(seatIds, sectionOf);
  const total = seatIds.reduce((sum, id) => sum + (sections.get(sectionOf.get(id) as string)?.price_cents ?? 0), 0);
  await insertHold(c, { ...input, totalPriceCents: total, units: seatIds.length, createdAt: input.now },
    seatIds.map((seatId) => ({ sectionId: sectionOf.get(seatId) as string, seatId, bucket: null, quantity: 1 })));
  return { ok: true, hold: newHold(input, lines, total), adjacent, changes: { showId: input.showId, seats: taken, stock: [] } };
}

/** The hold a complete claim statement made: lines per section in the order asked, priced by section. */
function heldBy(input: ClaimBase, seatIds: readonly string[], r: SeatStatementResult): Hold {
  const sectionOf = new Map(r.taken.map((t) => [t.seatId, t.sectionId]));
  return newHold(input, seatLinesOf(seatIds, sectionOf), r.total);
}

function seatChangesOf(input: ClaimBase, seatIds: readonly string[], r: SeatStatementResult): SeatChange[] {
  const versions = new Map(r.taken.map((t) => [t.seatId, t.version]));
  return seatIds.map((seatId) => ({ seatId, status: 'HELD', holdId: input.holdId, version: versions.get(seatId) as number }));
}

export function pgInventory(db: PgDb): InventoryStore {
  const seatMapOf = seatMapCache(db);
  /** Per show: seats a best-available statement of this process is taking at this moment. */
  const claiming = new Map<string, Set<string>>();
  const free = new FreeSeats();
  /**
   * Window reads shared by the claims of one show for windowReadShareMs: a herd asking for the
   * same front rows reads them once, not once per buyer, and parses them once (the seat objects
   * are shared and never changed). The staleness this allows is covered by `claiming` and
   * `recent` (what this process took since is left out of the choice); a seat another node took
   * meanwhile is a lost seat, which the claim statement detects.
   */
  const reads = new Map<string, { at: number; seats: Promise<readonly SeatPosition[]> }>();
  const sharedRead = (key: string, read: () => Promise<readonly SeatPosition[]>): Promise<readonly SeatPosition[]> => {
    const now = Date.now();
    const hit = reads.get(key);
    if (hit !== undefined && now - hit.at < windowReadShareMs) return hit.seats;
    if (reads.size > 1_000) reads.clear();
    const seats = read();
    reads.set(key, { at: now, seats });
    seats.catch(() => reads.delete(key));
    return seats;
  };
  /**
   * Seats this process took lately, per show (seat id -> until when, ms). Looked up per seat in
   * O(1), expiry checked on lookup; a show's entries are pruned when it passes recentPruneAt, so
   * its map stays within what recentlyTakenMs of claims can add. (A scan of every entry on every
   * claim made a herd of 500 quadratic: 11% of the server's CPU.)
   */
  const recent = new Map<string, { readonly seats: Map<string, number>; pruneAt: number; lastAt: number }>();
  const recentlyTaken = (showId: string): { has(seatId: string): boolean; readonly size: number } => {
    const now = Date.now();
    const seats = recent.get(showId)?.seats;
    return { has: (seatId) => (seats?.get(seatId) ?? 0) > now, size: seats?.size ?? 0 };
  };
  const remember = (showId: string, seatIds: readonly string[]): void => {
    const now = Date.now();
    let show = recent.get(showId);
    if (show === undefined) {
      // Shows nobody claimed from lately go entirely (their seats have all expired).
      if (recent.size >= recentShowsMax) for (const [id, idle] of recent) if (idle.lastAt + recentlyTakenMs <= now) recent.delete(id);
      show = { seats: new Map(), pruneAt: recentPruneAt, lastAt: now };
      recent.set(showId, show);
    }
    if (show.seats.size >= show.pruneAt) {
      for (const [id, until] of show.seats) if (until <= now) show.seats.delete(id);
      // Amortised: the next prune waits until the map has doubled again.
      show.pruneAt = Math.max(recentPruneAt, show.seats.size * 2);
    }
    for (const id of seatIds) show.seats.set(id, now + recentlyTakenMs);
    show.lastAt = now;
  };

  return {
    // READ COMMITTED, conditional writes only. (1) The seats are looked up (existence, sold by
    // seat). (2) The buyer's counter is incremented only if it stays within the cap (the upsert
    // locks that one row, so a buyer's parallel claims count one after another). (3) The seats
    // are taken by a conditional UPDATE ... WHERE status = 'AVAILABLE' on rows locked in seat-id
    // order: of two claims on a seat the second waits for the first, re-checks the committed
    // status, and finds it HELD. A row count short of the request rolls everything back, counter
    // included. The partial unique index on live claims (hold_lines) is the storage's last word.
    async claimSeats(input) {
      // The common case in one statement: every seat free and nobody else taking it.
      const fast = await db.statement('claimSeats', (c) => claimSeatsStatement(c, input, input.seatIds));
      if (fast.ok && fast.value.complete) {
        const r = fast.value;
        if (r.units === null) return { ok: false, code: 'PURCHASE_LIMIT_REACHED', limit: input.userUnitsMax, claimed: await unitsOf(db.pool, input.userId, input.showId) };
        return { ok: true, hold: heldBy(input, input.seatIds, r), adjacent: false, changes: { showId: input.showId, seats: seatChangesOf(input, input.seatIds, r), stock: [] } };
      }
      if (!fast.ok && !(fast.kind === 'unique' && fast.constraint === 'hold_lines_one_live_claim')) return unexpected('claimSeats', fast);
      // A seat missing, taken, or being taken right now: the transaction below waits for the other
      // claims on these seats and gives the exact refusal (or takes them, if those rolled back).
      const result = await db.tx('claimSeats', async (c) => {
        const { rows } = await c.query<{ seat_id: string; section_id: string; sell_by: string; price_cents: number }>(
          // The seats by primary key first (MATERIALIZED), then their sections: joined in one
          // step, stale statistics let the planner scan whole sections by seats_by_row instead
          // (50 ms a claim on a 100,000-seat show).
          `WITH s AS MATERIALIZED (SELECT seat_id, section_id FROM seats WHERE show_id = $1 AND seat_id = ANY($2::text[]))
           SELECT s.seat_id, s.section_id, c.sell_by, c.price_cents FROM s
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
        return commitSeatHold(c, input, input.seatIds, sectionOf, sections, input.seatIds.map((id) => byId.get(id) as SeatChange), false);
      });
      if (result.ok) return result.value;
      // Only reachable with the conditional update gone: the unique index still refuses a second live claim.
      if (result.kind === 'unique' && result.constraint === 'hold_lines_one_live_claim') return { ok: false, code: 'SEAT_UNAVAILABLE', seatIds: input.seatIds };
      if (result.kind === 'check' && result.constraint === 'seat_owned_unless_available') return { ok: false, code: 'SEAT_UNAVAILABLE', seatIds: input.seatIds };
      return unexpected('claimSeats', result);
    },

    // No transaction: reads, then ONE atomic statement (claim-statements.ts). Candidate rows
    // (domain candidateRows, nearest the point first) are read a few at a time without locks
    // (4, 8, 16... rows, at most limits.bestAvailableRowsMax per read); the pure domain chooser
    // picks among their free seats; one statement then locks the chosen seats FOR UPDATE SKIP
    // LOCKED and, only if it got every one, increments the buyer's counter within the cap, takes
    // them (status AVAILABLE -> HELD) and inserts the hold and its lines. Seats another buyer is
    // taking at that moment are skipped, never waited for: the statement writes nothing, the
    // lost seats are marked taken in what we read, and the chooser picks again. A herd of buyers
    // wanting the same front seats thus never queues on row locks (READ COMMITTED suffices: the
    // statement re-checks status = 'AVAILABLE' on each row it locks), and locking only the chosen
    // seats, not whole candidate rows, keeps the front rows open to everyone at once.
    async claimBestAvailable(input) {
      const seatMap = await seatMapOf(input.showId);
      if (seatMap === null) return { ok: false, code: 'NOT_ENOUGH_SEATS', available: 0 };
      // Rows of sections sold by seat only: a section sold by quantity is claimed by count (claimUnits).
      const bySeat = new Set(seatMap.sections.filter((s) => s.kind === 'SEATED' && s.sellBy === 'SEAT').map((s) => s.id));
      const rows = candidateRows(seatMap, { ...(input.sectionId === undefined ? {} : { section: input.sectionId }), ...(input.near === undefined ? {} : { near: input.near }) })
        .filter((r) => bySeat.has(r.section));
      // One connection for the reads and the take, so what we read is as fresh as the take
      // (reads queued for a pooled connection behind a herd would all see the empty show).
      const request = {
        quantity: input.quantity, adjacentOnly: input.adjacentOnly,
        ...(input.sectionId === undefined ? {} : { section: input.sectionId }),
        ...(input.near === undefined ? {} : { near: input.near }),
        ...(input.accessibleMin === undefined ? {} : { accessibleMin: input.accessibleMin }),
      };
      const result = await db.statement('claimBestAvailable', async (c): Promise<ClaimOutcome> => {
        const seen: SeatPosition[] = [];
        /** Chosen seats the claim statement found taken: out of every later choice. */
        const lost = new Set<string>();
        let read = 0;
        let step = bestAvailableFirstRows;
        let collisions = 0;
        for (;;) {
          // Seats this process is claiming for other buyers right now are left out of the choice,
          // so a herd on one node spreads over different seats instead of colliding on the same
          // best pair (correctness does not depend on it: the statement re-checks every seat).
          // Seats it took moments ago are left out too (our read may predate that commit); if
          // that leaves no choice, the choice is made again without them. Leaving a seat out is
          // the same to the chooser as seeing it taken.
          const busy = claiming.get(input.showId);
          const taken = recentlyTaken(input.showId);
          const choose = (withRecent: boolean) => {
            const hides = lost.size > 0 || busy !== undefined || (withRecent && taken.size > 0);
            const open = hides ? seen.filter((seat) => !(lost.has(seat.seatId) || busy?.has(seat.seatId) === true || (withRecent && taken.has(seat.seatId)))) : seen;
            return chooseBestAvailable(seatMap, open, request);
          };
          const choice = read === 0 ? null : (choose(true) ?? (taken.size > 0 ? choose(false) : null));
          // Read on while an unread row could hold a better choice (its lower bound is below the
          // best score so far): the answer of reading every row, for the cost of a few.
          const next = rows[read];
          if (choice === null || (next !== undefined && choice.score > next.minDistance)) {
            if (next === undefined) {
              // The limit is answered before the lack of seats, as the port orders the refusals.
              const claimed = await unitsOf(c, input.userId, input.showId);
              if (claimed + input.quantity > input.userUnitsMax) return { ok: false, code: 'PURCHASE_LIMIT_REACHED', limit: input.userUnitsMax, claimed };
              return { ok: false, code: 'NOT_ENOUGH_SEATS' };
            }
            const window = rows.slice(read, read + Math.min(step, limits.bestAvailableRowsMax));
            read += window.length;
            step *= 2;
            const seats = await sharedRead(`${input.showId}\u0000${window.map((r) => `${r.section}:${r.row}`).join(',')}`, async () => {
              const { rows: freeRows } = await c.query<{ section_id: string; row_no: number; seats: string }>({
                name: 'ba-window',
                // LATERAL: one index range scan (seats_by_row) per row read, whatever the show's
                // size. One result row per seat row: its free seat numbers (negative: accessible)
                // as one string, so a window costs a few rows to transfer and parse, not one per seat.
                text: `SELECT w.section_id, w.row_no, f.seats
                  FROM unnest($2::text[], $3::int[]) AS w(section_id, row_no)
                  CROSS JOIN LATERAL (
                    SELECT string_agg((CASE WHEN s.accessible THEN -s.seat_no ELSE s.seat_no END)::text, ',') AS seats FROM seats s
                    WHERE s.show_id = $1 AND s.section_id = w.section_id AND s.row_no = w.row_no AND s.status = 'AVAILABLE') f
                  WHERE f.seats IS NOT NULL`,
                values: [input.showId, window.map((r) => r.section), window.map((r) => r.row)],
              });
              const parsed: SeatPosition[] = [];
              for (const r of freeRows) free.parseRow(input.showId, r.section_id, r.row_no, r.seats, parsed);
              return parsed;
            });
            for (const seat of seats) seen.push(seat);
            continue;
          }
          const mine = claiming.get(input.showId) ?? new Set<string>();
          claiming.set(input.showId, mine);
          for (const id of choice.seatIds) mine.add(id);
          let r: Awaited<ReturnType<typeof claimSeatsStatement>>;
          try {
            r = await claimSeatsStatement(c, input, choice.seatIds);
          } finally {
            for (const id of choice.seatIds) mine.delete(id);
            if (mine.size === 0) claiming.delete(input.showId);
          }
          if (r.complete && r.units !== null) {
            remember(input.showId, choice.seatIds);
            return { ok: true, hold: heldBy(input, choice.seatIds, r), adjacent: choice.adjacent, changes: { showId: input.showId, seats: seatChangesOf(input, choice.seatIds, r), stock: [] } };
          }
          if (r.complete) return { ok: false, code: 'PURCHASE_LIMIT_REACHED', limit: input.userUnitsMax, claimed: await unitsOf(c, input.userId, input.showId) };
          const locked = new Set(r.locked);
          for (const id of choice.seatIds) if (!locked.has(id)) lost.add(id);
          if (++collisions > bestAvailableCollisionsMax) throw new StoreBusyError('claimBestAvailable', 'best-available lost its chosen seats too many times');
        }
      });
      if (result.ok) return result.value;
      if (result.kind === 'unique' && result.constraint === 'hold_lines_one_live_claim') throw new StoreBusyError('claimBestAvailable', 'a chosen seat was claimed concurrently');
      return unexpected('claimBestAvailable', result);
    },

    // Hot path first: ONE atomic statement (claim-statements.ts) takes a random unlocked bucket
    // with enough stock, the buyer's counter within the cap, and inserts the hold. When no
    // unlocked bucket has enough (stock low or spread thin, or every bucket busy), the
    // transaction below decides over all the section's buckets.
    async claimUnits(input) {
      for (let attempt = 0; ; attempt++) {
        const fast = await db.statement('claimUnits', (c) => claimUnitsStatement(c, input));
        if (!fast.ok) return unexpected('claimUnits', fast);
        if (fast.value.picked && fast.value.bucket !== null && fast.value.units !== null) {
          const total = fast.value.total ?? 0;
          const lines: ReservationLine[] = [{ kind: 'UNITS', sectionId: input.sectionId, quantity: input.quantity }];
          return { ok: true, hold: newHold(input, lines, total), adjacent: false, changes: { showId: input.showId, seats: [], stock: [{ sectionId: input.sectionId, delta: -input.quantity }] } };
        }
        if (fast.value.picked) return { ok: false, code: 'PURCHASE_LIMIT_REACHED', limit: input.userUnitsMax, claimed: await unitsOf(db.pool, input.userId, input.showId) };
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
        const total = input.quantity * section.price_cents;
        await insertHold(c, { ...input, totalPriceCents: total, units: input.quantity, createdAt: input.now },
          take.takes.map((t) => ({ sectionId: input.sectionId, seatId: null, bucket: t.bucket, quantity: t.quantity })));
        const lines: ReservationLine[] = [{ kind: 'UNITS', sectionId: input.sectionId, quantity: input.quantity }];
        return { ok: true, hold: newHold(input, lines, total), adjacent: false, changes: { showId: input.showId, seats: [], stock: [{ sectionId: input.sectionId, delta: -input.quantity }] } } as const;
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
      const result = await db.tx('lapseHold', async (c) => {
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
        return {
          ok: true,
          hold: after as Hold,
          cancelledOrder: cancelled.rows[0] === undefined ? null : toOrder(cancelled.rows[0]),
          changes: { showId: hold.show_id, seats: back.seats, stock: back.stock },
        } as const;
      });
      return result.ok ? result.value : unexpected('lapseHold', result);
    },

    // One conditional UPDATE on the expected expiry and extension count: of two extensions one wins.
    async extendHold(input) {
      const result = await db.tx('extendHold', async (c) => {
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
      return db.read(async (c) => {
        const { rows } = await c.query<HoldRow>('SELECT * FROM holds WHERE hold_id = $1', [holdId]);
        const [hold] = await loadHolds(c, rows);
        return hold ?? null;
      });
    },

    async overdueHolds(now, after, limit) {
      return db.read(async (c) => {
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
