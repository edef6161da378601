import type { KeysetPosition } from '../ports/engine/index.js';
import type { AppContext } from './context.js';

/**
 * Where each background pass stopped, kept in the database (the sweeps table, beside the pass's
 * lease). A pass that always read "the oldest N" would look at the same N rows forever once N of
 * them could not be settled (a payment the provider still calls PENDING, a refund it refuses); a
 * cursor kept between runs walks the whole backlog and then starts again from the oldest. In the
 * database, so the next run goes on where the last one stopped whichever process runs it, and a
 * restart does not send the pass back to the oldest rows.
 */
export interface KeysetSweep<T> {
  /** The pass's name: each name has its own cursor (and lease, see background-jobs.ts). */
  readonly pass: string;
  readonly pageSize: number;
  /** Pages per run; a run also ends at the end of the backlog. */
  readonly pagesMax: number;
  fetch(after: KeysetPosition | null, limit: number): Promise<T[]>;
  positionOf(row: T): KeysetPosition;
  /** Settles one page; returns how many rows it settled. Must not throw for one bad row. */
  handle(page: readonly T[]): Promise<number>;
}

const same = (a: KeysetPosition | null, b: KeysetPosition | null): boolean => a === b || (a !== null && b !== null && a.at === b.at && a.id === b.id);

/** Runs one bounded run of a pass: at most `pagesMax` pages of at most `pageSize` rows. */
export async function sweepByKeyset<T>(ctx: AppContext, sweep: KeysetSweep<T>): Promise<number> {
  let cursor = await ctx.store.sweepCursor(sweep.pass);
  let done = 0;
  for (let page = 0; page < sweep.pagesMax; page++) {
    const rows = await sweep.fetch(cursor, sweep.pageSize);
    const last = rows.at(-1);
    // Moved before the page is handled, so a page that fails is not retried ahead of the rest.
    const next = last === undefined || rows.length < sweep.pageSize ? null : sweep.positionOf(last);
    // Written only when it moves: an idle pass (no backlog) reads its cursor and writes nothing.
    if (!same(next, cursor)) await ctx.store.saveSweepCursor(sweep.pass, next);
    cursor = next;
    done += await sweep.handle(rows);
    if (rows.length < sweep.pageSize) break;
  }
  return done;
}
