import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import lighthouse from 'lighthouse';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, createShow } from '../support/api-client.js';
import { startTestNode, type TestNode } from '../support/backend.js';
import { eventually } from '../support/wait.js';
import { chromiumPath, ensureWebBuilt, hasChromium } from './browser.js';

// Lighthouse (mobile, its default simulated throttling) on Debian's Chromium against the built
// app, on the pages a buyer, an organizer and door staff open: each category must score at least
// 95. scripts/run-tests.mjs runs this file on its own, since other suites' load would skew the
// performance figures; it is not part of test:quick.
const categories = ['performance', 'accessibility', 'best-practices', 'seo'] as const;
const scoreMin = 95;

let t: TestNode & { baseUrl: string };
let context: BrowserContext;
let profile: string;
let port: number;
let showId: string;
let session: string;

beforeAll(async () => {
  ensureWebBuilt();
  t = await startTestNode();
  const admin = await adminClient(t.node.app);
  showId = await createShow(admin);
  // The admin buys a ticket, so the tickets page shows one (with its QR code).
  const hold = await admin.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-5-5'] });
  const order = await admin.request('POST', '/api/v1/orders', { holdId: hold.body.holdId }, { 'x-idempotency-key': 'lighthouse-1' });
  await admin.request('POST', `/api/v1/orders/${order.body.orderId as string}/sandbox-pay`, { outcome: 'SUCCEEDED' });
  await eventually(async () => ((await admin.request('GET', `/api/v1/orders/${order.body.orderId as string}`)).body.status === 'TICKETED' ? true : undefined), 10_000, 'TICKETED');
  const token = (admin as unknown as { token: string }).token;
  session = JSON.stringify({ token, username: 'admin', role: 'ADMIN', expiresAt: Date.now() + 3_600_000 });

  // A persistent profile, so the tab Lighthouse opens shares the storage this test signs in with;
  // Chromium writes the debugging port it picked to DevToolsActivePort.
  profile = mkdtempSync(join(tmpdir(), 'ticketrush-lighthouse-'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--remote-debugging-port=0'],
  });
  port = Number(readFileSync(join(profile, 'DevToolsActivePort'), 'utf8').split('\n')[0]);
}, 120_000);

afterAll(async () => {
  await context?.close();
  await t?.close();
  if (profile !== undefined) rmSync(profile, { recursive: true, force: true });
});

async function signedIn(value: string | null): Promise<void> {
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto(`${t.baseUrl}/robots.txt`);
  await page.evaluate((s) => (s === null ? localStorage.removeItem('tr.session') : localStorage.setItem('tr.session', s)), value);
}

/** One Lighthouse run; the scores (0-100) of the four categories, and what fell short. */
async function audit(path: string): Promise<{ scores: Record<string, number>; failing: string[] }> {
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
  console.log(`lighthouse ${path}: ${categories.map((c) => `${c} ${scores[c]}`).join(', ')}${failing.length > 0 ? `; short: ${failing.join('; ')}` : ''}`);
  return { scores, failing };
}

describe.skipIf(!hasChromium)('Lighthouse, mobile', () => {
  const pages: { name: string; path: () => string; signedIn: boolean }[] = [
    { name: 'home', path: () => '/', signedIn: false },
    { name: 'show page', path: () => `/shows/${showId}`, signedIn: false },
    { name: 'sign-in page', path: () => '/signin', signedIn: false },
    { name: 'tickets page', path: () => '/tickets', signedIn: true },
    { name: 'organizer page', path: () => '/admin', signedIn: true },
    { name: 'door page', path: () => '/door', signedIn: true },
  ];
  for (const page of pages) {
    it(`scores at least ${scoreMin} in every category on the ${page.name}`, async () => {
      await signedIn(page.signedIn ? session : null);
      const { scores, failing } = await audit(page.path());
      expect({ scores: Object.fromEntries(Object.entries(scores).filter(([, s]) => s < scoreMin)), failing: Object.values(scores).some((s) => s < scoreMin) ? failing : [] })
        .toEqual({ scores: {}, failing: [] });
    }, 60_000);
  }
});
