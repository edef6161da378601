import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { AuditUnavailableError, type AuditReader } from '../../ports/engine/index.js';
import { openSqliteLedgerReader } from '../payments/sqlite-ledger-reader.js';
import { sqliteAuditShowIds, sqliteLinesOf, sqliteShowAuditPaged } from './audit.js';

/**
 * The auditor's view of an embedded store, beside a live server or not: the file opened
 * READ-ONLY (WAL lets a reader in beside the server's writer), never migrated, never taking the
 * data directory's lock. Each show is read in one read transaction, so its lists are of one moment,
 * in pages with the event loop given a turn between them (the server's audit job reads through it
 * too: on its own connection, off the store thread that decides the sales).
 */
export function openSqliteAuditReader(filename: string): AuditReader {
  if (!existsSync(filename)) throw new AuditUnavailableError(`no SQLite store at ${filename} (check TICKETRUSH_DATA_DIR; the server creates it at its first start)`);
  let db: Database.Database;
  try {
    db = new Database(filename, { readonly: true, fileMustExist: true });
    db.pragma('busy_timeout = 5000');
    if (db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'shows'").get() === undefined) {
      db.close();
      throw new AuditUnavailableError(`the SQLite store at ${filename} is empty (no TicketRush tables: not a TicketRush data directory, or never started)`);
    }
  } catch (error) {
    if (error instanceof AuditUnavailableError) throw error;
    throw new AuditUnavailableError(`cannot open the SQLite store at ${filename}: ${(error as Error).message}`);
  }
  const readShow = sqliteShowAuditPaged(db, sqliteLinesOf(db));
  const showIds = sqliteAuditShowIds(db);
  const ledger = openSqliteLedgerReader(join(dirname(filename), 'sandbox-provider.db'));
  return {
    audit: readShow,
    auditShowIds: async (after, limit) => showIds(after, limit),
    ledger,
    async close() {
      ledger?.close();
      db.close();
    },
  };
}
