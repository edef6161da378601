import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import type { TestStoreHandle } from '../support/stores.js';

/**
 * A second connection to a contract store's database, to bend its state behind the adapter's back
 * (the state a bug or another writer could leave) and to check what the schema alone refuses.
 * Statements are given per store where the dialects differ; what the database refused is named
 * by kind, the same on both: 'check' (a CHECK constraint) or 'unique' (a unique index).
 */
export type SqlFor = string | { readonly sqlite: string; readonly postgres: string };
export type Refusal = 'ok' | 'check' | 'unique';

export interface RawSql {
  run(sql: SqlFor): Promise<Refusal>;
  close(): Promise<void>;
}

export async function rawSql(h: TestStoreHandle): Promise<RawSql> {
  const pick = (sql: SqlFor): string => (typeof sql === 'string' ? sql : sql[h.database.store === 'sqlite' ? 'sqlite' : 'postgres']);
  if (h.database.store === 'sqlite') {
    const db = new Database(join(h.database.dataDir, 'ticketrush.db'));
    db.pragma('busy_timeout = 5000');
    return {
      async run(sql) {
        try {
          db.prepare(pick(sql)).run();
          return 'ok';
        } catch (error) {
          const code = (error as { code?: string }).code ?? '';
          if (code.startsWith('SQLITE_CONSTRAINT_CHECK')) return 'check';
          if (code.startsWith('SQLITE_CONSTRAINT_UNIQUE')) return 'unique';
          throw error;
        }
      },
      async close() {
        db.close();
      },
    };
  }
  const { TICKETRUSH_DATABASE_URL: url, TICKETRUSH_DATABASE_SCHEMA: schema } = h.database.env;
  const client = new pg.Client({ connectionString: url, options: `-c search_path=${schema ?? 'public'}` });
  await client.connect();
  return {
    async run(sql) {
      try {
        await client.query(pick(sql));
        return 'ok';
      } catch (error) {
        const code = (error as { code?: string }).code;
        if (code === '23514') return 'check';
        if (code === '23505') return 'unique';
        throw error;
      }
    },
    async close() {
      await client.end();
    },
  };
}
