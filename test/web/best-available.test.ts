import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, createShow, type ApiClient } from '../support/api-client.js';
import { startTestNode, type TestNode } from '../support/backend.js';
import { buyerApi, ensureWebBuilt, hasChromium, launch, noSeriousA11yViolations, seatStatus, shot, signedInContext, watchConsole } from './browser.js';

/**
 * Best available on the show page (issue 20, defect 10): the seats nearest the stage as the page
 * draws it, in any section or in the one the buyer picks, in both languages.
 */
let t: TestNode & { baseUrl: string };
let browser: Browser;
let admin: ApiClient;
let seq = 0;

/** The demo show's map: the stalls in front, the balcony behind. */
const demoSections = [
  { id: 'A', name: 'Stalls', rows: 10, seatsPerRow: 20, priceCents: 12800 },
  { id: 'B', name: 'Balcony', rows: 5, seatsPerRow: 16, priceCents: 6800 },
];

const point = (page: Page, id: string) =>
  page.evaluate((seat) => (window as unknown as { __seatMapPoint(id: string): { x: number; y: number } | null }).__seatMapPoint(seat), id);

/** Opens the show signed in, failing on any console error or uncaught exception of the page. */
async function openShow(locale: string, showId: string): Promise<{ page: Page; errors: string[]; close(): Promise<void> }> {
  const name = `bestweb${++seq}`;
  const context = await signedInContext(browser, await buyerApi(t.node.app, name), name, 'BUYER', { locale });
  const page = await context.newPage();
  const errors = watchConsole(page);
  await page.goto(`${t.baseUrl}/shows/${showId}`);
  await page.getByTestId('hold-best').waitFor();
  await expect.poll(() => seatStatus(page, 'B-5-1')).toBe('A');
  return { page, errors, close: () => context.close() };
}

describe.skipIf(!hasChromium)('web front end: best available', () => {
  beforeAll(async () => {
    ensureWebBuilt();
    [t, browser] = await Promise.all([startTestNode(), launch()]);
    admin = await adminClient(t.node.app);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('finds the centre of the stalls, and balcony seats when the buyer picks the balcony (English)', async () => {
    const showId = await createShow(admin, { sections: demoSections });
    const { page, errors, close } = await openShow('en-US', showId);
    // Drawn where the server's geometry puts them: the balcony behind the stalls, the stalls' centre under the stage.
    const [stalls, balcony] = [await point(page, 'A-1-10'), await point(page, 'B-1-8')];
    expect(balcony?.y ?? 0).toBeGreaterThan(stalls?.y ?? Infinity);
    const section = page.getByLabel('Section');
    expect(await section.locator('option').allTextContents()).toEqual(['Any section', 'Stalls (CN¥128.00)', 'Balcony (CN¥68.00)']);
    await noSeriousA11yViolations(page, 'show page, best available');
    await shot(page, 'best-available-choice');

    await page.getByRole('button', { name: 'Find best 2' }).click();
    await page.getByTestId('hold-panel').waitFor();
    await expect.poll(() => seatStatus(page, 'A-1-10')).toBe('H');
    expect(await seatStatus(page, 'A-1-11')).toBe('H');
    await page.getByRole('button', { name: 'Release' }).click();
    await expect.poll(() => seatStatus(page, 'A-1-10')).toBe('A');

    await page.getByLabel('Section').selectOption({ label: 'Balcony (CN¥68.00)' });
    await page.getByLabel('How many seats').selectOption('3');
    await page.getByRole('button', { name: 'Find best 3' }).click();
    await page.getByTestId('hold-panel').waitFor();
    // Three in the balcony's front row, centred (16 seats: 7-9 and 8-10 are as near; the first wins).
    await expect.poll(() => seatStatus(page, 'B-1-7')).toBe('H');
    expect([await seatStatus(page, 'B-1-8'), await seatStatus(page, 'B-1-9')]).toEqual(['H', 'H']);
    expect(await seatStatus(page, 'A-1-10')).toBe('A');
    await shot(page, 'best-available-balcony');
    expect(errors).toEqual([]);
    await close();
  });

  it('offers the same choice in Chinese, and puts a party in the stalls\' second row rather than the balcony\'s first', async () => {
    const showId = await createShow(admin, { sections: demoSections });
    // The stalls' front row is gone.
    const taker = await buyerApi(t.node.app, `front${++seq}`);
    const front = Array.from({ length: 20 }, (_, i) => `A-1-${i + 1}`);
    for (let i = 0; i < 20; i += 10) {
      const other = i === 0 ? taker : await buyerApi(t.node.app, `front${++seq}`);
      expect((await other.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: front.slice(i, i + 10) })).status).toBe(201);
    }
    const { page, errors, close } = await openShow('zh-CN', showId);
    await expect.poll(() => seatStatus(page, 'A-1-10')).toBe('H');
    await shot(page, 'best-available-zh');
    const options = await page.getByLabel('区域').locator('option').allTextContents();
    expect(options[0]).toBe('任意区域');
    expect(options.slice(1)).toEqual([expect.stringMatching(/^Stalls（.*128\.00）$/), expect.stringMatching(/^Balcony（.*68\.00）$/)]);
    await page.getByRole('button', { name: '自动选 2 个最佳座位' }).click();
    await page.getByTestId('hold-panel').waitFor();
    await expect.poll(() => seatStatus(page, 'A-2-10')).toBe('H');
    expect(await seatStatus(page, 'A-2-11')).toBe('H');
    expect(await seatStatus(page, 'B-1-8')).toBe('A');
    await noSeriousA11yViolations(page, 'show page, best available, Chinese');
    expect(errors).toEqual([]);
    await close();
  });
});
