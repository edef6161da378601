import type { BookingTelemetry } from '../ports/telemetry.js';
import type { Clock } from '../ports/runtime.js';
import type { SweepStore } from '../ports/engine/index.js';
import { auditCheckNames, auditShows, zeroCounts, type AuditCheckName, type AuditSource } from './inventory-audit.js';

export interface AuditJobOptions {
  readonly boundMs: number;
  /** Shows read per run; the next run goes on from the cursor (kept with the sweep's lease row). */
  readonly showsPerRun: number;
}

/** The sweep's name: its lease and its cursor. */
export const auditSweepName = 'inventory-audit';

/**
 * The auditor as a periodic, leased job in the server (read-only, through `source`: on SQLite a
 * read-only connection of its own, never the store thread that decides the sales): each run reads the next
 * `showsPerRun` shows, a show at a time, and the inconsistency gauge is the sum over every show's
 * latest result (only shows with violations are remembered, so memory stays small). A full
 * cycle over S shows takes ceil(S / showsPerRun) runs. Another process that takes the lease over
 * starts its own totals from its first cycle (ticketrush_audit_last_run_timestamp_seconds tells
 * which process audited last).
 */
export function createAuditJob(
  ctx: { readonly store: Pick<SweepStore, 'sweepCursor' | 'saveSweepCursor'>; readonly clock: Clock; readonly telemetry: BookingTelemetry },
  source: AuditSource,
  options: AuditJobOptions,
): () => Promise<void> {
  const violating = new Map<string, Readonly<Record<AuditCheckName, number>>>();
  return async () => {
    const after = (await ctx.store.sweepCursor(auditSweepName))?.id ?? null;
    const pass = await auditShows(source, {
      now: ctx.clock.now(), boundMs: options.boundMs, after, showsMax: options.showsPerRun,
    });
    for (const showId of pass.showIds) violating.delete(showId);
    for (const [showId, counts] of pass.byShow) violating.set(showId, counts);
    // Written only when it moves; the cursor is a hint (a lost one re-reads a page of shows).
    if (pass.cursor !== after) await ctx.store.saveSweepCursor(auditSweepName, pass.cursor === null ? null : { at: 0, id: pass.cursor });
    const total = zeroCounts();
    for (const counts of violating.values()) for (const name of auditCheckNames) total[name] += counts[name];
    ctx.telemetry.audited(total, Math.floor(ctx.clock.now() / 1000));
  };
}
