import { randomIds } from './adapters/runtime/random-ids.js';
import { systemClock } from './adapters/runtime/system-clock.js';
import { openPgStore } from './adapters/postgres/pg-store.js';
import { openSqliteStore } from './adapters/sqlite/sqlite-store.js';
import { openSqliteStoreThread } from './adapters/sqlite/store-thread.js';
import type { Config } from './config.js';
import type { Store } from './ports/engine/index.js';
import type { Clock, IdSource } from './ports/runtime.js';

/*
 * The composition root's store half (compose.ts re-exports it): what the data commands
 * (`ticketrush import` / `export`) need, without the HTTP server's modules, so a tool process stays
 * small (compose.ts loads Fastify and its plugins: some 60 MB of a process's memory).
 */

/** The clock and ids of a tool that runs use cases beside the server. */
export const toolRuntime: { readonly clock: Clock; readonly ids: IdSource } = { clock: systemClock, ids: randomIds };

/**
 * Opens the booking store the configuration selects: PostgreSQL when TICKETRUSH_DATABASE_URL is
 * set (its schema migrated, under an advisory lock), else SQLite in the data directory. Takes no
 * data-dir lock: composeNode does that; tools and the test auditor open a store beside a server.
 */
export async function openConfiguredStore(
  config: Pick<Config, 'database'>,
  options: { readonly warm?: boolean; readonly origin?: string; readonly sqliteCacheKiB?: number } = {},
): Promise<Store> {
  const database = config.database;
  if (database.kind === 'sqlite') {
    const sqlite = {
      filename: database.filename,
      ...(options.sqliteCacheKiB === undefined ? {} : { cacheKiB: options.sqliteCacheKiB }),
      ...(options.origin === undefined ? {} : { origin: options.origin }),
    };
    return database.ownThread ? openSqliteStoreThread(sqlite) : openSqliteStore(sqlite);
  }
  return openPgStore({
    url: database.url,
    schema: database.schema,
    poolMax: database.poolMax,
    checkoutPoolMax: database.checkoutPoolMax,
    connectTimeoutMs: database.connectTimeoutMs,
    idleTimeoutMs: database.idleTimeoutMs,
    lockTimeoutMs: database.lockTimeoutMs,
    statementTimeoutMs: database.statementTimeoutMs,
    retriesMax: database.retriesMax,
    // A server about to listen opens its pools now; tools and tests leave them to open on demand.
    ...(options.warm === true ? { warm: true } : {}),
    ...(options.origin === undefined ? {} : { origin: options.origin }),
  });
}

