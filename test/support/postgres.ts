import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * Schemas for test nodes on PostgreSQL: one per node, named so that parallel test files (and
 * parallel runs on one database) never meet, created empty and dropped with everything in it.
 */
export function uniqueSchemaName(): string {
  return `tr_test_${process.pid}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
}

const identifier = (name: string): string => {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a plain schema name: ${name}`);
  return `"${name}"`;
};

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export async function createSchema(url: string, schema: string): Promise<void> {
  await withClient(url, (c) => c.query(`CREATE SCHEMA ${identifier(schema)}`));
}

export async function dropSchema(url: string, schema: string): Promise<void> {
  await withClient(url, (c) => c.query(`DROP SCHEMA IF EXISTS ${identifier(schema)} CASCADE`));
}

/** Whether PostgreSQL answers at `url` (a quick connect and `SELECT 1`), with the reason when not. */
export async function postgresReachable(url: string): Promise<{ ok: true } | { ok: false; reason: string }> {
  try {
    await withClient(url, (c) => c.query('SELECT 1'));
    return { ok: true };
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
}

/** One statement in `schema` of the database at `url` (test set-up and fault injection only). */
export async function queryInSchema<R extends pg.QueryResultRow>(url: string, schema: string, sql: string, params: unknown[] = []): Promise<pg.QueryResult<R>> {
  return withClient(url, async (c) => {
    await c.query(`SET search_path TO ${identifier(schema)}`);
    return c.query<R>(sql, params);
  });
}
