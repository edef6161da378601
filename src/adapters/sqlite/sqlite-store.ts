import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { StoreConflictError, type BookingStore, type StoreReader, type StoreTx } from '../../ports/store.js';
import { migrate } from './migrations.js';
import { createSqliteRepositories } from './sqlite-repositories.js';

export interface SqliteStoreOptions {
  /** A file path, or ':memory:' for tests. */
  readonly filename: string;
}

/**
 * The embedded store: one better-sqlite3 connection in WAL mode. Units of work are serialised by
 * an in-process queue, so a transaction never sees another's uncommitted writes even though they
 * share the connection. synchronous=NORMAL in WAL survives a process crash (SIGKILL), which is
 * the failure this mode must ride out; an OS crash may lose the last commits.
 */
export function openSqliteStore(options: SqliteStoreOptions): BookingStore {
  if (options.filename !== ':memory:') mkdirSync(dirname(options.filename), { recursive: true });
  const db = new Database(options.filename);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  migrate(db);
  const repositories = createSqliteRepositories(db);
  let queue: Promise<unknown> = Promise.resolve();

  const serialised = <T>(work: () => Promise<T>): Promise<T> => {
    const run = queue.then(work, work);
    queue = run.catch(() => undefined);
    return run;
  };

  return {
    transaction<T>(work: (tx: StoreTx) => Promise<T>): Promise<T> {
      return serialised(async () => {
        db.exec('BEGIN IMMEDIATE');
        try {
          const result = await work(repositories);
          db.exec('COMMIT');
          return result;
        } catch (error) {
          if (db.inTransaction) db.exec('ROLLBACK');
          throw asConflict(error);
        }
      });
    },
    read<T>(work: (tx: StoreReader) => Promise<T>): Promise<T> {
      return serialised(() => work(repositories));
    },
    async ping() {
      db.prepare('SELECT 1').get();
    },
    async close() {
      await serialised(async () => db.close());
    },
  };
}

/** A uniqueness or check constraint refusing a write is a conflict, the schema's last line of defence. */
function asConflict(error: unknown): unknown {
  if (error instanceof Database.SqliteError && error.code.startsWith('SQLITE_CONSTRAINT')) {
    return new StoreConflictError('constraint', error.code, error.message);
  }
  return error;
}
