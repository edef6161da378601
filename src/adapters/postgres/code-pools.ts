import type { CodePool, CodePoolStore, CodePoolView, GrabCodeOutcome, GrabbedCode, MyCode, UpdateCodePoolOutcome, WinnerRow } from '../../ports/engine/index.js';
import { codePoolChanged } from '../shared/outbox-drafts.js';
import { appendAuditEntry } from './change-log.js';
import { unexpected, type PgDb } from './db.js';
import { appendOutbox } from './outbox.js';

interface PoolRow {
  pool_id: string; title: string; description: string; image_url: string | null;
  sale_starts_at: number; sale_ends_at: number; created_at: number; imported: number; remaining: number; offline: boolean; version: number;
}
interface CodeRow { pool_id: string; code: string; grabbed_at: number }

const toGrabbed = (row: CodeRow): GrabbedCode => ({ poolId: row.pool_id, code: row.code, grabbedAt: row.grabbed_at });

/** A pick that found every free code locked by grabs in flight tries again this many times. */
const grabAttemptsMax = 5;

/**
 * Code pools on PostgreSQL. The grab is one autocommit statement: the next free code by
 * `FOR UPDATE SKIP LOCKED` (a rush of grabs on one pool takes different rows side by side instead
 * of queueing on the first) and its assignment; one code per buyer is the unique index
 * pool_codes_one_per_user, which refuses the second of two racing grabs by one buyer whichever
 * commits first (READ COMMITTED needs nothing more).
 */
