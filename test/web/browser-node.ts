import type { Browser } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { adminClient, type ApiClient } from '../support/api-client.js';
import { startTestNode, type TestNode } from '../support/backend.js';
import { ensureWebBuilt, launch } from './browser.js';

export interface BrowserNode {
  readonly t: TestNode & { baseUrl: string };
  readonly browser: Browser;
  readonly admin: ApiClient;
}

/**
 * A browser file's set-up, registered in the calling describe: the web build, one server with an
 * admin client, and the run's Chromium (connected to), opened once for the file and closed after
 * it. `take` receives them once open.
 */
export function withBrowserNode(take: (opened: BrowserNode) => void): void {
  let opened: BrowserNode | undefined;
  beforeAll(async () => {
    ensureWebBuilt();
    const [t, browser] = await Promise.all([startTestNode(), launch()]);
    opened = { t, browser, admin: await adminClient(t.node.app) };
    take(opened);
  });
  afterAll(async () => {
    await opened?.browser.close();
    await opened?.t.close();
  });
}
