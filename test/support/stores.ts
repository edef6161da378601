import type { Store } from '../../src/ports/engine/index.js';
import { createTestDatabase, testStore, type TestDatabase, type TestStore } from './backend.js';

/**
 * The adapters the conformance suite runs on, like Kysely's DIALECTS: every adapter of the store
 * port, filtered by TICKETRUSH_TEST_STORE, each opened through configuration exactly as the server
 * opens it (a data directory, or a PostgreSQL URL and a fresh schema).
 */
export interface TestStoreHandle {
  readonly store: Store;
  readonly database: TestDatabase;
  close(): Promise<void>;
}

export interface StoreFactory {
  readonly name: TestStore;
  open(): Promise<TestStoreHandle>;
}

export async function openThroughConfiguration(database: TestDatabase): Promise<Store> {
  const compose = (await import('../../src/compose.js')) as unknown as { openConfiguredStore?: (config: unknown) => Promise<Store> };
  const { loadConfig } = await import('../../src/config.js');
  const config = loadConfig({ ...database.env, TICKETRUSH_DEMO: '0' });
  if (compose.openConfiguredStore !== undefined) return compose.openConfiguredStore(config);
  // Until the composition root exports its store factory: the embedded store in the data dir.
  if (database.store !== 'sqlite') throw new Error('src/compose.ts does not export openConfiguredStore yet');
  const { openSqliteStore } = await import('../../src/adapters/sqlite/sqlite-store.js');
  const { join } = await import('node:path');
  return openSqliteStore({ filename: join(config.dataDir, 'ticketrush.db') });
}

const factory = (name: TestStore): StoreFactory => ({
  name,
  async open() {
    const database = await createTestDatabase({ store: name, prefix: `ticketrush-contract-${name}-` });
    try {
      const store = await openThroughConfiguration(database);
      return {
        store,
        database,
        async close() {
          try {
            await store.close();
          } finally {
            await database.drop();
          }
        },
      };
    } catch (error) {
      await database.drop();
      throw error;
    }
  },
});

export const allStoreFactories: readonly StoreFactory[] = [factory('sqlite'), factory('postgres')];

/** The adapters this run covers: the one TICKETRUSH_TEST_STORE names (postgres+redis: the store is PostgreSQL; the gate has its own suite). */
export const storeFactories: readonly StoreFactory[] = allStoreFactories.filter((f) => f.name === (testStore === 'postgres+redis' ? 'postgres' : testStore));
