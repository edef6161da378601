/**
 * The inventory gate (seed 003's 库存缓存 in front of the database): per show, a bitmap of taken
 * seats (bit = the seat's index in the show's canonical layout, src/domain/seat-layout.ts; 1 =
 * taken) with each seat's version, and the count left per counted section. A claim the gate can
 * already refuse is refused without the database; otherwise the gate takes first and the
 * database's lock-check-update decides. The gate is NEVER the truth: it may lose everything (a
 * flush, a restart) and is then "not built", refusing nothing until rebuilt from the database.
 *
 * Every operation is one atomic step of the gate (one Lua script on Redis): plain data in, a typed
 * outcome out. Operations throw only when the gate cannot be reached in time (the caller then goes
 * straight to the database).
 */

/** A seat as the gate last learnt it: its layout index and the version the database gave it. */
export interface GateSeat {
  readonly index: number;
  readonly version: number;
}

export type TakeSeatsOutcome =
  /** Every seat was free and is now taken; `versions[k]` is the version the gate held for `indexes[k]` (fences the give-back). */
  | { readonly kind: 'taken'; readonly versions: readonly number[] }
  /** Some seats are known taken (nothing was changed); `versions[k]`: the version the gate holds for `indexes[k]`. */
  | { readonly kind: 'refused'; readonly indexes: readonly number[]; readonly versions: readonly number[] }
  /** The gate has not been (re)built for this show: it refuses nothing; ask the database. */
  | { readonly kind: 'notBuilt' };

export type TakeUnitsOutcome =
  | { readonly kind: 'taken' }
  /** Fewer units left than asked (nothing was changed). */
  | { readonly kind: 'short'; readonly left: number }
  /** Not built, or the section is unknown to the gate: ask the database. */
  | { readonly kind: 'notBuilt' };

/** A seat change to learn, fenced by its version (a change older than the gate's is dropped). */
export interface GateSeatChange {
  readonly index: number;
  readonly taken: boolean;
  readonly version: number;
}

export interface GateChanges {
  /**
   * The outbox position of the committed change this comes from (the relay's sink): decimal
   * numbers joined by ':' (SQLite: the row id; PostgreSQL: xid:id), ordered number by number. The
   * gate applies a position at most once per show, in the same atomic step as the change: every
   * process relays the outbox and the loser of the race for the shared cursor has delivered the
   * page too, so a units delta (not versioned like a seat) would otherwise be added once per
   * relaying process. Absent: applied as is (a claim's own grant, whose seats are versioned and
   * whose units the gate took itself).
   */
  readonly position?: string;
  readonly seats: readonly GateSeatChange[];
  /**
   * Units that came back to a counted section (release, expiry, cancel, refund): positive deltas
   * only. Units taken by a claim were taken by the gate itself before the database decided (or,
   * when the gate was bypassed, are repaired by the next database refusal or rebuild): applying
   * them again would count them twice.
   */
  readonly unitsBack: readonly { readonly sectionId: string; readonly units: number }[];
}

export type BeginRebuildOutcome =
  | { readonly kind: 'built' }
  /** Someone (this process or another) is rebuilding the show now. */
  | { readonly kind: 'busy' }
  /** Read the snapshot from the database now, then pass this fence to every rebuild step. */
  | { readonly kind: 'fence'; readonly fence: string };

/** One step of a rebuild: a run of consecutive seats, and on the last step the counted sections. */
export interface RebuildStep {
  readonly fence: string;
  /** First layout index of the run. */
  readonly from: number;
  /** Taken (not AVAILABLE) per seat of the run, in order. */
  readonly taken: readonly boolean[];
  /** The database's version per seat of the run, in order. */
  readonly versions: readonly number[];
  /** Present on the last step: marks the show built, with the units left of every counted section. */
  readonly finish?: {
    readonly unitsLeft: readonly { readonly sectionId: string; readonly left: number }[];
    /**
     * An outbox position read before the snapshot: every change at or before it is in the
     * snapshot, so the gate marks it applied (a relay behind the rebuild then adds nothing twice).
     */
    readonly appliedThrough?: string;
  };
}

export type GateHealth = 'up' | 'down';

export interface InventoryGate {
  takeSeats(showId: string, indexes: readonly number[]): Promise<TakeSeatsOutcome>;
  takeUnits(showId: string, sectionId: string, units: number): Promise<TakeUnitsOutcome>;
  /** Undoes a take the database refused (or that failed): a seat is freed only if its version is still the one the take saw. */
  giveBackSeats(showId: string, seats: readonly GateSeat[]): Promise<void>;
  /**
   * Undoes a units take. `leftAtMost`: the database's own count when it refused, so a gate that
   * believed in more units (it was bypassed meanwhile) comes down to the truth at once.
   */
  giveBackUnits(showId: string, sectionId: string, units: number, leftAtMost?: number): Promise<void>;
  /**
   * What a committed change did (the outbox relay's sink, or this process after its own commit).
   * False when its position was already applied for the show (nothing changed).
   */
  applyChanges(showId: string, changes: GateChanges): Promise<boolean>;
  /** Starts a rebuild of a show that is not built; at most one at a time per show across processes. */
  beginRebuild(showId: string): Promise<BeginRebuildOutcome>;
  /** False when the fence broke (units changed, the gate was flushed, the lease lapsed): start again. */
  rebuildStep(showId: string, step: RebuildStep): Promise<boolean>;
  /** Drops the show's built marker: it refuses nothing until rebuilt from the database (a repair). */
  forget(showId: string): Promise<void>;
  /** Whether the gate answered recently (for /readyz). */
  health(): GateHealth;
  close(): Promise<void>;
}
