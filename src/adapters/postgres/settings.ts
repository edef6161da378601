import type { SettingsStore } from '../../ports/engine/index.js';
import { unexpected, type PgDb } from './db.js';

export function pgSettings(db: PgDb): SettingsStore {
  return {
    // One statement: the INSERT's arbiter waits for a concurrent inserter of the same name to
    // commit, then does nothing; the stored row is then read in the same transaction (READ
    // COMMITTED sees the winner's commit), so every caller returns the first writer's value.
    async settleSetting(name, value) {
      const result = await db.tx('settleSetting', async (c) => {
        const inserted = await c.query<{ value: string }>(
          'INSERT INTO settings (name, value, created_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING RETURNING value', [name, value, Date.now()]);
        if (inserted.rows[0] !== undefined) return inserted.rows[0].value;
        const stored = await c.query<{ value: string }>('SELECT value FROM settings WHERE name = $1', [name]);
        return (stored.rows[0] as { value: string }).value;
      });
      return result.ok ? result.value : unexpected('settleSetting', result);
    },
  };
}
