import type { Database as Db } from 'better-sqlite3';
import type { CodePool, CodePoolStore, CodePoolView, GrabCodeOutcome, GrabbedCode, ImportCodesOutcome, MyCode, WinnerRow } from '../../ports/engine/index.js';
import { codePoolChanged } from '../shared/outbox-drafts.js';
import { sqliteChangeLogWriter } from './change-log.js';
import type { GroupCommit } from './group-commit.js';
import type { OutboxWriter } from './outbox.js';

interface PoolRow {
  pool_id: string; title: string; description: string; image_url: string | null;
  sale_starts_at: number; sale_ends_at: number; created_at: number; imported: number; remaining: number; offline: 0 | 1 | boolean; version: number;
}
interface CodeRow { pool_id: string; code: string; grabbed_at: number }

const toGrabbed = (row: CodeRow): GrabbedCode => ({ poolId: row.pool_id, code: row.code, grabbedAt: row.grabbed_at });

/**
 * Code pools on the embedded store. Every write is a unit of the group commit (one writer), so
 * the grab's pick-and-assign cannot interleave with another; the one-per-buyer rule is still the
 * unique index pool_codes_one_per_user, as on PostgreSQL, not a read before the write.
 */
export function sqliteCodePools(db: Db, gc: GroupCommit, ob: OutboxWriter): CodePoolStore {
  const auditLog = sqliteChangeLogWriter(db);
  const q = {
    insertPool: db.prepare(`INSERT INTO code_pools (pool_id, title, description, image_url, sale_starts_at, sale_ends_at, created_at)
      VALUES (@poolId, @title, @description, @imageUrl, @saleStartsAt, @saleEndsAt, @createdAt)`),
    pool: db.prepare(`SELECT p.*, (SELECT count(*) FROM pool_codes c WHERE c.pool_id = p.pool_id AND c.user_id IS NULL) AS remaining
      FROM code_pools p WHERE p.pool_id = ?`),
    exists: db.prepare('SELECT 1 FROM code_pools WHERE pool_id = ?'),
    insertCode: db.prepare('INSERT INTO pool_codes (pool_id, code) VALUES (?, ?) ON CONFLICT DO NOTHING'),
    addImported: db.prepare('UPDATE code_pools SET imported = imported + ? WHERE pool_id = ?'),
    // OR IGNORE: a buyer who already has a code trips pool_codes_one_per_user and the row is left
    // as it was (no change, nothing returned); the caller then reads the buyer's code.
    // Never from a pool its organizer took offline, nor outside its sale window as stored: the same
    // statement decides, whatever window the caller cached.
    grab: db.prepare(`UPDATE OR IGNORE pool_codes SET user_id = @userId, grabbed_at = @now
      WHERE code_id = (SELECT code_id FROM pool_codes WHERE pool_id = @poolId AND user_id IS NULL
        AND EXISTS (SELECT 1 FROM code_pools p WHERE p.pool_id = @poolId AND p.offline = 0
          AND p.sale_starts_at <= @now AND @now < p.sale_ends_at) ORDER BY code_id LIMIT 1)
      RETURNING pool_id, code, grabbed_at`),
    mine: db.prepare('SELECT pool_id, code, grabbed_at FROM pool_codes WHERE pool_id = ? AND user_id = ?'),
    myCodes: db.prepare(`SELECT c.pool_id, c.code, c.grabbed_at, p.title FROM pool_codes c JOIN code_pools p ON p.pool_id = c.pool_id
      WHERE c.user_id = ? ORDER BY c.grabbed_at DESC, c.code_id DESC LIMIT ? OFFSET ?`),
    winnersFirst: db.prepare(`SELECT u.username, c.code, c.grabbed_at FROM pool_codes c JOIN users u ON u.user_id = c.user_id
      WHERE c.pool_id = ? AND c.user_id IS NOT NULL ORDER BY c.grabbed_at, c.code LIMIT ?`),
    winnersAfter: db.prepare(`SELECT u.username, c.code, c.grabbed_at FROM pool_codes c JOIN users u ON u.user_id = c.user_id
      WHERE c.pool_id = ? AND c.user_id IS NOT NULL AND (c.grabbed_at, c.code) > (?, ?) ORDER BY c.grabbed_at, c.code LIMIT ?`),
  };
  const catalog = db.prepare(`SELECT pool_id, title, image_url, sale_starts_at, sale_ends_at, offline FROM code_pools
    WHERE @hidden = 1 OR (offline = 0 AND sale_ends_at > @now)
    ORDER BY
      CASE WHEN offline = 1 OR @now >= sale_ends_at THEN 2 WHEN @now < sale_starts_at THEN 1 ELSE 0 END,
      CASE WHEN offline = 1 OR @now >= sale_ends_at THEN -sale_ends_at WHEN @now < sale_starts_at THEN sale_starts_at ELSE sale_ends_at END,
      pool_id
    LIMIT @limit`);
  const change = db.prepare(`UPDATE code_pools SET title = @title, description = @description, image_url = @imageUrl, sale_ends_at = @saleEndsAt,
      offline = @offline, version = version + 1 WHERE pool_id = @poolId AND version = @expectedVersion`);
  return {
    updateCodePool: ({ poolId, expectedVersion, details, audit, now }) => gc.write('updateCodePool', () => {
      if (q.exists.get(poolId) === undefined) return { ok: false as const, code: 'CODE_POOL_NOT_FOUND' as const };
      const changed = change.run({ poolId, expectedVersion, title: details.title, description: details.description, imageUrl: details.imageUrl, saleEndsAt: details.saleEndsAt, offline: details.offline ? 1 : 0 }).changes;
      if (changed !== 1) return { ok: false as const, stale: 'pool' as const };
      auditLog.append(audit);
      const pool = toView(q.pool.get(poolId) as PoolRow);
      ob.append(now ?? Date.now(), [codePoolChanged(poolId, pool.version)]);
      return { ok: true as const, pool };
    }),
    listCodePoolActivities: async (limit, now, withHidden) =>
      (catalog.all({ limit, now, hidden: withHidden ? 1 : 0 }) as { pool_id: string; title: string; image_url: string | null; sale_starts_at: number; sale_ends_at: number; offline: 0 | 1 }[])
        .map((r) => ({ activityId: r.pool_id, kind: 'CODE_POOL' as const, title: r.title, imageUrl: r.image_url, saleStartsAt: r.sale_starts_at, saleEndsAt: r.sale_ends_at, offline: r.offline === 1 })),
    createCodePool: (pool: CodePool, audit) => gc.write('createCodePool', () => {
      q.insertPool.run(pool);
      auditLog.append(audit);
    }),
    getCodePool: async (poolId) => {
      const row = q.pool.get(poolId) as PoolRow | undefined;
      return row === undefined ? null : toView(row);
    },
    importCodes: ({ poolId, codes }) => gc.write('importCodes', (): ImportCodesOutcome => {
      if (q.exists.get(poolId) === undefined) return { ok: false, code: 'CODE_POOL_NOT_FOUND' };
      let imported = 0;
      for (const code of codes) imported += q.insertCode.run(poolId, code).changes;
      if (imported > 0) q.addImported.run(imported, poolId);
      return { ok: true, imported, duplicates: codes.length - imported };
    }),
    grabCode: ({ poolId, userId, now }) => gc.write('grabCode', (): GrabCodeOutcome => {
      const taken = q.grab.get({ poolId, userId, now }) as CodeRow | undefined;
      if (taken !== undefined) return { ok: true, fresh: true, grabbed: toGrabbed(taken) };
      const mine = q.mine.get(poolId, userId) as CodeRow | undefined;
      if (mine !== undefined) return { ok: true, fresh: false, grabbed: toGrabbed(mine) };
      const pool = q.pool.get(poolId) as PoolRow | undefined;
      if (pool === undefined) return { ok: false, code: 'CODE_POOL_NOT_FOUND' };
      if (pool.offline === 1) return { ok: false, code: 'ACTIVITY_OFFLINE' };
      return { ok: false, code: now < pool.sale_starts_at || now >= pool.sale_ends_at ? 'SALE_NOT_OPEN' : 'SOLD_OUT' };
    }),
    codeOfUser: async (poolId, userId) => {
      const row = q.mine.get(poolId, userId) as CodeRow | undefined;
      return row === undefined ? null : toGrabbed(row);
    },
    codesOfUser: async (userId, { limit, offset }) =>
      (q.myCodes.all(userId, limit, offset) as (CodeRow & { title: string })[]).map((row): MyCode => ({ ...toGrabbed(row), poolTitle: row.title })),
    winnersPage: async (poolId, after, limit) => {
      const rows = (after === null ? q.winnersFirst.all(poolId, limit) : q.winnersAfter.all(poolId, after.at, after.id, limit)) as
        { username: string; code: string; grabbed_at: number }[];
      return rows.map((row): WinnerRow => ({ username: row.username, code: row.code, grabbedAt: row.grabbed_at }));
    },
  };
}

function toView(row: PoolRow): CodePoolView {
  return {
    poolId: row.pool_id, title: row.title, description: row.description, imageUrl: row.image_url,
    saleStartsAt: row.sale_starts_at, saleEndsAt: row.sale_ends_at, createdAt: row.created_at,
    imported: row.imported, remaining: row.remaining, offline: row.offline === 1 || row.offline === true, version: Number(row.version),
  };
}
