import type { Store } from '../../ports/engine/index.js';
import { pgAudit } from './audit.js';
import { createPgDb } from './db.js';
import { pgInventory } from './inventory.js';
import { migratePg } from './migrate.js';
import { pgOrders } from './orders.js';
import { pgPayments } from './payments.js';
import { createPgPool, type PgPoolOptions } from './pool.js';
import { pgMigrations } from './schema.js';
import { pgShows } from './shows.js';
import { pgTickets } from './tickets.js';
import { pgIdempotency, pgUsers } from './users.js';

export interface PgStoreOptions extends PgPoolOptions {
  /** Extra attempts after a serialization failure or deadlock. */
  readonly retriesMax: number;
}

/**
 * The PostgreSQL store: every named operation of the port as one short READ COMMITTED
 * transaction of conditional statements (each operation's comment says why that is enough when
 * transactions run side by side). Opening runs the migrations (advisory-locked, see migrate.ts).
 */
export async function openPgStore(options: PgStoreOptions): Promise<Store> {
  const pool = createPgPool(options);
  try {
    await migratePg(pool, options.schema, pgMigrations);
  } catch (error) {
    await pool.end();
    throw error;
  }
  const db = createPgDb(pool, { retriesMax: options.retriesMax, retryBaseDelayMs: 5 });
  let closed: Promise<void> | null = null;
  return {
    ...pgUsers(db),
    ...pgShows(db),
    ...pgInventory(db),
    ...pgOrders(db),
    ...pgPayments(db),
    ...pgTickets(db),
    ...pgIdempotency(db),
    ...pgAudit(db),
    async ping() {
      await pool.query('SELECT 1');
    },
    close() {
      closed ??= pool.end();
      return closed;
    },
  };
}
