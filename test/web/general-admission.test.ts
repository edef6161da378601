import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, ApiClient, createShow } from '../support/api-client.js';
import { adminCredentials, startTestNode, type TestNode } from '../support/backend.js';
import { buyerApi, noSeriousA11yViolations, ensureWebBuilt, hasChromium, launch, seatStatus, shot, signedInContext } from './browser.js';

let t: TestNode & { baseUrl: string };
/** One live connection per process: the second page is refused (503 LIVE_CONNECTIONS_FULL). */
let capped: TestNode & { baseUrl: string };
let browser: Browser;
let admin: ApiClient;
let seq = 0;

async function openShow(page: Page, baseUrl: string, showId: string): Promise<void> {
  await page.goto(`${baseUrl}/shows/${showId}`);
  await page.locator('[data-testid=live-status]', { hasText: 'Live' }).waitFor();
}

const signedIn = async (node: TestNode, prefix: string) => {
  const name = `${prefix}${++seq}`;
  return signedInContext(browser, await buyerApi(node.node.app, name), name, 'BUYER');
};

describe.skipIf(!hasChromium)('web front end: general admission, sold out, reconnecting', () => {
  beforeAll(async () => {
    ensureWebBuilt();
    [t, capped, browser] = await Promise.all([
      startTestNode(),
      startTestNode({ env: { TICKETRUSH_LIVE_CONNECTIONS_MAX: '1' } }),
      launch(),
    ]);
    admin = await adminClient(t.node.app);
  });
  afterAll(async () => {
    await browser?.close();
    await Promise.all([t?.close(), capped?.close()]);
  });

  it('sells standing places of a GA-only show: a buyer holds 3 and another browser sees the count drop live', async () => {
    const showId = await createShow(admin, { sections: [{ id: 'GA', name: 'Standing', kind: 'GENERAL_ADMISSION', capacity: 50, priceCents: 8800 }] });
    const [buyer, watcher] = await Promise.all([signedIn(t, 'standing'), signedIn(t, 'watcher')]);
    const [page, other] = await Promise.all([buyer.newPage(), watcher.newPage()]);
    await openShow(page, t.baseUrl, showId);
    await openShow(other, t.baseUrl, showId);
    for (const p of [page, other]) {
      await expect(p.getByTestId('left-GA').textContent()).resolves.toBe('50 of 50 left');
      await expect(p.getByTestId('seat-counts').textContent()).resolves.toBe('50 of 50 places available');
    }
    // No seat map for a show without seats.
    expect(await page.getByRole('application', { name: 'Seat map' }).count()).toBe(0);
    await noSeriousA11yViolations(page, 'GA show page');
    await page.getByLabel('How many', { exact: true }).selectOption('3');
    await page.getByTestId('hold-GA').click();
    await page.getByTestId('hold-countdown').waitFor();
    await expect(page.getByTestId('hold-panel').textContent()).resolves.toContain('3 × Standing');
    // The second browser was not reloaded: the stream brought the new count.
    await other.getByTestId('left-GA').getByText('47 of 50 left').waitFor({ timeout: 10_000 });
    await other.getByTestId('seat-counts').getByText('47 of 50 places available').waitFor();
    await shot(page, 'ga-hold');
    await shot(other, 'ga-watcher');
    // Someone else buys through the API: the count follows again.
    const api = await buyerApi(t.node.app, `gaapi${++seq}`);
    expect((await api.request('POST', `/api/v1/shows/${showId}/holds`, { section: 'GA', quantity: 5 })).status).toBe(201);
    await other.getByTestId('left-GA').getByText('42 of 50 left').waitFor({ timeout: 10_000 });
    // The show list counts standing places too (not "0 of 50 seats", not sold out).
    await other.goto(`${t.baseUrl}/`);
    const card = other.locator('[data-testid=show-card]', { hasText: '42 of 50 left' });
    await card.waitFor();
    await expect(card.textContent()).resolves.toContain('On sale');
    await buyer.close();
    await watcher.close();
  });

  it('shows sold out as soon as the last places go, without a reload', async () => {
    const showId = await createShow(admin, { sections: [{ id: 'GA', name: 'Floor', kind: 'GENERAL_ADMISSION', capacity: 4, priceCents: 5000 }, { id: 'S', name: 'Stalls', rows: 1, seatsPerRow: 2, priceCents: 9000 }] });
    const context = await signedIn(t, 'soldout');
    const page = await context.newPage();
    await openShow(page, t.baseUrl, showId);
    await expect(page.getByTestId('seat-counts').textContent()).resolves.toMatch(/^6 of 6 places available/);
    expect(await page.getByTestId('sold-out').count()).toBe(0);
    const a = await buyerApi(t.node.app, `lastga${++seq}`);
    const b = await buyerApi(t.node.app, `lastseat${++seq}`);
    expect((await a.request('POST', `/api/v1/shows/${showId}/holds`, { section: 'GA', quantity: 4 })).status).toBe(201);
    await page.getByTestId('left-GA').getByText('Sold out').waitFor({ timeout: 10_000 });
    expect(await page.getByTestId('sold-out').count()).toBe(0); // two seats are still free
    expect((await b.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['S-1-1', 'S-1-2'] })).status).toBe(201);
    await page.getByTestId('sold-out').waitFor({ timeout: 10_000 });
    // Sold out hides the buying controls and says why (issue 20).
    await page.getByTestId('sold-out-note').waitFor();
    expect(await page.getByTestId('hold-GA').count()).toBe(0);
    expect(await page.getByTestId('hold-best').count()).toBe(0);
    expect(await page.getByTestId('hold-selected').count()).toBe(0);
    await shot(page, 'sold-out-live');
    await context.close();
  });

  it('shows a seated section sold by quantity as a counted block beside the map of a section sold by seat', async () => {
    const showId = await createShow(admin, { sections: [
      { id: 'A', name: 'Stalls', rows: 4, seatsPerRow: 8, priceCents: 12000 },
      { id: 'Q', name: 'Circle', rows: 3, seatsPerRow: 10, priceCents: 6000, sellBy: 'QUANTITY' },
    ] });
    const context = await signedIn(t, 'byqty');
    const page = await context.newPage();
    await openShow(page, t.baseUrl, showId);
    await page.getByRole('application', { name: 'Seat map' }).waitFor();
    await expect(page.getByTestId('left-Q').textContent()).resolves.toBe('30 of 30 left');
    await expect(page.getByTestId('seat-counts').textContent()).resolves.toBe('62 of 62 places available · seats: 0 held · 0 sold');
    // Seats of the QUANTITY section are not drawn (they are picked when tickets are issued).
    expect(await seatStatus(page, 'Q-1-1')).toBeUndefined();
    expect(await seatStatus(page, 'A-1-1')).toBe('A');
    await page.getByLabel('How many', { exact: true }).selectOption('2');
    await page.getByTestId('hold-Q').click();
    await page.getByTestId('hold-countdown').waitFor();
    await page.getByTestId('seat-counts').getByText(/^60 of 62 places available/).waitFor({ timeout: 10_000 });
    await noSeriousA11yViolations(page, 'mixed show page');
    await context.close();
  });

  it('lets an organizer add a general-admission section and a seated one sold by quantity, previewed before saving', async () => {
    const context = await signedInContext(browser, admin, adminCredentials.username, 'ADMIN');
    const page = await context.newPage();
    await page.goto(`${t.baseUrl}/admin/new`);
    await page.getByLabel('Title').fill('Summer Open Air');
    await page.getByLabel('Venue').fill('Riverside Park');
    await page.getByLabel('City').fill('Suzhou');
    await page.getByTestId('add-ga').click();
    await page.getByLabel('Name 3').fill('Field');
    await page.getByLabel('Capacity 3').fill('1200');
    await page.getByLabel('Kind 2').selectOption('QUANTITY');
    await expect(page.getByTestId('preview-title').textContent()).resolves.toBe('Preview: 1,496 places');
    await expect(page.getByTestId('preview-counted-C').textContent()).resolves.toContain('1,200 of 1,200 left');
    await expect(page.getByTestId('preview-counted-B').textContent()).resolves.toContain('96 of 96 left');
    await page.getByRole('img', { name: 'Seat map: 200' }).waitFor();
    await shot(page, 'organizer-create-show-ga');
    await noSeriousA11yViolations(page, 'create show with GA');
    await page.getByTestId('save-show').click();
    // Saving goes straight to the new show's live sale page.
    await page.waitForURL(/\/admin\/shows\/[^/]+$/);
    const showId = page.url().split('/').at(-1) as string;
    const show = (await admin.request('GET', `/api/v1/shows/${showId}`)).body;
    expect(show.sections).toEqual([
      expect.objectContaining({ id: 'A', kind: 'SEATED', sellBy: 'SEAT', rows: 10, seatsPerRow: 20 }),
      expect.objectContaining({ id: 'B', kind: 'SEATED', sellBy: 'QUANTITY', rows: 6, seatsPerRow: 16 }),
      expect.objectContaining({ id: 'C', name: 'Field', kind: 'GENERAL_ADMISSION', capacity: 1200, priceCents: 10000 }),
    ]);
    await context.close();
  });

  it('reconnects by itself after the server refused the live stream (connection cap), and re-reads the map', async () => {
    const cappedAdmin = await adminClient(capped.node.app);
    const showId = await createShow(cappedAdmin, { sections: [{ id: 'A', name: 'Stalls', rows: 4, seatsPerRow: 8, priceCents: 5000 }, { id: 'GA', name: 'Standing', kind: 'GENERAL_ADMISSION', capacity: 20, priceCents: 3000 }] });
    const first = await browser.newContext({ locale: 'en-US' });
    const firstPage = await first.newPage();
    await openShow(firstPage, capped.baseUrl, showId);
    // The only live connection is taken: the second page's EventSource is answered 503 and gives up.
    const second = await browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 900 } });
    const page = await second.newPage();
    await page.goto(`${capped.baseUrl}/shows/${showId}`);
    const paused = page.getByTestId('live-paused');
    await paused.waitFor({ timeout: 10_000 });
    await expect(paused.textContent()).resolves.toContain('Live updates paused — the map may be out of date');
    await shot(page, 'live-paused');
    // Changes while it is paused...
    const buyer = await buyerApi(capped.node.app, `paused${++seq}`);
    expect((await buyer.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-2-3'] })).status).toBe(201);
    expect((await buyer.request('POST', `/api/v1/shows/${showId}/holds`, { section: 'GA', quantity: 2 })).status).toBe(201);
    await new Promise((r) => setTimeout(r, 1500));
    // ...still paused after a first retry or two (the slot is still taken), then the slot frees up.
    expect(await page.evaluate(() => (window as unknown as { __liveState(): string }).__liveState())).not.toBe('live');
    await first.close();
    await page.locator('[data-testid=live-status]', { hasText: 'Live' }).waitFor({ timeout: 40_000 });
    await paused.waitFor({ state: 'detached' });
    await expect.poll(() => seatStatus(page, 'A-2-3')).toBe('H');
    await page.getByTestId('left-GA').getByText('18 of 20 left').waitFor({ timeout: 10_000 });
    expect(await page.evaluate(() => (window as unknown as { __seatMapTimings: { reconnects: number } }).__seatMapTimings.reconnects)).toBeGreaterThan(0);
    // And it is live again: the next change arrives by the stream.
    expect((await buyer.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-4-8'] })).status).toBe(201);
    await expect.poll(() => seatStatus(page, 'A-4-8'), { timeout: 10_000 }).toBe('H');
    await second.close();
  });

  it('speaks Chinese on a GA show', async () => {
    const showId = await createShow(admin, { sections: [{ id: 'GA', name: 'Standing', kind: 'GENERAL_ADMISSION', capacity: 10, priceCents: 8800 }] });
    const context = await browser.newContext({ locale: 'zh-CN', viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await page.goto(`${t.baseUrl}/shows/${showId}`);
    await page.getByTestId('left-GA').getByText('剩余 10 / 10').waitFor();
    await shot(page, 'ga-zh-phone');
    await noSeriousA11yViolations(page, 'GA show page zh');
    await context.close();
  });
});
