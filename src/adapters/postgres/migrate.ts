import type pg from 'pg';

/** One versioned step: SQL run in one transaction (PostgreSQL DDL is transactional). */
export interface PgMigration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

/** Several nodes may start at once on one database: the first migrates, the others wait this long at most. */
const migrationLockWaitMs = 60_000;
/** A migration may rewrite a large table; the per-connection statement_timeout is for operations. */
const migrationStatementTimeoutMs = 600_000;
/** First key of the two-key advisory lock (ours, arbitrary); the second is the schema's hash. */
const migrationLockClass = 13_013;

/**
 * Brings `schema` up to the newest version. Under a session advisory lock keyed by the schema, so
 * nodes starting together on one database migrate once, in order, and nobody serves requests on a
 * half-built schema: the others wait for the lock, then find every version recorded in
 * `schema_migrations` and do nothing. Each version commits with its row in schema_migrations, so
 * a crash mid-way resumes at the first missing version. Returns the versions applied by this call.
 */
export async function migratePg(pool: pg.Pool, schema: string, migrations: readonly PgMigration[]): Promise<number[]> {
  const client = await pool.connect();
  try {
    await client.query(`SET lock_timeout = ${migrationLockWaitMs}`);
    await client.query(`SET statement_timeout = ${migrationStatementTimeoutMs}`);
    await client.query('SELECT pg_advisory_lock($1, hashtext($2))', [migrationLockClass, schema]);
    try {
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
      await client.query(`CREATE TABLE IF NOT EXISTS ${schema}.schema_migrations (
        version integer PRIMARY KEY,
        name text NOT NULL,
        applied_at bigint NOT NULL
      )`);
      const { rows } = await client.query<{ version: number }>(`SELECT version FROM ${schema}.schema_migrations`);
      const done = new Set(rows.map((row) => row.version));
      const applied: number[] = [];
      for (const step of [...migrations].sort((a, b) => a.version - b.version)) {
        if (done.has(step.version)) continue;
        await client.query('BEGIN');
        try {
          await client.query(step.sql);
          await client.query(`INSERT INTO ${schema}.schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)`, [step.version, step.name, Date.now()]);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK');
          throw new Error(`PostgreSQL migration ${step.version} (${step.name}) failed: ${(error as Error).message}`, { cause: error });
        }
        applied.push(step.version);
      }
      return applied;
    } finally {
      await client.query('SELECT pg_advisory_unlock($1, hashtext($2))', [migrationLockClass, schema]);
    }
  } finally {
    // The SETs above changed this session: close it rather than hand it back to the pool.
    client.release(true);
  }
}
