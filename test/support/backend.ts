import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { composeNode, type Node } from '../../src/compose.js';
import { loadConfig } from '../../src/config.js';
import type { Clock } from '../../src/ports/runtime.js';

/**
 * The booking suites run against the backend named by TICKETRUSH_TEST_STORE (default: sqlite, the
 * embedded default). A new backend joins by adding its case here; the suites stay as they are.
 */
export const testStore = process.env.TICKETRUSH_TEST_STORE ?? 'sqlite';

export const adminCredentials = { username: 'admin', password: 'admin-password-1' } as const;

export interface TestNode {
  readonly node: Node;
  readonly dataDir: string;
  close(): Promise<void>;
}

export async function startTestNode(options: { env?: Record<string, string>; clock?: Clock; listen?: boolean } = {}): Promise<TestNode & { baseUrl: string }> {
  if (testStore !== 'sqlite') throw new Error(`TICKETRUSH_TEST_STORE=${testStore} has no adapter yet`);
  const dataDir = mkdtempSync(join(tmpdir(), 'ticketrush-test-'));
  const config = loadConfig({
    TICKETRUSH_DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    TICKETRUSH_DEMO: '0',
    TICKETRUSH_ADMIN_USER: adminCredentials.username,
    TICKETRUSH_ADMIN_PASSWORD: adminCredentials.password,
    TICKETRUSH_SANDBOX_DELAY_MS_MAX: '20',
    TICKETRUSH_EXPIRY_SWEEP_MS: '200',
    TICKETRUSH_TICKET_SWEEP_MS: '500',
    ...options.env,
  });
  const node = await composeNode(config, { logger: false, ...(options.clock === undefined ? {} : { clock: options.clock }) });
  const baseUrl = options.listen === false ? '' : await node.listen();
  return {
    node,
    dataDir,
    baseUrl,
    async close() {
      await node.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
