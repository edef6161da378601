import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { composeNode, type Node } from '../../src/compose.js';
import { loadConfig } from '../../src/config.js';
import type { Clock } from '../../src/ports/runtime.js';
import { dropSchema, createSchema, uniqueSchemaName } from './postgres.js';
import { deleteRedisKeys } from './redis.js';

/**
 * The booking suites run against the backend named by TICKETRUSH_TEST_STORE (default: sqlite, the
 * embedded default). On PostgreSQL every test node gets a fresh schema of its own in the database
 * of TICKETRUSH_TEST_DATABASE_URL, handed to the node exactly as an operator would configure it
 * (TICKETRUSH_DATABASE_URL + TICKETRUSH_DATABASE_SCHEMA), so test files run side by side and
 * nothing in the suites knows where or how the data is stored.
 */
export type TestStore = 'sqlite' | 'postgres' | 'postgres+redis';

function storeFromEnv(): TestStore {
  const raw = process.env.TICKETRUSH_TEST_STORE ?? 'sqlite';
  if (raw !== 'sqlite' && raw !== 'postgres' && raw !== 'postgres+redis') throw new Error(`TICKETRUSH_TEST_STORE=${raw}: expected sqlite, postgres or postgres+redis`);
  return raw;
}

export const testStore: TestStore = storeFromEnv();
/** Whether the database is PostgreSQL (with or without the Redis gate in front). */
export const testOnPostgres = testStore !== 'sqlite';

/** The shared Redis of postgres+redis; each test database gets a key prefix of its own on it. */
export const testRedisUrl = process.env.TICKETRUSH_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export const testDatabaseUrl = process.env.TICKETRUSH_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export const adminCredentials = { username: 'admin', password: 'admin-password-1' } as const;

/**
 * Where one test node (or one child server, across its restarts) keeps its data: a data directory
 * (secrets, the sandbox provider's ledger, the SQLite file when SQLite is the store) and, on
 * PostgreSQL, a schema of its own. `env` is what a server needs to find them.
 */
export interface TestDatabase {
  readonly store: TestStore;
  readonly dataDir: string;
  readonly env: Readonly<Record<string, string>>;
  /** Drops the schema (PostgreSQL) and removes the data directory. */
  drop(): Promise<void>;
}

export async function createTestDatabase(options: { store?: TestStore; prefix?: string } = {}): Promise<TestDatabase> {
  const store = options.store ?? testStore;
  const dataDir = mkdtempSync(join(tmpdir(), options.prefix ?? 'ticketrush-test-'));
  if (store === 'sqlite') {
    return { store, dataDir, env: { TICKETRUSH_DATA_DIR: dataDir }, async drop() { rmSync(dataDir, { recursive: true, force: true }); } };
  }
  const schema = uniqueSchemaName();
  await createSchema(testDatabaseUrl, schema);
  // The schema's name is unique, so it makes a unique key prefix too (never FLUSHALL the shared Redis).
  const redisPrefix = `test:${schema}:`;
  const redisEnv = store === 'postgres+redis' ? { TICKETRUSH_REDIS_URL: testRedisUrl, TICKETRUSH_REDIS_PREFIX: redisPrefix } : {};
  return {
    store,
    dataDir,
    env: { TICKETRUSH_DATA_DIR: dataDir, TICKETRUSH_DATABASE_URL: testDatabaseUrl, TICKETRUSH_DATABASE_SCHEMA: schema, ...redisEnv },
    async drop() {
      try {
        await dropSchema(testDatabaseUrl, schema);
        if (store === 'postgres+redis') await deleteRedisKeys(testRedisUrl, redisPrefix);
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  };
}

export interface TestNode {
  readonly node: Node;
  readonly dataDir: string;
  readonly database: TestDatabase;
  close(): Promise<void>;
}

export async function startTestNode(options: { env?: Record<string, string>; clock?: Clock; listen?: boolean; store?: TestStore; jobs?: boolean } = {}): Promise<TestNode & { baseUrl: string }> {
  const database = await createTestDatabase(options.store === undefined ? {} : { store: options.store });
  let node: Node;
  try {
    const config = loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      TICKETRUSH_DEMO: '0',
      TICKETRUSH_ADMIN_USER: adminCredentials.username,
      TICKETRUSH_ADMIN_PASSWORD: adminCredentials.password,
      TICKETRUSH_SANDBOX_DELAY_MS_MAX: '20',
      TICKETRUSH_EXPIRY_SWEEP_MS: '200',
      TICKETRUSH_TICKET_SWEEP_MS: '500',
      // Thousands of accounts are made across the suite: scrypt at its lowest cost (the default is 16384).
      TICKETRUSH_SCRYPT_COST: '1024',
      ...database.env,
      ...options.env,
    });
    node = await composeNode(config, { logger: false, warmStore: false, ...(options.clock === undefined ? {} : { clock: options.clock }), ...(options.jobs === undefined ? {} : { jobs: options.jobs }) });
  } catch (error) {
    await database.drop();
    throw error;
  }
  const baseUrl = options.listen === false ? '' : await node.listen();
  return {
    node,
    dataDir: database.dataDir,
    database,
    baseUrl,
    async close() {
      try {
        await node.stop();
      } finally {
        await database.drop();
      }
    },
  };
}

/** What the auditor reads for an in-process node: its own store, and the provider that took part. */
export function auditSourceOf(t: TestNode): import('./audit.js').AuditSource {
  return { database: t.database, store: t.node.ctx.store, provider: t.node.sandbox };
}
