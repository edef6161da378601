import type { AcquireLeaseOutcome, KeysetPosition, SweepStore } from '../../ports/engine/index.js';
import { unexpected, type PgDb } from './db.js';

interface SweepRow {
  holder: string;
  lease_until: string;
  cursor_at: string | null;
  cursor_id: string | null;
}

/** Sweep leases and cursors (see ports/engine/sweeps.ts): one row per sweep. */
export function pgSweeps(db: PgDb): SweepStore {
  return {
    // One conditional upsert. Two processes asking at once: the second waits on the first's row
    // lock, then re-checks the WHERE against the committed row (READ COMMITTED), so it finds the
    // lease taken and updates nothing.
    async acquireLease(input): Promise<AcquireLeaseOutcome> {
      const until = input.now + input.ttlMs;
      const result = await db.statement('acquireLease', (c) => c.query(
        `INSERT INTO sweeps (name, holder, lease_until) VALUES ($1, $2, $3)
         ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, lease_until = excluded.lease_until
         WHERE sweeps.lease_until <= $4 OR sweeps.holder = excluded.holder`,
        [input.name, input.holder, until, input.now]));
      if (!result.ok) return unexpected('acquireLease', result);
      if (result.value.rowCount === 1) return { ok: true, until };
      const { rows } = await db.query<SweepRow>('SELECT holder, lease_until FROM sweeps WHERE name = $1', [input.name]);
      return { ok: false, holder: rows[0]?.holder ?? '', until: Number(rows[0]?.lease_until ?? 0) };
    },
    async releaseLease(claim) {
      const result = await db.statement('releaseLease', (c) => c.query('UPDATE sweeps SET lease_until = 0 WHERE name = $1 AND holder = $2', [claim.name, claim.holder]));
      if (!result.ok) return unexpected('releaseLease', result);
      return result.value.rowCount === 1;
    },
    async sweepCursor(name) {
      const { rows } = await db.query<SweepRow>('SELECT cursor_at, cursor_id FROM sweeps WHERE name = $1', [name]);
      const row = rows[0];
      return row?.cursor_at == null || row.cursor_id === null ? null : { at: Number(row.cursor_at), id: row.cursor_id };
    },
    async saveSweepCursor(name: string, cursor: KeysetPosition | null) {
      const result = await db.statement('saveSweepCursor', (c) => c.query(
        `INSERT INTO sweeps (name, cursor_at, cursor_id) VALUES ($1, $2, $3)
         ON CONFLICT (name) DO UPDATE SET cursor_at = excluded.cursor_at, cursor_id = excluded.cursor_id`,
        [name, cursor?.at ?? null, cursor?.id ?? null]));
      if (!result.ok) unexpected('saveSweepCursor', result);
    },
  };
}
