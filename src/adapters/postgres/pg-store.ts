import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { Store } from '../../ports/engine/index.js';
import { pgAudit } from './audit.js';
import { pgCodePools } from './code-pools.js';
import { pgDiscounts } from './discounts.js';
import { pgExports } from './exports.js';
import { createPgLanes, type PgLanes } from './db.js';
import { pgFlashSales } from './flash-sales.js';
import { pgBargains } from './bargains.js';
import { pgInventory } from './inventory.js';
import { migratePg } from './migrate.js';
import { pgOrders } from './orders.js';
import { pgOutbox } from './outbox.js';
import { pgPayments } from './payments.js';
import { createPgPool, type PgPoolOptions } from './pool.js';
import { pgMigrations } from './schema.js';
import { pgSettings } from './settings.js';
import { pgBlocklist } from './blocklist.js';
import { pgWaitingRooms } from './waiting-rooms.js';
import { pgShows } from './shows.js';
import { pgRefunds } from './refunds.js';
import { pgExchanges } from './exchanges.js';
import { pgShowCancellations } from './show-cancellations.js';
import { pgSweeps } from './sweeps.js';
import { pgWaitlist } from './waitlist.js';
import { pgTickets } from './tickets.js';
import { warmPool } from './warm.js';
import { pgIdempotency, pgUsers } from './users.js';
import { pgWebhooks } from './webhooks.js';
import { pgNotifications } from './notifications.js';
import { pgChangeLog } from './change-log.js';

export interface PgStoreOptions extends PgPoolOptions {
  /** Extra attempts after a serialization failure or deadlock. */
  readonly retriesMax: number;
  /** Connections of the checkout lane's own pool (db.ts); `poolMax` is the rush lane's. */
  readonly checkoutPoolMax: number;
  /**
   * A server about to listen: open every connection of both pools now, keep them open (poolMin),
   * and prepare the claims' statements on each (warm.ts). Tests and tools that open a store
   * leave it off, so they hold no more connections than they use.
   */
  readonly warm?: boolean;
  /** This process's name on the outbox rows it writes (a random one when absent). */
  readonly origin?: string;
}

/** The PostgreSQL store, with its two pools in view (the busy-route tests hold their connections). */
export interface PgStore extends Store {
  readonly pools: Readonly<Record<keyof PgLanes, pg.Pool>>;
  /** For the adapters that keep their own tables in the shared database (the sandbox ledger). */
  readonly lanes: PgLanes;
}

/**
 * The PostgreSQL store: every named operation of the port as one short READ COMMITTED
 * transaction of conditional statements (each operation's comment says why that is enough when
 * transactions run side by side). Opening runs the migrations (advisory-locked, see migrate.ts).
 */
export async function openPgStore(options: PgStoreOptions): Promise<PgStore> {
  const poolMin = (max: number): number => (options.warm === true ? max : 0);
  const pools = {
    rush: createPgPool({ ...options, poolMin: poolMin(options.poolMax) }),
    checkout: createPgPool({ ...options, poolMax: options.checkoutPoolMax, poolMin: poolMin(options.checkoutPoolMax) }),
  };
  const end = () => Promise.all([pools.rush.end(), pools.checkout.end()]).then(() => undefined);
  try {
    await migratePg(pools.checkout, options.schema, pgMigrations);
    // Best effort too: a database that cannot give every connection now (max_connections) still serves, as it would have.
    if (options.warm === true) await Promise.all([warmPool(pools.rush, options.poolMax, true), warmPool(pools.checkout, options.checkoutPoolMax, false)]).catch(() => undefined);
  } catch (error) {
    await end();
    throw error;
  }
  const lanes = createPgLanes(pools, { retriesMax: options.retriesMax, retryBaseDelayMs: 5 });
  const origin = options.origin ?? `pg-${randomUUID()}`;
  let closed: Promise<void> | null = null;
  const shows = pgShows(lanes.rush, origin);
  return {
    ...pgUsers(lanes.rush),
    ...shows,
    ...pgInventory(lanes, origin),
    ...pgOrders(lanes.checkout, origin),
    ...pgPayments(lanes.checkout, origin),
    ...pgTickets(lanes.checkout, origin),
    ...pgIdempotency(lanes.checkout),
    ...pgAudit(lanes.checkout),
    // Grabs are a rush like claims; exports are long reads, kept off the rush lane.
    ...pgCodePools(lanes.rush, origin),
    ...pgDiscounts(lanes.checkout),
    ...pgExports(lanes.checkout),
    ...pgWebhooks(lanes.checkout),
    ...pgNotifications(lanes.checkout),
    ...pgChangeLog(lanes.checkout),
    ...pgSettings(lanes.checkout),
    ...pgBlocklist(lanes.checkout),
    ...pgFlashSales(lanes, shows, origin),
    ...pgBargains(lanes, shows, origin),
    ...pgOutbox(lanes.checkout),
    ...pgSweeps(lanes.checkout),
    ...pgWaitlist(lanes, origin),
    ...pgRefunds(lanes.checkout, origin),
    ...pgExchanges(lanes.checkout, origin),
    ...pgShowCancellations(lanes.checkout, origin),
    ...pgWaitingRooms(lanes, origin),
    pools,
    lanes,
    async ping() {
      await lanes.checkout.query('SELECT 1');
    },
    close() {
      closed ??= end();
      return closed;
    },
  };
}
