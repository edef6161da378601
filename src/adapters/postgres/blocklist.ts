import type { BlocklistStore, LiftBlockOutcome } from '../../ports/engine/index.js';
import { blockParams, blocklistStampSql, toBlock, type BlockRow } from '../shared/block-rows.js';
import type { PgDb } from './db.js';

export function pgBlocklist(db: PgDb): BlocklistStore {
  return {
    async addBlock(entry) {
      await db.query(`INSERT INTO blocklist (block_id, kind, user_id, username, cidr, reason, created_by, created_at, expires_at, status)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`, blockParams(entry));
    },
    // One statement: the conditional update, and whether the row exists at all when it matched nothing.
    async liftBlock(plan): Promise<LiftBlockOutcome> {
      const { rows } = await db.query<{ lifted: boolean; found: boolean }>(
        `WITH lifted AS (UPDATE blocklist SET status = 'LIFTED', lifted_at = $2 WHERE block_id = $1 AND status = 'ACTIVE' RETURNING 1)
         SELECT EXISTS (SELECT 1 FROM lifted) AS lifted, EXISTS (SELECT 1 FROM blocklist WHERE block_id = $1) AS found`,
        [plan.blockId, plan.liftedAt]);
      const row = rows[0] as { lifted: boolean; found: boolean };
      if (row.lifted) return { ok: true };
      return row.found ? { ok: false, stale: 'block' } : { ok: false, code: 'BLOCK_NOT_FOUND' };
    },
    async getBlock(blockId) {
      const { rows } = await db.query<BlockRow>('SELECT * FROM blocklist WHERE block_id = $1', [blockId]);
      return rows[0] === undefined ? null : toBlock(rows[0]);
    },
    async listActiveBlocks(limit) {
      const { rows } = await db.query<BlockRow>("SELECT * FROM blocklist WHERE status = 'ACTIVE' ORDER BY created_at, block_id LIMIT $1", [limit]);
      return rows.map(toBlock);
    },
    async blocklistStamp() {
      const { rows } = await db.query<{ n: string; lifted: string }>(blocklistStampSql);
      const row = rows[0] as { n: string; lifted: string };
      return `${row.n}:${row.lifted}`;
    },
  };
}
