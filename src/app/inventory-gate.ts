import { setTimeout as sleep, setImmediate as yieldToLoop } from 'node:timers/promises';
import { SeatLayout, limits } from '../domain/index.js';
import type { InventoryChanges, Store } from '../ports/engine/index.js';
import type { GateChanges, GateHealth, InventoryGate } from '../ports/inventory-gate.js';

/** Seats per rebuild step (one Lua script each): short enough never to stall Redis. */
const rebuildSeatsPerStep = 1_000;
/** A rebuild whose fence broke (units came back meanwhile) reads the database again, this many times in all. */
const rebuildAttemptsMax = 3;
/** Shows this process rebuilds at once; a claim of another show meanwhile simply goes to the database. */
const rebuildsAtOnceMax = 4;
/** After a rebuild that did not finish (busy elsewhere, fence broken, Redis away), no new try for this long. */
const rebuildPauseMs = 250;
const pausesMax = 10_000;
/** Shows remembered as missed by a grant (oldest dropped first), and heal tries per miss before waiting for Redis's next answer. */
const missedMax = 10_000;
const healTriesMax = 40;

/**
 * The application's side of the Redis gate: the port, plus the rebuild of a show the gate lost
 * (one at a time per show, a few shows at once, paused after a miss) from the database's state,
 * which is the truth. Lives in AppContext.gate only when Redis is configured.
 */
export class GateService {
  private readonly rebuilding = new Map<string, Promise<void>>();
  /** Show id -> no new rebuild attempt before then (bounded: oldest dropped first). */
  private readonly pausedUntil = new Map<string, number>();
  /** Rebuilds this process finished, and those whose fence broke, for tests and metrics. */
  rebuilds = 0;
  rebuildMisses = 0;
  /** Give-backs and grants Redis did not take (the gate then refuses a free seat, or lets a taken one reach the database, until its next rebuild). */
  writesLost = 0;
  /** Claims the gate refused (the store never saw them), took first, or could not answer (not built, Redis away). */
  readonly claims = { refused: 0, taken: 0, bypassed: 0 };
  /**
   * Shows whose counted places a grant took while the gate could not be asked (Redis away or slow,
   * the breaker open): the gate still counts them free, and no relay brings takes of units (only
   * give-backs), so it stays too high until rebuilt. Healed (forgotten, then rebuilt from the
   * database) as soon as Redis answers again. Bounded.
   */
  private readonly missed = new Map<string, { tries: number; forgotten: boolean; misses: number }>();
  /** Heals begun, for tests and metrics. */
  heals = 0;

