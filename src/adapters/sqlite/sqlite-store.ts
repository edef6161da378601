import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { Store } from '../../ports/engine/index.js';
import { sqliteAudit } from './audit.js';
import { startCheckpointer, type Checkpointer } from './checkpointer.js';
import { seatChooser } from './choose-seats.js';
import { sqliteCodePools } from './code-pools.js';
import { sqliteDiscounts } from './discounts.js';
import { sqliteExports } from './exports.js';
import { groupCommit } from './group-commit.js';
import { sqliteFlashSales } from './flash-sales.js';
import { sqliteWaitlist, sqliteWaitlistOffer } from './waitlist.js';
import { sqliteBargains } from './bargains.js';
import { sqliteIdempotency } from './idempotency.js';
import { sqliteInventory } from './inventory.js';
import { migrate } from './migrations.js';
import { sqliteOrders } from './orders.js';
import { sqliteOutbox, sqliteOutboxWriter } from './outbox.js';
import { sqlitePayments } from './payments.js';
import { sqliteRefunds } from './refunds.js';
import { sqliteExchanges } from './exchanges.js';
import { sqliteShowCancellations } from './show-cancellations.js';
import { sqliteSettings } from './settings.js';
import { sqliteBlocklist } from './blocklist.js';
import { sqliteWaitingRooms } from './waiting-rooms.js';
import { sqliteShared } from './shared.js';
import { removeUnpublishedShows, showCache, sqliteShows } from './shows.js';
import { sqliteSweeps } from './sweeps.js';
import { sqliteTickets } from './tickets.js';
import { sqliteUsers } from './users.js';
import { sqliteWebhooks } from './webhooks.js';
import { sqliteNotifications } from './notifications.js';
import { sqliteChangeLog } from './change-log.js';

export interface SqliteStoreOptions {
  /** A file path, or ':memory:' for tests. */
  readonly filename: string;
  /** Most operations that share one commit. */
  readonly batchMax?: number;
  /** Most operations waiting for their batch; more are refused at once as busy (StoreBusyError). */
  readonly pendingMax?: number;
  /** SQLite's page cache, KiB (default 64 MiB for a server); a one-off tool (an export) needs little. */
  readonly cacheKiB?: number;
  /** How often the checkpoint thread copies the WAL into the database file. */
  readonly checkpointIntervalMs?: number;
  /** This process's name on the outbox rows it writes (a random one when absent). */
  readonly origin?: string;
}

/** Defaults: a batch of 256 units commits in a few milliseconds; 10,000 waiting is seconds of work. */
const batchMaxDefault = 256;
const pendingMaxDefault = 10_000;
/** Twice a second: a rush writes a few MiB of WAL a second, so the WAL stays a few MiB. */
const checkpointIntervalMsDefault = 500;
/** The WAL file is cut back to this size when it starts over (journal_size_limit). */
const walSizeLimitBytes = 64 * 1024 * 1024;

/**
 * The embedded store: one better-sqlite3 connection in WAL mode, every named operation of the
 * port one unit of a group commit (see group-commit.ts). synchronous=NORMAL in WAL survives a
 * process crash (SIGKILL), the failure this mode must ride out; an OS crash may lose the last
 * commits. Reads run directly on the connection: a batch never yields half-done, so a read sees
 * committed state only.
 */
export function openSqliteStore(options: SqliteStoreOptions): Store {
  if (options.filename !== ':memory:') mkdirSync(dirname(options.filename), { recursive: true });
  const db = new Database(options.filename);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  // A rush touches seats all over a large show plus the growing hold tables: keep them in memory
  // (64 MiB, against a 2 MiB default) rather than re-read pages through the WAL index and the OS.
  db.pragma(`cache_size = -${Math.max(1024, Math.floor(options.cacheKiB ?? 65_536))}`);
  db.pragma('temp_store = MEMORY');
  // Checkpoints run on a thread of their own (checkpointer.ts), never inside a commit on this one.
  // Should that thread fail, SQLite's own checkpoint comes back, every ~40 MiB of WAL rather than
  // ~4 MiB, so a page rewritten by many commits is copied once per checkpoint.
  const automaticCheckpoint = (): void => {
    if (db.open) db.pragma('wal_autocheckpoint = 10000');
  };
  let checkpointer: Checkpointer | null = null;
  if (options.filename === ':memory:') automaticCheckpoint();
  else {
    db.pragma('wal_autocheckpoint = 0');
    // After a complete checkpoint the WAL starts over; the file is cut back to this size then.
    db.pragma(`journal_size_limit = ${walSizeLimitBytes}`);
    checkpointer = startCheckpointer(options.filename, options.checkpointIntervalMs ?? checkpointIntervalMsDefault, automaticCheckpoint);
  }
  migrate(db);
  removeUnpublishedShows(db);
  const gc = groupCommit(db, options.batchMax ?? batchMaxDefault, options.pendingMax ?? pendingMaxDefault);
  const shows = showCache(db);
  const shared = sqliteShared(db, shows);
  const choose = seatChooser(db);
  const ob = sqliteOutboxWriter(db, options.origin ?? `sqlite-${randomUUID()}`);
  const showStore = sqliteShows(db, gc, ob);
  const offerWaitlist = sqliteWaitlistOffer(db, shows, ob);
  return {
    ...sqliteUsers(db, gc),
    ...showStore,
    ...sqliteInventory(db, gc, shows, shared, choose, ob, offerWaitlist),
    ...sqliteOrders(db, gc, shared, ob),
    ...sqlitePayments(db, gc, shared, ob),
    ...sqliteTickets(db, gc, shows, shared, choose, ob),
    ...sqliteIdempotency(db, gc),
    ...sqliteAudit(db, shared.linesOf),
    ...sqliteCodePools(db, gc, ob),
    ...sqliteDiscounts(db, gc),
    ...sqliteExports(db),
    ...sqliteWebhooks(db, gc),
    ...sqliteNotifications(db, gc),
    ...sqliteChangeLog(db),
    ...sqliteSettings(db, gc),
    ...sqliteBlocklist(db, gc),
    ...sqliteFlashSales(db, gc, shows, showStore, ob),
    ...sqliteBargains(db, gc, showStore, ob),
    ...sqliteOutbox(db, gc),
    ...sqliteSweeps(db, gc),
    ...sqliteWaitlist(db, gc, offerWaitlist),
    ...sqliteRefunds(db, gc, shows, shared, ob),
    ...sqliteExchanges(db, gc, shows, shared, ob),
    ...sqliteShowCancellations(db, gc, shared, ob),
    ...sqliteWaitingRooms(db, gc, ob),
    async ping() {
      db.prepare('SELECT 1').get();
    },
    async close() {
      await gc.flush();
      await checkpointer?.close();
      db.close();
    },
  };
}
