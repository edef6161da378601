import type { KeysetPosition } from '../ports/engine/index.js';
import type { AppContext } from './context.js';

/**
 * Where each background pass of a node stopped. A pass that always read "the oldest N" would look
 * at the same N rows forever once N of them could not be settled (a payment the provider still
 * calls PENDING, a refund it refuses); a cursor kept between runs walks the whole backlog and
 * then starts again from the oldest. Kept in memory: after a restart a pass starts from the oldest.
 */
const cursors = new WeakMap<AppContext, Map<string, KeysetPosition>>();

export interface KeysetSweep<T> {
  /** The pass's name: each name has its own cursor. */
  readonly pass: string;
  readonly pageSize: number;
  /** Pages per run; a run also ends at the end of the backlog. */
  readonly pagesMax: number;
  fetch(after: KeysetPosition | null, limit: number): Promise<T[]>;
  positionOf(row: T): KeysetPosition;
  /** Settles one page; returns how many rows it settled. Must not throw for one bad row. */
  handle(page: readonly T[]): Promise<number>;
}

/** Runs one bounded run of a pass: at most `pagesMax` pages of at most `pageSize` rows. */
export async function sweepByKeyset<T>(ctx: AppContext, sweep: KeysetSweep<T>): Promise<number> {
  let mine = cursors.get(ctx);
  if (mine === undefined) {
    mine = new Map();
    cursors.set(ctx, mine);
  }
  let done = 0;
  for (let page = 0; page < sweep.pagesMax; page++) {
    const rows = await sweep.fetch(mine.get(sweep.pass) ?? null, sweep.pageSize);
    const last = rows.at(-1);
    // Moved before the page is handled, so a page that fails is not retried ahead of the rest.
    if (last === undefined || rows.length < sweep.pageSize) mine.delete(sweep.pass);
    else mine.set(sweep.pass, sweep.positionOf(last));
    done += await sweep.handle(rows);
    if (rows.length < sweep.pageSize) break;
  }
  return done;
}
