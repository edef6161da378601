import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migratePg } from '../../src/adapters/postgres/migrate.js';
import { createPgPool } from '../../src/adapters/postgres/pool.js';
import { pgMigrations } from '../../src/adapters/postgres/schema.js';

/** migratePg applies versions in ascending order, whatever their order in the list (branches append theirs). */
const versionsInOrder = pgMigrations.map((m) => m.version).sort((a, b) => a - b);
import { dropSchema, postgresReachable, uniqueSchemaName } from '../support/postgres.js';

const url = process.env.TICKETRUSH_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const reachable = await postgresReachable(url);

const poolFor = (schema: string): pg.Pool =>
  createPgPool({ url, schema, poolMax: 2, connectTimeoutMs: 5_000, idleTimeoutMs: 5_000, lockTimeoutMs: 500, statementTimeoutMs: 5_000 });

describe.skipIf(!reachable.ok)('PostgreSQL migrations', () => {
  const schemas: string[] = [];
  const pools: pg.Pool[] = [];
  beforeAll(() => undefined);
  afterAll(async () => {
    await Promise.all(pools.map((pool) => pool.end()));
    for (const schema of schemas) await dropSchema(url, schema);
  });

  it('several nodes starting at once on a fresh schema migrate it exactly once (advisory lock), creating the schema', async () => {
    const schema = uniqueSchemaName();
    schemas.push(schema);
    const nodes = Array.from({ length: 6 }, () => poolFor(schema));
    pools.push(...nodes);
    const applied = await Promise.all(nodes.map((pool) => migratePg(pool, schema, pgMigrations)));
    // One node applied every version; the others waited for the lock and found nothing to do.
    const all = applied.flat().sort((a, b) => a - b);
    expect(all).toEqual(versionsInOrder);
    expect(applied.filter((versions) => versions.length > 0)).toHaveLength(1);
    const { rows } = await nodes[0]!.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
    expect(rows.map((r) => r.version)).toEqual(versionsInOrder);
    // The tables live in the node's schema (search_path), not in public.
    const tables = await nodes[0]!.query<{ n: number }>("SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = $1 AND table_name = 'holds'", [schema]);
    expect(tables.rows[0]?.n).toBe(1);
    // A later start finds the schema current.
    expect(await migratePg(nodes[1]!, schema, pgMigrations)).toEqual([]);
  });

  it('a failing step rolls back whole and leaves the schema at the previous version', async () => {
    const schema = uniqueSchemaName();
    schemas.push(schema);
    const pool = poolFor(schema);
    pools.push(pool);
    const broken = [...pgMigrations, { version: 999, name: 'broken', sql: 'CREATE TABLE half_done (x int); SELECT no_such_function();' }];
    await expect(migratePg(pool, schema, broken)).rejects.toThrow(/migration 999/);
    const { rows } = await pool.query<{ version: number }>('SELECT max(version) AS version FROM schema_migrations');
    expect(rows[0]?.version).toBe(versionsInOrder.at(-1));
    const half = await pool.query("SELECT 1 FROM information_schema.tables WHERE table_schema = $1 AND table_name = 'half_done'", [schema]);
    expect(half.rowCount).toBe(0);
  });
});
