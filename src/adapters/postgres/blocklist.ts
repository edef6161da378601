import type { BlocklistStore, LiftBlockOutcome } from '../../ports/engine/index.js';
import { blockParams, blocklistStampSql, toBlock, type BlockRow } from '../shared/block-rows.js';
import { appendAuditEntry } from './change-log.js';
import { unexpected, type PgDb } from './db.js';

export function pgBlocklist(db: PgDb): BlocklistStore {
  return {
    async addBlock(entry, audit) {
      const result = await db.tx('addBlock', async (c) => {
        await c.query(`INSERT INTO blocklist (block_id, kind, user_id, username, cidr, reason, created_by, created_at, expires_at, status)
          VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`, blockParams(entry));
        await appendAuditEntry(c, audit);
      });
      if (!result.ok) unexpected('addBlock', result);
    },
    // One statement: the conditional update, and whether the row exists at all when it matched nothing.
    async liftBlock(plan, audit): Promise<LiftBlockOutcome> {
      const result = await db.tx('liftBlock', async (c): Promise<LiftBlockOutcome> => {
        const { rows } = await c.query<{ lifted: boolean; found: boolean }>(
          `WITH lifted AS (UPDATE blocklist SET status = 'LIFTED', lifted_at = $2 WHERE block_id = $1 AND status = 'ACTIVE' RETURNING 1)
           SELECT EXISTS (SELECT 1 FROM lifted) AS lifted, EXISTS (SELECT 1 FROM blocklist WHERE block_id = $1) AS found`,
          [plan.blockId, plan.liftedAt]);
        const row = rows[0] as { lifted: boolean; found: boolean };
        if (!row.lifted) return row.found ? { ok: false, stale: 'block' } : { ok: false, code: 'BLOCK_NOT_FOUND' };
        // The entry only when the lift itself committed (a stale or unknown lift leaves none).
        await appendAuditEntry(c, audit);
        return { ok: true };
      });
      return result.ok ? result.value : unexpected('liftBlock', result);
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
