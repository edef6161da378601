import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { StoreConflictError, type BookingStore, type StoreReader, type StoreTx } from '../../ports/store.js';
import { migrate } from './migrations.js';
import { createSqliteRepositories } from './sqlite-repositories.js';

export interface SqliteStoreOptions {
  /** A file path, or ':memory:' for tests. */
  readonly filename: string;
  /** Most units of work that share one commit. */
  readonly batchMax?: number;
}

interface Unit {
  readonly work: (tx: StoreTx) => Promise<unknown>;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

type Outcome = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: unknown };

/**
 * The embedded store: one better-sqlite3 connection in WAL mode. synchronous=NORMAL in WAL
 * survives a process crash (SIGKILL), the failure this mode must ride out; an OS crash may lose
 * the last commits.
 *
 * Group commit: units of work run one after another (none sees another's uncommitted writes
 * half-done), each inside its own savepoint, and every unit that arrived in the same turn of the
 * event loop shares one COMMIT. Nobody hears of a result before that COMMIT succeeded, so an
 * acknowledged hold or order is on disk; one unit failing rolls back only its own savepoint.
 * In a rush this turns a commit per request into a commit per batch, the dominant cost.
 */
export function openSqliteStore(options: SqliteStoreOptions): BookingStore {
  if (options.filename !== ':memory:') mkdirSync(dirname(options.filename), { recursive: true });
  const db = new Database(options.filename);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  // A rush touches seats all over a large show plus the growing hold tables: keep them in memory
  // (64 MiB, against a 2 MiB default) rather than re-read pages through the WAL index and the OS.
  db.pragma('cache_size = -65536');
  // Checkpoint every ~40 MiB of WAL instead of every ~4 MiB: a page rewritten by many commits is
  // copied into the database file once per checkpoint, and the checkpoint's fsyncs happen a tenth
  // as often. Commits themselves are unchanged (WAL, synchronous=NORMAL).
  db.pragma('wal_autocheckpoint = 10000');
  db.pragma('temp_store = MEMORY');
  migrate(db);
  const repositories = createSqliteRepositories(db);
  const sql = {
    begin: db.prepare('BEGIN IMMEDIATE'),
    commit: db.prepare('COMMIT'),
    rollback: db.prepare('ROLLBACK'),
    savepoint: db.prepare('SAVEPOINT unit'),
    release: db.prepare('RELEASE unit'),
    rollbackUnit: db.prepare('ROLLBACK TO unit'),
  };
  const batchMax = options.batchMax ?? 256;
  const pending: Unit[] = [];
  let draining: Promise<void> | null = null;

  async function runBatch(batch: readonly Unit[]): Promise<void> {
    const outcomes: Outcome[] = [];
    sql.begin.run();
    for (const unit of batch) {
      if (!db.inTransaction) sql.begin.run();
      sql.savepoint.run();
      try {
        const value = await unit.work(repositories);
        sql.release.run();
        outcomes.push({ ok: true, value });
      } catch (error) {
        if (db.inTransaction) {
          sql.rollbackUnit.run();
          sql.release.run();
        } else {
          // SQLite gave up the whole transaction (disk full, I/O error): the units before this one
          // in the batch were lost with it, so they fail too; nobody has been told otherwise.
          for (let i = 0; i < outcomes.length; i++) outcomes[i] = { ok: false, error };
        }
        outcomes.push({ ok: false, error: asConflict(error) });
      }
    }
    try {
      if (db.inTransaction) sql.commit.run();
    } catch (error) {
      if (db.inTransaction) sql.rollback.run();
      batch.forEach((unit) => unit.reject(error));
      return;
    }
    batch.forEach((unit, i) => {
      const outcome = outcomes[i] as Outcome;
      if (outcome.ok) unit.resolve(outcome.value);
      else unit.reject(outcome.error);
    });
  }

  async function drain(): Promise<void> {
    try {
      while (pending.length > 0) await runBatch(pending.splice(0, batchMax));
    } finally {
      draining = null;
    }
  }

  function submit<T>(work: (tx: StoreTx) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      pending.push({ work, resolve: resolve as (value: unknown) => void, reject });
      // setImmediate runs after this turn's I/O callbacks: every request parsed in the same
      // turn joins the batch.
      draining ??= new Promise<void>((started) => setImmediate(() => started(drain())));
    });
  }

  return {
    transaction: <T>(work: (tx: StoreTx) => Promise<T>): Promise<T> => submit(work),
    read: <T>(work: (tx: StoreReader) => Promise<T>): Promise<T> => submit(work),
    async ping() {
      db.prepare('SELECT 1').get();
    },
    async close() {
      await submit(async () => undefined);
      await draining;
      db.close();
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
