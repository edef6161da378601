import type pg from 'pg';

/** SQLSTATE codes the runner understands (https://www.postgresql.org/docs/15/errcodes-appendix.html). */
export const sqlState = {
  serializationFailure: '40001',
  deadlockDetected: '40P01',
  lockNotAvailable: '55P03',
  queryCanceled: '57014',
  uniqueViolation: '23505',
  checkViolation: '23514',
  foreignKeyViolation: '23503',
  tooManyConnections: '53300',
} as const;

/**
 * What a short transaction came to. BUSY: a lock was not granted within lock_timeout, a statement
 * hit statement_timeout, no pooled connection came free in time, or a serialization failure or
 * deadlock persisted through every retry. UNIQUE / CHECK: a storage guard refused the write (the
 * constraint's name says which), reported as data so that no raw driver error crosses the port.
 */
export type TxResult<T> =
  | { readonly kind: 'done'; readonly value: T }
  | { readonly kind: 'busy'; readonly reason: BusyReason }
  | { readonly kind: 'unique'; readonly constraint: string }
  | { readonly kind: 'check'; readonly constraint: string };

/** Thrown inside `work` to roll back and still answer `value` (a compare-and-set found a stale row). */
export class Rollback<T> {
  constructor(readonly value: T) {}
}

export interface TxPolicy {
  /** Extra attempts after a serialization failure (40001) or deadlock (40P01). */
  readonly retriesMax: number;
  /** Upper bound of the random pause before a retry, doubled per attempt. */
  readonly retryBaseDelayMs: number;
}

export const defaultTxPolicy: TxPolicy = { retriesMax: 3, retryBaseDelayMs: 5 };

interface PgError {
  readonly code?: string;
  readonly constraint?: string;
}

function pgError(error: unknown): PgError {
  return typeof error === 'object' && error !== null ? (error as PgError) : {};
}

export type BusyReason = 'lock_timeout' | 'statement_timeout' | 'pool_timeout' | 'connect_timeout' | 'too_many_connections' | 'retries_exhausted';

/**
 * THE one place that decides that PostgreSQL is too busy to answer now (the edge turns it into
 * 503 BUSY with Retry-After): no pooled connection came free in time (node-postgres reports it
 * with a message, no SQLSTATE: it never reached the server), a new connection was not accepted
 * in time or the server has no connection slot left, a lock was not granted within lock_timeout,
 * a statement hit statement_timeout. Anything else is not busy: a guard's refusal or a fault.
 */
export function busyReason(error: unknown): BusyReason | null {
  const { code } = pgError(error);
  if (code === sqlState.lockNotAvailable) return 'lock_timeout';
  if (code === sqlState.queryCanceled) return 'statement_timeout';
  if (code === sqlState.tooManyConnections) return 'too_many_connections';
  if (!(error instanceof Error)) return null;
  if (/timeout exceeded when trying to connect/i.test(error.message)) return 'pool_timeout';
  if (/connection terminated due to connection timeout/i.test(error.message)) return 'connect_timeout';
  return null;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

type Attempt<T> = TxResult<T> | { readonly kind: 'retry' };

/**
 * Runs `work` as one short READ COMMITTED transaction on one pooled connection. Each operation
 * states in a comment why READ COMMITTED plus its conditional updates and row locks is enough.
 * Serialization failures and deadlocks are retried a bounded number of times with a jittered
 * pause (the losing transaction was rolled back whole, so a retry starts clean); lock and
 * statement timeouts answer BUSY at once, since waiting longer is what they exist to prevent.
 * Any other error is a fault and is thrown.
 */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>, policy: TxPolicy = defaultTxPolicy): Promise<TxResult<T>> {
  return attempts(pool, work, policy, true);
}

/**
 * Runs `work` WITHOUT BEGIN/COMMIT: for one statement that is atomic on its own (autocommit), the
 * hot paths' single-statement check-and-take. Same retries and outcome mapping as inTransaction.
 */
export async function inStatement<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>, policy: TxPolicy = defaultTxPolicy): Promise<TxResult<T>> {
  return attempts(pool, work, policy, false);
}

async function attempts<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>, policy: TxPolicy, transactional: boolean): Promise<TxResult<T>> {
  for (let attempt = 0; ; attempt++) {
    let client: pg.PoolClient;
    try {
      client = await pool.connect();
    } catch (error) {
      const reason = busyReason(error);
      if (reason !== null) return { kind: 'busy', reason };
      throw error;
    }
    const state = { broken: false };
    let outcome: Attempt<T>;
    try {
      outcome = await attemptOnce(client, work, state, transactional);
    } finally {
      // A connection whose ROLLBACK failed is dropped, never handed to the next operation.
      client.release(state.broken);
    }
    if (outcome.kind !== 'retry') return outcome;
    if (attempt >= policy.retriesMax) return { kind: 'busy', reason: 'retries_exhausted' };
    await sleep(Math.random() * policy.retryBaseDelayMs * 2 ** attempt);
  }
}

async function attemptOnce<T>(client: pg.PoolClient, work: (client: pg.PoolClient) => Promise<T>, state: { broken: boolean }, transactional: boolean): Promise<Attempt<T>> {
  try {
    if (transactional) await client.query('BEGIN');
    const value = await work(client);
    if (transactional) await client.query('COMMIT');
    return { kind: 'done', value };
  } catch (error) {
    if (transactional) {
      await client.query('ROLLBACK').catch(() => {
        state.broken = true;
      });
    }
    if (error instanceof Rollback) return { kind: 'done', value: error.value as T };
    const { code, constraint } = pgError(error);
    if (code === sqlState.serializationFailure || code === sqlState.deadlockDetected) return { kind: 'retry' };
    const reason = busyReason(error);
    if (reason !== null) return { kind: 'busy', reason };
    if (code === sqlState.uniqueViolation) return { kind: 'unique', constraint: constraint ?? 'unknown' };
    if (code === sqlState.checkViolation) return { kind: 'check', constraint: constraint ?? 'unknown' };
    throw error;
  }
}

/**
 * A read outside any transaction (one statement sees one snapshot). Busy (see busyReason) is
 * reported as data like the transactions' outcomes; any other error is thrown. A connection that
 * failed without a SQLSTATE (the socket, not the statement) is dropped from the pool.
 */
export async function readOnce<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<TxResult<T>> {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    const reason = busyReason(error);
    if (reason !== null) return { kind: 'busy', reason };
    throw error;
  }
  let broken = false;
  try {
    return { kind: 'done', value: await work(client) };
  } catch (error) {
    const reason = busyReason(error);
    if (reason !== null) return { kind: 'busy', reason };
    if (pgError(error).code === undefined) broken = true;
    throw error;
  } finally {
    client.release(broken);
  }
}