  constructor(
    readonly port: InventoryGate,
    private readonly store: Pick<Store, 'loadSeatMap' | 'seatStates' | 'outboxHead'>,
    private readonly now: () => number,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {}

  health(): GateHealth {
    return this.port.health();
  }

  /** A grant took units of the show without the gate (it could not be asked): heal it as soon as Redis answers. */
  missedTake(showId: string): void {
    const miss = this.missed.get(showId);
    if (miss !== undefined) {
      // A new miss after the forget: the rebuild to come must read the database after this grant too.
      miss.forgotten = false;
      miss.misses++;
    } else {
      if (this.missed.size >= missedMax) this.missed.delete(this.missed.keys().next().value as string);
      this.missed.set(showId, { tries: 0, forgotten: false, misses: 1 });
    }
    this.heal(showId);
  }

  /** Redis answered for the show: a take it missed earlier can be healed now. */
  answered(showId: string): void {
    if (this.missed.has(showId)) this.heal(showId);
  }

  /**
   * Forgets the show once (claims go to the database meanwhile; a rebuild under way elsewhere fails
   * its fence) and rebuilds it from the database. A rebuild that cannot finish yet (Redis refusing,
   * another process's rebuild holding the lease, places coming back meanwhile) is tried again after
   * a pause, a bounded number of times; after that the next answer for the show tries again. Only
   * the first step forgets: forgetting on every try would undo the rebuild another process just made.
   */
  private heal(showId: string): void {
    const miss = this.missed.get(showId);
    if (miss === undefined) return;
    // A rebuild under way here may have read the database before the missed grant committed: heal after it.
    const running = this.rebuilding.get(showId);
    if (running !== undefined) {
      void running.finally(() => this.heal(showId));
      return;
    }
    miss.tries++;
    // The misses this heal covers: one that comes while it runs may have committed after its read.
    const covers = miss.misses;
    const again = () => {
      if (miss.tries < healTriesMax) setTimeout(() => this.heal(showId), rebuildPauseMs).unref();
      else miss.tries = 0;
    };
    const forgotten = miss.forgotten ? Promise.resolve() : this.port.forget(showId).then(() => {
      miss.forgotten = true;
    });
    const run = forgotten
      .then(() => this.rebuild(showId))
      .then((built) => {
        if (!built) return again();
        this.heals++;
        if (miss.misses === covers) this.missed.delete(showId);
        else setTimeout(() => this.heal(showId), 0).unref();
      }, again)
      .finally(() => this.rebuilding.delete(showId));
    this.rebuilding.set(showId, run);
  }

  /** Starts a rebuild of the show unless one runs or ran just now; never waits for it. */
  triggerRebuild(showId: string): void {
    if (this.rebuilding.has(showId) || this.rebuilding.size >= rebuildsAtOnceMax) return;
    if ((this.pausedUntil.get(showId) ?? 0) > this.now()) return;
    const run = this.rebuild(showId)
      .then((done) => {
        if (!done) this.pause(showId);
      }, (error: unknown) => {
        this.pause(showId);
        this.onError(error);
      })
      .finally(() => this.rebuilding.delete(showId));
    this.rebuilding.set(showId, run);
  }

  /**
   * Rebuilds the show from the database now (after a rush, or when an operator doubts the gate):
   * it refuses nothing meanwhile. True when rebuilt. A rebuild lease held elsewhere (a process that
   * died mid-rebuild keeps it until it lapses, 10 s by default) is waited out, retrying every
   * pause, for up to `waitMs`: answering false at once would leave the gate as the dead process left it.
   */
  async repair(showId: string, waitMs = 15_000): Promise<boolean> {
    const until = this.now() + waitMs;
    for (;;) {
      await this.port.forget(showId);
      if (await this.rebuild(showId)) return true;
      if (this.now() >= until) return false;
      await sleep(rebuildPauseMs);
    }
  }

  /** Waits for the show's running rebuild, if any (tests, shutdown). */
  async settled(showId?: string): Promise<void> {
    await Promise.all(showId === undefined ? [...this.rebuilding.values()] : [this.rebuilding.get(showId)]);
  }

  /**
   * Reads the show from the database after taking the fence, then writes it in steps. True when
   * the show is built (by this or, already, by another process).
   */
  async rebuild(showId: string): Promise<boolean> {
    for (let attempt = 0; attempt < rebuildAttemptsMax; attempt++) {
      const begun = await this.port.beginRebuild(showId);
      if (begun.kind === 'built') return true;
      if (begun.kind === 'busy') return false;
      // Read before the snapshot: every change at or before this position is in it, so finishing
      // marks them applied and a relay still behind does not add their units again. (A change
      // committed between this read and the snapshot's may still be counted twice if the relay
      // brings it only after the finish: the built marker's TTL, or `repair`, clears that.)
      const appliedThrough = await this.store.outboxHead();
      const loaded = await this.store.loadSeatMap(showId);
      if (loaded === null) return false;
      const layout = new SeatLayout(loaded.show.seatMap);
      const taken = new Array<boolean>(layout.size).fill(false);
      const versions = new Array<number>(layout.size).fill(0);
      let after: string | null = null;
      for (;;) {
        const page = await this.store.seatStates(showId, after, limits.seatStatePageMax);
        for (const seat of page) {
          const i = layout.indexOf(seat.seatId);
          if (i < 0) continue;
          taken[i] = seat.status !== 'AVAILABLE';
          versions[i] = seat.version;
        }
        if (page.length < limits.seatStatePageMax) break;
        after = (page[page.length - 1] as { seatId: string }).seatId;
        await yieldToLoop();
      }
      const unitsLeft = loaded.sections
        .filter((s) => s.kind === 'GENERAL_ADMISSION' || s.sellBy === 'QUANTITY')
        .map((s) => ({ sectionId: s.sectionId, left: Math.max(0, s.available) }));
      let intact = true;
      for (let from = 0; intact; from += rebuildSeatsPerStep) {
        const to = Math.min(layout.size, from + rebuildSeatsPerStep);
        const last = to >= layout.size;
        intact = await this.port.rebuildStep(showId, {
          fence: begun.fence, from, taken: taken.slice(from, to), versions: versions.slice(from, to),
          ...(last ? { finish: { unitsLeft, appliedThrough } } : {}),
        });
        if (last) break;
      }
      if (intact) {
        this.rebuilds++;
        return true;
      }
      this.rebuildMisses++;
    }
    return false;
  }

  private pause(showId: string): void {
    this.pausedUntil.delete(showId);
    if (this.pausedUntil.size >= pausesMax) this.pausedUntil.delete(this.pausedUntil.keys().next().value as string);
    this.pausedUntil.set(showId, this.now() + rebuildPauseMs);
  }
}

/**
 * The gate's view of a committed change: seats by layout index (a seat is taken unless AVAILABLE),
 * and only the units that came back (see GateChanges.unitsBack). Seats the layout does not know
 * are left out.
 */
export function gateChangesOf(layout: SeatLayout, changes: InventoryChanges): GateChanges {
  return {
    seats: changes.seats.flatMap((seat) => {
      const index = layout.indexOf(seat.seatId);
      return index < 0 ? [] : [{ index, taken: seat.status !== 'AVAILABLE', version: seat.version }];
    }),
    unitsBack: changes.stock.filter((s) => s.delta > 0).map((s) => ({ sectionId: s.sectionId, units: s.delta })),
  };
}
