import Database from 'better-sqlite3';
import { expect, it } from 'vitest';
import { migrate } from '../../src/adapters/sqlite/migrations.js';

// GET /me/holds reads a buyer's live holds on every page load and focus: through the partial index
// of ACTIVE holds by user (migration v8), never a scan of every hold.
it("reads a buyer's live holds through holds_active_by_user, not a scan", () => {
  const db = new Database(':memory:');
  try {
    migrate(db);
    const plan = db.prepare(`EXPLAIN QUERY PLAN SELECT * FROM holds WHERE user_id = ? AND status = 'ACTIVE' AND expires_at > ?
      ORDER BY expires_at, hold_id LIMIT ? OFFSET ?`).all('u', 0, 20, 0) as { detail: string }[];
    const details = plan.map((p) => p.detail).join(' | ');
    expect(details).toMatch(/USING (COVERING )?INDEX holds_active_by_user/);
    expect(details).not.toMatch(/TEMP B-TREE/);
  } finally {
    db.close();
  }
});
