import type pg from 'pg';
import { StoreBusyError } from '../../ports/engine/index.js';
import { inStatement, inTransaction, readOnce, type TxPolicy, type TxResult } from './transaction.js';

/** A storage guard's refusal, reported after the rollback (the constraint's name says which). */
export interface Refusal {
  readonly kind: 'unique' | 'check';
  readonly constraint: string;
}

type Settled<T> = { readonly ok: true; readonly value: T } | ({ readonly ok: false } & Refusal);

/**
 * What every area of the PostgreSQL store uses to reach the database: there is no other way in
 * (no raw pool), so every statement gets the same busy handling (transaction.ts busyReason):
 * busy becomes StoreBusyError, which the edge answers 503 BUSY with Retry-After.
 */
export interface PgDb {
  /** The lane's name, for messages. */
  readonly lane: LaneName;
  /**
   * One short READ COMMITTED transaction (see transaction.ts). A unique or check refusal is
   * returned for the operation to turn into its typed outcome.
   */
  tx<T>(operation: string, work: (client: pg.PoolClient) => Promise<T>): Promise<Settled<T>>;
  /** One statement, atomic on its own (autocommit): the hot paths' single-statement check-and-take. Same outcomes as tx. */
  statement<T>(operation: string, work: (client: pg.PoolClient) => Promise<T>): Promise<Settled<T>>;
  /** A read: one statement sees one committed snapshot. */
  read<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T>;
  /** One statement on its own (a read, or a write that needs no transaction). */
  query<R extends pg.QueryResultRow>(sql: string, params?: readonly unknown[]): Promise<pg.QueryResult<R>>;
}

/**
 * Two lanes, each its own bounded pool, so that work which turns a hold into money never queues
 * behind a rush of new holds:
 * - rush: claims of seats and places, the catalog and seat-map reads, accounts;
 * - checkout: orders, payments and their callbacks, ticketing, check-in, expiry and releases,
 *   extensions, the auditor.
 * A rush fills the rush lane and its overflow answers 503 BUSY fast (connect timeout); a buyer
 * holding seats still finds a checkout connection.
 */
export type LaneName = 'rush' | 'checkout';
export interface PgLanes {
  readonly rush: PgDb;
  readonly checkout: PgDb;
}

export function createPgLanes(pools: Readonly<Record<LaneName, pg.Pool>>, policy: TxPolicy): PgLanes {
  return { rush: createPgDb('rush', pools.rush, policy), checkout: createPgDb('checkout', pools.checkout, policy) };
}

export function createPgDb(lane: LaneName, pool: pg.Pool, policy: TxPolicy): PgDb {
  return {
    lane,
    tx: async (operation, work) => settle(lane, operation, await inTransaction(pool, work, policy)),
    statement: async (operation, work) => settle(lane, operation, await inStatement(pool, work, policy)),
    read: async (work) => done(lane, 'read', await readOnce(pool, work)),
    query: async <R extends pg.QueryResultRow>(sql: string, params: readonly unknown[] = []) =>
      done(lane, 'query', await readOnce(pool, (c) => c.query<R>(sql, params as unknown[]))),
  };
}

function done<T>(lane: LaneName, operation: string, result: TxResult<T>): T {
  const settled = settle(lane, operation, result);
  if (settled.ok) return settled.value;
  throw new Error(`${operation}: unexpected ${settled.kind} violation of ${settled.constraint}`);
}

function settle<T>(lane: LaneName, operation: string, result: TxResult<T>): Settled<T> {
  if (result.kind === 'done') return { ok: true, value: result.value };
  if (result.kind === 'busy') throw new StoreBusyError(operation, `${operation}: PostgreSQL busy (${result.reason}, ${lane} lane)`);
  return { ok: false, kind: result.kind, constraint: result.constraint };
}

/** A refusal no operation expected is a defect in the adapter: report it as one. */
export function unexpected(operation: string, refusal: Refusal): never {
  throw new Error(`${operation}: unexpected ${refusal.kind} violation of ${refusal.constraint}`);
}
