import type { Database as Db } from 'better-sqlite3';
import type { BlocklistStore, LiftBlockOutcome } from '../../ports/engine/index.js';
import { blockParams, blocklistStampSql, toBlock, type BlockRow } from '../shared/block-rows.js';
import type { GroupCommit } from './group-commit.js';

export function sqliteBlocklist(db: Db, gc: GroupCommit): BlocklistStore {
  const q = {
    insert: db.prepare(`INSERT INTO blocklist (block_id, kind, user_id, username, cidr, reason, created_by, created_at, expires_at, status)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    // Conditional on ACTIVE: a lift decided on an entry someone lifted meanwhile changes nothing.
    lift: db.prepare("UPDATE blocklist SET status = 'LIFTED', lifted_at = ? WHERE block_id = ? AND status = 'ACTIVE'"),
    exists: db.prepare('SELECT 1 FROM blocklist WHERE block_id = ?'),
    get: db.prepare('SELECT * FROM blocklist WHERE block_id = ?'),
    active: db.prepare("SELECT * FROM blocklist WHERE status = 'ACTIVE' ORDER BY created_at, block_id LIMIT ?"),
    stamp: db.prepare(blocklistStampSql),
  };
  return {
    addBlock: (entry) => gc.write('addBlock', () => {
      q.insert.run(...blockParams(entry));
    }),
    liftBlock: (plan) => gc.write('liftBlock', (): LiftBlockOutcome => {
      if (q.lift.run(plan.liftedAt, plan.blockId).changes === 1) return { ok: true };
      return q.exists.get(plan.blockId) === undefined ? { ok: false, code: 'BLOCK_NOT_FOUND' } : { ok: false, stale: 'block' };
    }),
    getBlock: async (blockId) => {
      const row = q.get.get(blockId) as BlockRow | undefined;
      return row === undefined ? null : toBlock(row);
    },
    listActiveBlocks: async (limit) => (q.active.all(limit) as BlockRow[]).map(toBlock),
    blocklistStamp: async () => {
      const row = q.stamp.get() as { n: number; lifted: number };
      return `${row.n}:${row.lifted}`;
    },
  };
}
