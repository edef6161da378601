import type pg from 'pg';
import { StoreBusyError } from '../../ports/engine/index.js';
import { inStatement, inTransaction, readOnce, type TxPolicy, type TxResult } from './transaction.js';

/** A storage guard's refusal, reported after the rollback (the constraint's name says which). */
export interface Refusal {
  readonly kind: 'unique' | 'check';
  readonly constraint: string;
}

/** What every area of the PostgreSQL store uses to reach the database. */
export interface PgDb {
  readonly pool: pg.Pool;
  /**
   * One short READ COMMITTED transaction (see transaction.ts). BUSY becomes StoreBusyError (the
   * edge answers 503 with Retry-After); a unique or check refusal is returned for the operation to
   * turn into its typed outcome.
   */
  tx<T>(operation: string, work: (client: pg.PoolClient) => Promise<T>): Promise<{ readonly ok: true; readonly value: T } | ({ readonly ok: false } & Refusal)>;
  /** One statement, atomic on its own (autocommit): the hot paths' single-statement check-and-take. Same outcomes as tx. */
  statement<T>(operation: string, work: (client: pg.PoolClient) => Promise<T>): Promise<{ readonly ok: true; readonly value: T } | ({ readonly ok: false } & Refusal)>;
  /** A read: one statement sees one committed snapshot. */
  read<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T>;
}

export function createPgDb(pool: pg.Pool, policy: TxPolicy): PgDb {
  return {
    pool,
    tx: async (operation, work) => settle(operation, await inTransaction(pool, work, policy)),
    statement: async (operation, work) => settle(operation, await inStatement(pool, work, policy)),
    async read(work) {
      try {
        return await readOnce(pool, work);
      } catch (error) {
        const code = (error as { code?: string }).code;
        if (code === '55P03' || code === '57014' || (error instanceof Error && /timeout exceeded when trying to connect/i.test(error.message))) {
          throw new StoreBusyError('read', `read: PostgreSQL busy (${code ?? 'pool_timeout'})`);
        }
        throw error;
      }
    },
  };
}

function settle<T>(operation: string, result: TxResult<T>): { readonly ok: true; readonly value: T } | ({ readonly ok: false } & Refusal) {
  if (result.kind === 'done') return { ok: true, value: result.value };
  if (result.kind === 'busy') throw new StoreBusyError(operation, `${operation}: PostgreSQL busy (${result.reason})`);
  return { ok: false, kind: result.kind, constraint: result.constraint };
}

/** A refusal no operation expected is a defect in the adapter: report it as one. */
export function unexpected(operation: string, refusal: Refusal): never {
  throw new Error(`${operation}: unexpected ${refusal.kind} violation of ${refusal.constraint}`);
}
