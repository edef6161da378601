import pg from 'pg';

/**
 * node-postgres (`pg`) is the driver: the most used and best kept PostgreSQL client for Node, with
 * a bounded pool, parameterised queries and typed errors (SQLSTATE in `error.code`). postgres.js
 * would pipeline, but every operation here is one short transaction on one connection, where
 * pipelining buys little; we have no measured reason to prefer it.
 */
export interface PgPoolOptions {
  readonly url: string;
  /** Schema the tables live in (search_path of every connection); a plain identifier. */
  readonly schema: string;
  /** Most connections the pool opens. */
  readonly poolMax: number;
  /**
   * Connections kept open however long they sit idle (pg-pool `min`); 0 by default. A server that
   * opened its pool before listening (warm.ts) keeps it, so an onsale an hour after a deploy does
   * not open its connections inside the herd.
   */
  readonly poolMin?: number;
  /** Longest wait for a free connection before the operation answers BUSY. */
  readonly connectTimeoutMs: number;
  /** Idle connections are closed after this long. */
  readonly idleTimeoutMs: number;
  /** Longest wait for a row lock (lock_timeout): a contended operation answers fast instead of queueing. */
  readonly lockTimeoutMs: number;
  /** Longest any one statement may run (statement_timeout). */
  readonly statementTimeoutMs: number;
}

/** A schema name must be a plain identifier: it goes into a startup option and DDL unquoted. */
export const schemaNamePattern = /^[a-z_][a-z0-9_]{0,62}$/;

/** bigint (int8) holds epoch milliseconds and counters, all far below 2^53: read them as numbers. */
const int8Oid = 20;
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === int8Oid && format !== 'binary') return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format ?? 'text');
  },
} as pg.CustomTypesConfig;

export function createPgPool(options: PgPoolOptions): pg.Pool {
  if (!schemaNamePattern.test(options.schema)) throw new Error(`invalid schema name "${options.schema}"`);
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolMax,
    min: Math.min(options.poolMin ?? 0, options.poolMax),
    connectionTimeoutMillis: options.connectTimeoutMs,
    idleTimeoutMillis: options.idleTimeoutMs,
    types,
    // Set at connection start-up, so no extra round trip per checkout: every statement of every
    // connection sees our schema and bounded waits. The timeouts make a contended row answer
    // 55P03 (lock_not_available) after lockTimeoutMs instead of queueing behind a herd.
    options: [
      `-c search_path=${options.schema}`,
      `-c lock_timeout=${options.lockTimeoutMs}`,
      `-c statement_timeout=${options.statementTimeoutMs}`,
      // A transaction left open by a crashed handler must not keep its row locks for ever.
      `-c idle_in_transaction_session_timeout=${Math.max(options.statementTimeoutMs * 2, 10_000)}`,
      // Prepared statements keep one plan. In the default mode PostgreSQL kept re-planning the hot
      // claim statements for their array parameters (0.75 ms of planning against 0.3 ms of
      // execution); one plan cut a sequential best-available claim from 1.10 to 0.96 ms and the
      // herd's p99 from 520-550 to 380-430 ms. Every statement here is an indexed OLTP lookup,
      // and createShow refreshes the statistics, so a generic plan is the plan a custom one was.
      '-c plan_cache_mode=force_generic_plan',
    ].join(' '),
    application_name: 'ticketrush',
  });
  // An idle client losing its connection (server restart) is reported here; without a listener
  // node-postgres would crash the process. The next checkout opens a fresh connection.
  pool.on('error', () => undefined);
  return pool;
}
