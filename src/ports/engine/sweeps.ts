import type { KeysetPosition } from './common.js';

/**
 * Singleton periodic sweeps across processes: a lease row per sweep (name, holder, until) taken
 * by compare-and-set, and the sweep's keyset cursor beside it, so a pass goes on where the last
 * run stopped whichever process ran it.
 */
export interface AcquireLeaseInput {
  readonly name: string;
  /** Who asks (a process's own random id). */
  readonly holder: string;
  readonly now: number;
  /** The lease lasts until now + ttlMs unless renewed (asked again by its holder) or released. */
  readonly ttlMs: number;
}

export type AcquireLeaseOutcome =
  | { readonly ok: true; readonly until: number }
  /** Someone else holds it until `until`. */
  | { readonly ok: false; readonly holder: string; readonly until: number };

export interface LeaseClaim {
  readonly name: string;
  readonly holder: string;
}

export interface SweepStore {
  /**
   * Precondition: no lease on `name`, or one that ran out (until <= now), or one of this holder.
   * Effect: the lease is this holder's until now + ttlMs (a renewal when it was already its own).
   * One conditional upsert: of two processes asking at once, exactly one gets it.
   */
  acquireLease(input: AcquireLeaseInput): Promise<AcquireLeaseOutcome>;
  /** Ends this holder's lease at once (until = 0); false (nothing written) when it is not theirs. */
  releaseLease(claim: LeaseClaim): Promise<boolean>;
  /** Where the sweep's last run stopped; null: at the start. */
  sweepCursor(name: string): Promise<KeysetPosition | null>;
  /** Stores where the sweep stopped (null: start again from the oldest). The cursor is a hint, never a guard. */
  saveSweepCursor(name: string, cursor: KeysetPosition | null): Promise<void>;
}
