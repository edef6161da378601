import type { Database as Db } from 'better-sqlite3';
import type { SettingsStore } from '../../ports/engine/index.js';
import type { GroupCommit } from './group-commit.js';

/** Insert-if-absent then read back, in one unit of the group commit (one writer at a time). */
export function sqliteSettings(db: Db, gc: GroupCommit): SettingsStore {
  const insert = db.prepare('INSERT INTO settings (name, value, created_at) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING');
  const read = db.prepare('SELECT value FROM settings WHERE name = ?');
  return {
    settleSetting: (name, value) =>
      gc.write('settleSetting', (): string => {
        insert.run(name, value, Date.now());
        return (read.get(name) as { value: string }).value;
      }),
  };
}
