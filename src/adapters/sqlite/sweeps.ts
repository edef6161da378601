import type { Database as Db } from 'better-sqlite3';
import type { AcquireLeaseOutcome, KeysetPosition, SweepStore } from '../../ports/engine/index.js';
import type { GroupCommit } from './group-commit.js';

interface SweepRow {
  holder: string;
  lease_until: number;
  cursor_at: number | null;
  cursor_id: string | null;
}

/** Sweep leases and cursors (see ports/engine/sweeps.ts): one row per sweep. */
export function sqliteSweeps(db: Db, gc: GroupCommit): SweepStore {
  const q = {
    get: db.prepare('SELECT holder, lease_until, cursor_at, cursor_id FROM sweeps WHERE name = ?'),
    // The compare-and-set: the update applies only to a lease that ran out or is the asker's own.
    acquire: db.prepare(`INSERT INTO sweeps (name, holder, lease_until) VALUES (@name, @holder, @until)
      ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, lease_until = excluded.lease_until
      WHERE sweeps.lease_until <= @now OR sweeps.holder = excluded.holder`),
    release: db.prepare(`UPDATE sweeps SET lease_until = 0 WHERE name = ? AND holder = ?`),
    cursor: db.prepare(`INSERT INTO sweeps (name, cursor_at, cursor_id) VALUES (?, ?, ?)
      ON CONFLICT (name) DO UPDATE SET cursor_at = excluded.cursor_at, cursor_id = excluded.cursor_id`),
  };
  const row = (name: string): SweepRow | undefined => q.get.get(name) as SweepRow | undefined;
  return {
    acquireLease: (input) =>
      gc.write('acquireLease', (): AcquireLeaseOutcome => {
        const until = input.now + input.ttlMs;
        if (q.acquire.run({ name: input.name, holder: input.holder, until, now: input.now }).changes === 1) return { ok: true, until };
        const current = row(input.name) as SweepRow;
        return { ok: false, holder: current.holder, until: current.lease_until };
      }),
    releaseLease: (claim) => gc.write('releaseLease', () => q.release.run(claim.name, claim.holder).changes === 1),
    async sweepCursor(name) {
      const current = row(name);
      return current?.cursor_at == null || current.cursor_id === null ? null : { at: current.cursor_at, id: current.cursor_id };
    },
    saveSweepCursor: (name: string, cursor: KeysetPosition | null) =>
      gc.write('saveSweepCursor', () => {
        q.cursor.run(name, cursor?.at ?? null, cursor?.id ?? null);
      }),
  };
}