export function pgCodePools(db: PgDb, origin: string): CodePoolStore {
  const mine = async (poolId: string, userId: string): Promise<GrabbedCode | null> => {
    const { rows } = await db.query<CodeRow>('SELECT pool_id, code, grabbed_at FROM pool_codes WHERE pool_id = $1 AND user_id = $2', [poolId, userId]);
    return rows[0] === undefined ? null : toGrabbed(rows[0]);
  };
  return {
    async updateCodePool({ poolId, expectedVersion, details, audit, now }) {
      const result = await db.tx('updateCodePool', async (c): Promise<UpdateCodePoolOutcome> => {
        const exists = await c.query('SELECT 1 FROM code_pools WHERE pool_id = $1', [poolId]);
        if (exists.rowCount === 0) return { ok: false, code: 'CODE_POOL_NOT_FOUND' };
        const updated = await c.query(
          `UPDATE code_pools SET title = $3, description = $4, image_url = $5, sale_ends_at = $6, offline = $7, version = version + 1
           WHERE pool_id = $1 AND version = $2`,
          [poolId, expectedVersion, details.title, details.description, details.imageUrl, details.saleEndsAt, details.offline]);
        if (updated.rowCount !== 1) return { ok: false, stale: 'pool' };
        await appendAuditEntry(c, audit);
        const { rows } = await c.query<PoolRow>(
          `SELECT p.*, (SELECT count(*) FROM pool_codes c WHERE c.pool_id = p.pool_id AND c.user_id IS NULL)::int AS remaining
           FROM code_pools p WHERE p.pool_id = $1`, [poolId]);
        const pool = toView(rows[0] as PoolRow);
        // In the change's transaction: every other process drops its cached window through the feed.
        await appendOutbox(c, origin, now ?? Date.now(), [codePoolChanged(poolId, pool.version)]);
        return { ok: true, pool };
      });
      return result.ok ? result.value : unexpected('updateCodePool', result);
    },
    async listCodePoolActivities(limit, now, withHidden) {
      const { rows } = await db.query<{ pool_id: string; title: string; image_url: string | null; sale_starts_at: string; sale_ends_at: string; offline: boolean }>(
        `SELECT pool_id, title, image_url, sale_starts_at, sale_ends_at, offline FROM code_pools
         WHERE $3::boolean OR (NOT offline AND sale_ends_at > $2::bigint)
         ORDER BY
           CASE WHEN offline OR $2::bigint >= sale_ends_at THEN 2 WHEN $2::bigint < sale_starts_at THEN 1 ELSE 0 END,
           CASE WHEN offline OR $2::bigint >= sale_ends_at THEN -sale_ends_at WHEN $2::bigint < sale_starts_at THEN sale_starts_at ELSE sale_ends_at END,
           pool_id COLLATE "C"
         LIMIT $1`, [limit, now, withHidden]);
      return rows.map((r) => ({
        activityId: r.pool_id, kind: 'CODE_POOL' as const, title: r.title, imageUrl: r.image_url,
        saleStartsAt: Number(r.sale_starts_at), saleEndsAt: Number(r.sale_ends_at), offline: r.offline,
      }));
    },
    async createCodePool(pool: CodePool, audit) {
      const result = await db.tx('createCodePool', async (c) => {
        await c.query(
          `INSERT INTO code_pools (pool_id, title, description, image_url, sale_starts_at, sale_ends_at, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7)`,
          [pool.poolId, pool.title, pool.description, pool.imageUrl, pool.saleStartsAt, pool.saleEndsAt, pool.createdAt]);
        await appendAuditEntry(c, audit);
      });
      if (!result.ok) unexpected('createCodePool', result);
    },
    async getCodePool(poolId) {
      const { rows } = await db.query<PoolRow>(
        `SELECT p.*, (SELECT count(*) FROM pool_codes c WHERE c.pool_id = p.pool_id AND c.user_id IS NULL)::int AS remaining
         FROM code_pools p WHERE p.pool_id = $1`, [poolId]);
      return rows[0] === undefined ? null : toView(rows[0]);
    },
    // One transaction: the pool row is locked first (FOR UPDATE), so two imports of one pool
    // add to `imported` one after the other; ON CONFLICT DO NOTHING leaves a code already in the
    // pool (or repeated in the batch) alone, and the inserted count is what RETURNING gives back.
    async importCodes({ poolId, codes }) {
      const result = await db.tx('importCodes', async (c) => {
        const pool = await c.query('SELECT 1 FROM code_pools WHERE pool_id = $1 FOR UPDATE', [poolId]);
        if (pool.rowCount === 0) return null;
        const inserted = await c.query(
          'INSERT INTO pool_codes (pool_id, code) SELECT $1, x FROM unnest($2::text[]) WITH ORDINALITY AS t(x, n) ORDER BY n ON CONFLICT DO NOTHING',
          [poolId, codes]);
        const imported = inserted.rowCount ?? 0;
        if (imported > 0) await c.query('UPDATE code_pools SET imported = imported + $2 WHERE pool_id = $1', [poolId, imported]);
        return imported;
      });
      if (!result.ok) return unexpected('importCodes', result);
      if (result.value === null) return { ok: false, code: 'CODE_POOL_NOT_FOUND' };
      return { ok: true, imported: result.value, duplicates: codes.length - result.value };
    },
    async grabCode({ poolId, userId, now }): Promise<GrabCodeOutcome> {
      for (let attempt = 0; attempt < grabAttemptsMax; attempt++) {
        // The pool's row as stored decides, in this statement: not offline and `now` inside its sale
        // window, whatever window the caller's process has cached (an organizer's change elsewhere).
        const result = await db.statement('grabCode', (c) => c.query<CodeRow>(
          `UPDATE pool_codes SET user_id = $2, grabbed_at = $3
           WHERE code_id = (SELECT code_id FROM pool_codes WHERE pool_id = $1 AND user_id IS NULL
             AND EXISTS (SELECT 1 FROM code_pools p WHERE p.pool_id = $1 AND NOT p.offline
               AND p.sale_starts_at <= $3::bigint AND $3::bigint < p.sale_ends_at)
             ORDER BY code_id LIMIT 1 FOR UPDATE SKIP LOCKED)
           RETURNING pool_id, code, grabbed_at`, [poolId, userId, now]));
        if (result.ok && result.value.rows[0] !== undefined) return { ok: true, fresh: true, grabbed: toGrabbed(result.value.rows[0]) };
        if (!result.ok && !(result.kind === 'unique' && result.constraint === 'pool_codes_one_per_user')) return unexpected('grabCode', result);
        const had = await mine(poolId, userId);
        if (had !== null) return { ok: true, fresh: false, grabbed: had };
        // Nothing picked: the pool is empty, or every free code was locked by a grab in flight that
        // may yet roll back (a buyer's second grab refused by the unique index): look again.
        const left = await db.query<{ pool: boolean; free: boolean; offline: boolean; open: boolean }>(
          `SELECT EXISTS (SELECT 1 FROM code_pools WHERE pool_id = $1) AS pool,
                  EXISTS (SELECT 1 FROM code_pools WHERE pool_id = $1 AND offline) AS offline,
                  EXISTS (SELECT 1 FROM code_pools WHERE pool_id = $1 AND sale_starts_at <= $2::bigint AND $2::bigint < sale_ends_at) AS open,
                  EXISTS (SELECT 1 FROM pool_codes WHERE pool_id = $1 AND user_id IS NULL) AS free`, [poolId, now]);
        const state = left.rows[0];
        if (state === undefined || !state.pool) return { ok: false, code: 'CODE_POOL_NOT_FOUND' };
        // Taken offline by its organizer, or outside its window (the grab's statement refused it).
        if (state.offline) return { ok: false, code: 'ACTIVITY_OFFLINE' };
        if (!state.open) return { ok: false, code: 'SALE_NOT_OPEN' };
        if (!state.free) return { ok: false, code: 'SOLD_OUT' };
      }
      return { ok: false, code: 'SOLD_OUT' };
    },
    codeOfUser: mine,
    async codesOfUser(userId, { limit, offset }) {
      const { rows } = await db.query<CodeRow & { title: string }>(
        `SELECT c.pool_id, c.code, c.grabbed_at, p.title FROM pool_codes c JOIN code_pools p ON p.pool_id = c.pool_id
         WHERE c.user_id = $1 ORDER BY c.grabbed_at DESC, c.code_id DESC LIMIT $2 OFFSET $3`, [userId, limit, offset]);
      return rows.map((row): MyCode => ({ ...toGrabbed(row), poolTitle: row.title }));
    },
    async winnersPage(poolId, after, limit) {
      const { rows } = await db.query<{ username: string; code: string; grabbed_at: number }>(
        `SELECT u.username, c.code, c.grabbed_at FROM pool_codes c JOIN users u ON u.user_id = c.user_id
         WHERE c.pool_id = $1 AND c.user_id IS NOT NULL
           AND ($2::bigint IS NULL OR (c.grabbed_at, c.code COLLATE "C") > ($2::bigint, $3::text COLLATE "C"))
         ORDER BY c.grabbed_at, c.code COLLATE "C" LIMIT $4`, [poolId, after?.at ?? null, after?.id ?? null, limit]);
      return rows.map((row): WinnerRow => ({ username: row.username, code: row.code, grabbedAt: row.grabbed_at }));
    },
  };
}

function toView(row: PoolRow): CodePoolView {
  return {
    poolId: row.pool_id, title: row.title, description: row.description, imageUrl: row.image_url,
    saleStartsAt: row.sale_starts_at, saleEndsAt: row.sale_ends_at, createdAt: row.created_at,
    imported: row.imported, remaining: row.remaining, offline: row.offline, version: Number(row.version),
  };
}
