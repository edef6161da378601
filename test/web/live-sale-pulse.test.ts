import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, ApiClient, createShow } from '../support/api-client.js';
import { adminCredentials, startTestNode, type TestNode } from '../support/backend.js';
import { buyerApi, ensureWebBuilt, hasChromium, launch, noSeriousA11yViolations, shot, signedInContext, watchConsole } from './browser.js';

/**
 * The organizer's live chart (issue 26 item 6): holds and refusals by code over the last minutes,
 * from the server's own figures, updated live while the page stays open, in English and Chinese.
 */
let t: TestNode & { baseUrl: string };
let browser: Browser;
let admin: ApiClient;

describe.skipIf(!hasChromium)('web front end: live sale chart (issue 26 item 6)', () => {
  beforeAll(async () => {
    ensureWebBuilt();
    [t, browser] = await Promise.all([startTestNode(), launch()]);
    admin = await adminClient(t.node.app);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('charts holds and refusals by code, and takes new ones live', async () => {
    const showId = await createShow(admin, { sections: [{ id: 'A', name: 'Stalls', rows: 2, seatsPerRow: 5, priceCents: 5000 }] });
    const alice = await buyerApi(t.node.app, 'pulse-alice');
    const bob = await buyerApi(t.node.app, 'pulse-bob');
    expect((await alice.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-1-1', 'A-1-2'] })).status).toBe(201);
    expect((await bob.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-1-1'] })).status).toBe(409);
    for (const [locale, taken, holds] of [['en-US', 'Refused: seat taken', 'Holds placed'], ['zh-CN', '被拒：座位已被占', '锁座成功']] as const) {
      const context = await signedInContext(browser, admin, adminCredentials.username, 'ADMIN', { locale, viewport: { width: 900, height: 900 } });
      const page = await context.newPage();
      const errors = watchConsole(page);
      await page.goto(`${t.baseUrl}/admin/shows/${showId}`);
      await page.getByTestId('sale-pulse-chart').waitFor();
      await expect(page.getByTestId('pulse-refusal-SEAT_UNAVAILABLE').textContent()).resolves.toContain(taken);
      await expect(page.getByTestId('sale-pulse').textContent()).resolves.toContain(holds);
      expect(await page.getByTestId('sale-pulse-chart').locator('rect').count()).toBeGreaterThanOrEqual(2);
      await shot(page, `organizer-pulse-${locale}`);
      await noSeriousA11yViolations(page, `live sale chart ${locale}`);
      expect(errors).toEqual([]);
      await context.close();
    }
    // Live: a refusal made while the page is open shows up without a reload (the page refreshes every 5 s at most).
    const context = await signedInContext(browser, admin, adminCredentials.username, 'ADMIN', { locale: 'en-US' });
    const page = await context.newPage();
    await page.goto(`${t.baseUrl}/admin/shows/${showId}`);
    await page.getByTestId('pulse-refusal-SEAT_UNAVAILABLE').waitFor();
    const carol = await new ApiClient(t.node.app).signUp('pulse-carol');
    await carol.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-9-9'] });
    await page.getByTestId('pulse-refusal-SEAT_NOT_FOUND').waitFor({ timeout: 10_000 });
    await expect(page.getByTestId('pulse-holds').textContent()).resolves.toBe('1');
    await context.close();
  }, 90_000);
});
