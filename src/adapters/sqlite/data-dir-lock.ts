import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

/** Another process (or another node in this one) already serves the data directory. */
export class DataDirLockedError extends Error {
  constructor(readonly dataDir: string, readonly lockFile: string) {
    super(`the data directory ${dataDir} is in use by another TicketRush server (it holds the lock on ${lockFile}); stop that server first, or give this one its own TICKETRUSH_DATA_DIR`);
    this.name = 'DataDirLockedError';
    // The message says everything; a stack would only bury it on the console.
    this.stack = `${this.name}: ${this.message}`;
  }
}

export interface DataDirLock {
  release(): void;
}

/**
 * An exclusive lock on the data directory, held for the life of the node: a separate SQLite file
 * in which one exclusive transaction is begun and never ended. SQLite's file locks are the
 * operating system's, so a process that dies (even by SIGKILL) gives the lock up at once, which a
 * pid file cannot promise. The store's own database is not locked this way, so backups and read-only
 * auditors can still open it while the server runs. busy_timeout 0: a second opener fails at once.
 */
export function lockDataDir(dataDir: string): DataDirLock {
  mkdirSync(dataDir, { recursive: true });
  const lockFile = join(dataDir, 'ticketrush.lock');
  const db = new Database(lockFile, { timeout: 0 });
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    db.close();
    if (error instanceof Database.SqliteError && error.code.startsWith('SQLITE_BUSY')) throw new DataDirLockedError(dataDir, lockFile);
    throw error;
  }
  let held = true;
  return {
    release() {
      if (!held) return;
      held = false;
      db.exec('ROLLBACK');
      db.close();
    },
  };
}
