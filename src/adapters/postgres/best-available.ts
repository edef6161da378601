import { candidateRows, chooseBestAvailable, limits, type SeatMapSpec, type SeatPosition } from '../../domain/index.js';
import { StoreBusyError, type ClaimBestAvailableInput, type ClaimOutcome } from '../../ports/engine/index.js';
import { FreeSeats } from '../shared/free-seats.js';
import { heldBy, seatChangesOf, unitsOf } from './claim-results.js';
import { claimSeatsStatement } from './claim-statements.js';
import { unexpected, type PgDb } from './db.js';
import { firstWindowRows, readFreeRows } from './free-rows.js';

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

/**
 * A show's seat map never changes after creation: read it once per process. Concurrent first
 * claims of a show share one read (a herd on a fresh process made every one of its first
 * requests read and parse the seat map).
 */
function seatMapCache(db: PgDb): (showId: string) => Promise<SeatMapSpec | null> {
  const cache = new Map<string, Promise<SeatMapSpec | null>>();
  return (showId) => {
    const cached = cache.get(showId);
    if (cached !== undefined) return cached;
    const read = db.query<{ seat_map: string }>('SELECT seat_map FROM shows WHERE show_id = $1', [showId])
      .then(({ rows }) => (rows[0] === undefined ? null : (JSON.parse(rows[0].seat_map) as SeatMapSpec)));
    if (cache.size > 10_000) cache.clear();
    cache.set(showId, read);
    // A missing show or a failed read is not remembered: the next claim asks again.
    read.then((map) => { if (map === null) cache.delete(showId); }, () => cache.delete(showId));
    return read;
  };
}

/**
 * No transaction: reads, then ONE atomic statement (claim-statements.ts). Candidate rows
 * (domain candidateRows, nearest the point first) are read a few at a time without locks
 * (8, 16, 32... rows, at most limits.bestAvailableRowsMax per read); the pure domain chooser
 * picks among their free seats; one statement then locks the chosen seats FOR UPDATE SKIP
 * LOCKED and, only if it got every one, increments the buyer's counter within the cap, takes
 * them (status AVAILABLE -> HELD) and inserts the hold and its lines. Seats another buyer is
 * taking at that moment are skipped, never waited for: the statement writes nothing, the
 * lost seats are marked taken in what we read, and the chooser picks again. A herd of buyers
 * wanting the same front seats thus never queues on row locks (READ COMMITTED suffices: the
 * statement re-checks status = 'AVAILABLE' on each row it locks), and locking only the chosen
 * seats, not whole candidate rows, keeps the front rows open to everyone at once.
 */
export function pgBestAvailable(db: PgDb, origin: string): (input: ClaimBestAvailableInput) => Promise<ClaimOutcome> {
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

  return async (input) => {
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
      let step = firstWindowRows;
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
          const seats = await sharedRead(`${input.showId}\u0000${window.map((r) => `${r.section}:${r.row}`).join(',')}`, () => readFreeRows(c, free, input.showId, window));
          for (const seat of seats) seen.push(seat);
          continue;
        }
        const mine = claiming.get(input.showId) ?? new Set<string>();
        claiming.set(input.showId, mine);
        for (const id of choice.seatIds) mine.add(id);
        let r: Awaited<ReturnType<typeof claimSeatsStatement>>;
        try {
          r = await claimSeatsStatement(c, input, choice.seatIds, origin);
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
  };
}
