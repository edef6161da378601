import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import lighthouse from 'lighthouse';
import { chromium, type BrowserContext } from 'playwright-core';
import { adminClient, createShow } from './api-client.js';
import { startTestNode, type TestNode } from './backend.js';
import { eventually } from './wait.js';
import { chromiumArgs } from '../web/chromium.js';

/**
 * Lighthouse (mobile, its default simulated throttling) on Debian's Chromium against the built web
 * app, on the pages a buyer, an organizer and door staff open. The test (test/web/lighthouse.test.ts)
 * asserts the categories that do not depend on the machine's load (accessibility, best practices,
 * SEO); the bench (bench/lighthouse-bench.ts) reports the performance score, which does.
 */
export type LighthouseCategory = 'performance' | 'accessibility' | 'best-practices' | 'seo';

export const lighthousePages: readonly { name: string; path: (showId: string) => string; signedIn: boolean }[] = [
  { name: 'home', path: () => '/', signedIn: false },
  { name: 'show page', path: (showId) => `/shows/${showId}`, signedIn: false },
  { name: 'sign-in page', path: () => '/signin', signedIn: false },
  { name: 'tickets page', path: () => '/tickets', signedIn: true },
  { name: 'organizer page', path: () => '/admin', signedIn: true },
  { name: 'door page', path: () => '/door', signedIn: true },
];

export interface LighthouseSite {
  readonly showId: string;
  /** Scores (0-100) of `categories` on `path`, signed in as the admin or not, and the audits that fell short. */
  audit(path: string, signedIn: boolean, categories: readonly LighthouseCategory[]): Promise<{ scores: Record<string, number>; failing: string[] }>;
  close(): Promise<void>;
}

/** A server with a show and one ticket (so the tickets page shows a QR code), and a Chromium to score it with. */
export async function openLighthouseSite(chromiumPath: string): Promise<LighthouseSite> {
  const t: TestNode & { baseUrl: string } = await startTestNode();
  let context: BrowserContext | undefined;
  const profile = mkdtempSync(join(tmpdir(), 'ticketrush-lighthouse-'));
  const close = async (): Promise<void> => {
    await context?.close();
    await t.close();
    rmSync(profile, { recursive: true, force: true });
  };
  try {
    const admin = await adminClient(t.node.app);
    const showId = await createShow(admin);
    const hold = await admin.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-5-5'] });
    const order = await admin.request('POST', '/api/v1/orders', { holdId: hold.body.holdId }, { 'x-idempotency-key': 'lighthouse-1' });
    const orderId = order.body.orderId as string;
    await admin.request('POST', `/api/v1/orders/${orderId}/sandbox-pay`, { outcome: 'SUCCEEDED' });
    await eventually(async () => ((await admin.request('GET', `/api/v1/orders/${orderId}`)).body.status === 'TICKETED' ? true : undefined), 10_000, 'TICKETED');
    const token = (admin as unknown as { token: string }).token;
    const session = JSON.stringify({ token, username: 'admin', role: 'ADMIN', expiresAt: Date.now() + 3_600_000 });

    // A persistent profile, so the tab Lighthouse opens shares the storage this site signs in with;
    // Chromium writes the debugging port it picked to DevToolsActivePort.
    const opened = await chromium.launchPersistentContext(profile, {
      executablePath: chromiumPath,
      args: [...chromiumArgs, '--remote-debugging-port=0'],
    });
    context = opened;
    const port = Number(readFileSync(join(profile, 'DevToolsActivePort'), 'utf8').split('\n')[0]);

    const signIn = async (value: string | null): Promise<void> => {
      const page = opened.pages()[0] ?? (await opened.newPage());
      await page.goto(`${t.baseUrl}/robots.txt`);
      await page.evaluate((s) => {
        // The page's storage (this file is type-checked without the DOM's types).
        const storage = (globalThis as unknown as { localStorage: { setItem(key: string, value: string): void; removeItem(key: string): void } }).localStorage;
        if (s === null) storage.removeItem('tr.session');
        else storage.setItem('tr.session', s);
      }, value);
    };

    return {
      showId,
      async audit(path, signedIn, categories) {
        await signIn(signedIn ? session : null);
        const result = await lighthouse(`${t.baseUrl}${path}`, {
          port,
          output: 'json',
          logLevel: 'error',
          onlyCategories: [...categories],
          // Keep the session (and so the signed-in pages) between runs.
          disableStorageReset: true,
          maxWaitForLoad: 20_000,
        });
        if (result === undefined) throw new Error(`Lighthouse gave no result for ${path}`);
        const { lhr } = result;
        const scores = Object.fromEntries(categories.map((c) => [c, Math.round((lhr.categories[c]?.score ?? 0) * 100)]));
        const failing = categories.flatMap((c) => (lhr.categories[c]?.auditRefs ?? [])
          .filter((ref) => ref.weight > 0 && (lhr.audits[ref.id]?.score ?? 1) < 0.9)
          .map((ref) => `${c}/${ref.id}: ${lhr.audits[ref.id]?.displayValue ?? lhr.audits[ref.id]?.title ?? ''}`));
        return { scores, failing };
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
