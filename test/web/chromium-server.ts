import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';
import type { TestProject } from 'vitest/node';
import { chromiumArgs, chromiumPath, featuresDropped } from './chromium.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where the browser suites' one Chromium listens (playwright's launchServer); empty without Chromium. */
    chromiumWsEndpoint: string;
  }
}

/**
 * Global set-up of the browser project: one Chromium for every browser test file of a run, which
 * each file reaches with chromium.connect() (test/web/browser.ts launch()) and in which each file
 * and each buyer opens contexts of its own, instead of a browser start per file.
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  if (!existsSync(chromiumPath)) {
    project.provide('chromiumWsEndpoint', '');
    return undefined;
  }
  const server = await chromium.launchServer({ executablePath: chromiumPath, args: [...chromiumArgs] });
  const dropped = featuresDropped(server.process().spawnargs);
  if (dropped.length > 0) console.warn(`test/web/chromium.ts: Playwright now also disables ${dropped.join(', ')}; add them to disabledFeatures (Chromium keeps only the last --disable-features)`);
  project.provide('chromiumWsEndpoint', server.wsEndpoint());
  return async () => {
    await server.close();
  };
}
