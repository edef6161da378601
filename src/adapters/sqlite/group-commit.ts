import Database, { type Database as Db } from 'better-sqlite3';
import { StoreBusyError } from '../../ports/engine/index.js';

/**
 * Thrown by a unit to end it with a typed outcome (a refusal, a stale plan) after undoing its own
 * writes: the unit's savepoint is rolled back and the caller receives `outcome`.
 */
export class Rollback<T> {
  constructor(readonly outcome: T) {}
}

interface Unit {
  readonly operation: string;
  readonly work: () => unknown;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

type Outcome = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: unknown };

export interface GroupCommit {
  /** Runs `work` as one unit of the next batch; settles only after the batch's COMMIT. */
  write<T>(operation: string, work: () => T): Promise<T>;
  /** Resolves once every unit submitted so far is committed (or failed). */
  flush(): Promise<void>;
}

/** How long one batch's units may run before it commits and yields (the event loop's budget). */
const batchBudgetMsDefault = 8;

/**
 * Group commit over one connection. Each named operation is one synchronous unit inside its own
 * savepoint; the units that arrived in the same turn of the event loop share one BEGIN
 * IMMEDIATE ... COMMIT (up to batchMax units or batchBudgetMs of their work; the rest go in the
 * next turn), so in a rush a commit per batch replaces a commit per request (the
 * dominant cost). A batch runs start to end without yielding, so no other code on this thread ever
 * sees a half-done batch (reads may run directly on the connection), and nobody hears of a result
 * before its COMMIT succeeded: an acknowledged hold or order is on disk. A unit that throws or
 * ends in a Rollback undoes only its own savepoint.
 */
export function groupCommit(db: Db, batchMax: number, pendingMax: number, batchBudgetMs = batchBudgetMsDefault): GroupCommit {
  const sql = {
    begin: db.prepare('BEGIN IMMEDIATE'),
    commit: db.prepare('COMMIT'),
    rollback: db.prepare('ROLLBACK'),
    savepoint: db.prepare('SAVEPOINT unit'),
    release: db.prepare('RELEASE unit'),
    rollbackUnit: db.prepare('ROLLBACK TO unit'),
  };
  const pending: Unit[] = [];
  let draining: Promise<void> | null = null;

  /** Runs units from the head of `pending` in one transaction. */
  function runBatch(): void {
    const batch: Unit[] = [];
    const outcomes: Outcome[] = [];
    try {
      sql.begin.run();
    } catch (error) {
      pending.splice(0, batchMax).forEach((unit) => unit.reject(asBusy(unit.operation, error)));
      return;
    }
    // The batch closes at batchMax units or once its units have run for batchBudgetMs (at least
    // one unit always runs), so one turn of the event loop never holds the thread much longer
    // than that, however long the queue (a herd, a big show's seat chunks).
    const closesAt = performance.now() + batchBudgetMs;
    while (batch.length < batchMax && batch.length < pending.length && (batch.length === 0 || performance.now() < closesAt)) {
      const unit = pending[batch.length] as Unit;
      batch.push(unit);
      if (!db.inTransaction) sql.begin.run();
      sql.savepoint.run();
      try {
        const value = unit.work();
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
        outcomes.push(error instanceof Rollback ? { ok: true, value: error.outcome } : { ok: false, error: asBusy(unit.operation, error) });
      }
    }
    // Taken off the queue in one step (not one shift per unit: a herd's queue is thousands long).
    pending.splice(0, batch.length);
    try {
      if (db.inTransaction) sql.commit.run();
    } catch (error) {
      if (db.inTransaction) sql.rollback.run();
      batch.forEach((unit) => unit.reject(asBusy(unit.operation, error)));
      return;
    }
    batch.forEach((unit, i) => {
      const outcome = outcomes[i] as Outcome;
      if (outcome.ok) unit.resolve(outcome.value);
      else unit.reject(outcome.error);
    });
  }

  /**
   * One batch per turn of the event loop: between batches the answers of the last one go out and
   * other requests are read (they join a later batch), instead of one turn draining a whole herd.
   */
  function drainOne(done: () => void): void {
    runBatch();
    if (pending.length === 0) return done();
    setImmediate(drainOne, done);
  }

  return {
    write<T>(operation: string, work: () => T): Promise<T> {
      // A queue this long means minutes of waiting: refuse at once (503 BUSY, Retry-After) rather
      // than let every later request wait behind it.
      if (pending.length >= pendingMax) return Promise.reject(new StoreBusyError(operation, `${pending.length} operations are waiting for the store`));
      return new Promise<T>((resolve, reject) => {
        pending.push({ operation, work, resolve: resolve as (value: unknown) => void, reject });
        // setImmediate runs after this turn's I/O callbacks: every request parsed in the same
        // turn joins the batch.
        draining ??= new Promise<void>((drained) => setImmediate(drainOne, () => {
          draining = null;
          drained();
        }));
      });
    },
    async flush() {
      while (draining !== null) await draining;
    },
  };
}

/** Another connection holding the write lock past busy_timeout is "busy", not a bug. */
function asBusy(operation: string, error: unknown): unknown {
  if (error instanceof Database.SqliteError && (error.code === 'SQLITE_BUSY' || error.code === 'SQLITE_LOCKED')) {
    return new StoreBusyError(operation, `the database is busy (${error.code})`);
  }
  return error;
}
