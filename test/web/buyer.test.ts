import { availableParallelism, loadavg } from 'node:os';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, ApiClient, createShow } from '../support/api-client.js';
import { startTestNode, type TestNode } from '../support/backend.js';
import { buyerApi, noSeriousA11yViolations, clickSeat, ensureWebBuilt, hasChromium, launch, seatStatus, shot, signedInContext } from './browser.js';

let t: TestNode & { baseUrl: string };
let short: TestNode & { baseUrl: string };
let browser: Browser;
let admin: ApiClient;
let seq = 0;

describe.skipIf(!hasChromium)('web front end: buyer', () => {
  beforeAll(async () => {
    ensureWebBuilt();
    [t, short, browser] = await Promise.all([
      startTestNode(),
      // Holds lapse in 3 s here, so a lapse can be watched on screen.
      startTestNode({ env: { TICKETRUSH_HOLD_SECONDS_DEFAULT: '3', TICKETRUSH_EXPIRY_SWEEP_MS: '100' } }),
      launch(),
    ]);
    admin = await adminClient(t.node.app);
  });
  afterAll(async () => {
    await browser?.close();
    await Promise.all([t?.close(), short?.close()]);
  });

  it('takes a buyer from the show list to a ticket QR: sign up, pick a seat by keyboard, hold, pay, tickets', async () => {
    const showId = await createShow(admin, { sections: [{ id: 'A', name: 'Stalls', rows: 6, seatsPerRow: 12, priceCents: 12800 }, { id: 'B', name: 'Balcony', rows: 4, seatsPerRow: 10, priceCents: 6800 }] });
    const context = await browser.newContext({ locale: 'en-US', viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const page = await context.newPage();
    await page.goto(`${t.baseUrl}/signup`);
    await page.getByLabel('Username').fill(`webbuyer${++seq}`);
    await page.getByLabel('Password').fill('password-123');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(`${t.baseUrl}/`);
    await page.locator('[data-testid=show-card]').first().waitFor();
    await expect(page.locator('.countdown').first().textContent()).resolves.toMatch(/Sale closes in/);
    await shot(page, 'show-list-phone');
    await noSeriousA11yViolations(page, 'show list');
    await page.getByRole('link', { name: /Choose seats for Test Show/ }).first().click();
    await page.waitForURL(`${t.baseUrl}/shows/${showId}`);
    const map = page.getByRole('application', { name: 'Seat map' });
    await map.waitFor();
    await page.locator('[data-testid=live-status]', { hasText: 'Live' }).waitFor();
    // Keyboard: the first seat has focus; move right once and select it.
    await map.focus();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('Enter');
    await expect(page.locator('#seatmap-focus').textContent()).resolves.toContain('row 1, seat 2, selected');
    // Touch: a tap selects a seat, a second tap lets it go.
    const tapSeat = async (id: string) => {
      const p = await page.evaluate((seat) => (window as unknown as { __seatMapPoint(id: string): { x: number; y: number } }).__seatMapPoint(seat), id);
      await page.touchscreen.tap(p.x, p.y);
    };
    await tapSeat('A-2-4');
    await page.getByRole('button', { name: 'Remove Stalls, row 2, seat 4' }).waitFor();
    await tapSeat('A-2-4');
    await page.getByRole('button', { name: 'Remove Stalls, row 2, seat 4' }).waitFor({ state: 'detached' });
    await page.getByTestId('hold-selected').click();
    await page.getByTestId('hold-countdown').waitFor();
    await expect.poll(() => seatStatus(page, 'A-1-2')).toBe('H');
    await shot(page, 'show-page-hold-phone');
    await noSeriousA11yViolations(page, 'show page');
    await page.getByTestId('checkout').click();
    await page.waitForURL(/\/orders\//);
    await page.getByTestId('pay').click();
    // The order page turns into tickets by itself.
    const qr = page.getByTestId('ticket-qr').first();
    await qr.waitFor({ timeout: 20_000 });
    await page.getByRole('link', { name: 'See my tickets' }).click();
    await page.waitForURL(`${t.baseUrl}/tickets`);
    const img = page.getByRole('img', { name: 'QR code of the ticket: Stalls, row 1, seat 2' });
    await img.waitFor();
    expect(await img.evaluate((el: HTMLImageElement) => el.naturalWidth > 0 && el.getBoundingClientRect().width >= 200)).toBe(true);
    await shot(page, 'my-tickets-phone');
    await noSeriousA11yViolations(page, 'my tickets');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('link', { name: 'Sign in' }).waitFor();
    await context.close();
  });

  it('lets two buyers race for one seat: exactly one holds it, the other sees it turn unavailable without reloading', async () => {
    const showId = await createShow(admin);
    const contexts = await Promise.all([1, 2].map(async () => {
      const name = `racer${++seq}`;
      return signedInContext(browser, await buyerApi(t.node.app, name), name, 'BUYER');
    }));
    const pages = await Promise.all(contexts.map(async (c) => {
      const page = await c.newPage();
      await page.goto(`${t.baseUrl}/shows/${showId}`);
      await page.locator('[data-testid=live-status]', { hasText: 'Live' }).waitFor();
      return page;
    }));
    for (const page of pages) await clickSeat(page, 'A-3-5');
    // Both click at once. If the winner's hold reaches the other page first, its selection is
    // already gone (and the button disabled): that is the other way to lose the race.
    await Promise.all(pages.map((page) => page.getByTestId('hold-selected').click({ timeout: 3000 }).catch(() => undefined)));
    const outcomes = await Promise.all(pages.map((page) => Promise.race([
      page.getByTestId('hold-panel').waitFor().then(() => 'HELD'),
      page.getByTestId('notice').waitFor().then(() => 'REFUSED'),
    ])));
    expect([...outcomes].sort()).toEqual(['HELD', 'REFUSED']);
    const loser = pages[outcomes.indexOf('REFUSED')] as Page;
    await expect.poll(() => seatStatus(loser, 'A-3-5')).toBe('H');
    await expect(loser.getByTestId('notice').textContent()).resolves.toMatch(/taken/);
    // A third party's purchase also shows up live on both maps.
    const other = await buyerApi(t.node.app, `other${++seq}`);
    await other.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-9-9'] });
    for (const page of pages) await expect.poll(() => seatStatus(page, 'A-9-9')).toBe('H');
    await shot(loser, 'race-loser');
    for (const c of contexts) await c.close();
  });

  it('shows a hold lapsing on screen, with a clear message, and the seat free again', async () => {
    const shortAdmin = await adminClient(short.node.app);
    const showId = await createShow(shortAdmin);
    const name = `lapse${++seq}`;
    const context = await signedInContext(browser, await buyerApi(short.node.app, name), name, 'BUYER');
    const page = await context.newPage();
    await page.goto(`${short.baseUrl}/shows/${showId}`);
    await page.locator('[data-testid=live-status]', { hasText: 'Live' }).waitFor();
    await page.getByTestId('hold-best').click();
    await page.getByTestId('hold-countdown').waitFor();
    const notice = page.getByTestId('notice');
    await notice.waitFor({ timeout: 10_000 });
    expect(await notice.textContent()).toContain('Your hold has lapsed');
    await expect.poll(() => seatStatus(page, 'A-1-5'), { timeout: 10_000 }).toBe('A');
    await shot(page, 'hold-lapsed');
    await context.close();
  });

  it('speaks Simplified Chinese to a Chinese browser, and switches language on request', async () => {
    const context = await browser.newContext({ locale: 'zh-CN', viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${t.baseUrl}/`);
    await page.getByRole('heading', { name: '演出' }).waitFor();
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('zh-CN');
    await shot(page, 'show-list-zh');
    await page.getByRole('combobox', { name: '语言' }).selectOption('en');
    await page.getByRole('heading', { name: 'Shows' }).waitFor();
    await page.goto(`${t.baseUrl}/signin`);
    await noSeriousA11yViolations(page, 'sign in');
    await context.close();
  });

  it('renders a 20,000-seat map (goal: drawn in a second) and applies a live update (goal: 50 ms), bounded loosely by the load', async () => {
    const sections = ['A', 'B', 'C', 'D'].map((id, i) => ({ id, name: `Block ${id}`, rows: 50, seatsPerRow: 100, priceCents: 20000 - i * 3000 }));
    const showId = await createShow(admin, { sections });
    const name = `big${++seq}`;
    const context = await signedInContext(browser, await buyerApi(t.node.app, name), name, 'BUYER');
    const page = await context.newPage();
    await page.goto(`${t.baseUrl}/shows/${showId}`);
    await page.locator('[data-testid=live-status]', { hasText: 'Live' }).waitFor();
    // The map draws in slices, frame by frame: its figures are there once the last one is drawn.
    await page.locator('canvas[data-testid=seatmap][data-drawn]').waitFor();
    const render = await page.evaluate(() => {
      const timings = (window as unknown as { __seatMapTimings: { loadMs: number; layoutMs: number; drawMs: number } }).__seatMapTimings;
      const drawn = performance.getEntriesByName('seatmap-drawn')[0]?.startTime ?? NaN;
      const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined;
      return { ...timings, sinceNavigationMs: drawn, domReadyMs: nav?.domContentLoadedEventEnd ?? NaN };
    });
    const buyers = await Promise.all([1, 2, 3].map(() => buyerApi(t.node.app, `bigbuyer${++seq}`)));
    const updates: number[] = [];
    for (const [i, b] of buyers.entries()) {
      const before = await page.evaluate(() => (window as unknown as { __seatMapTimings: { updates: number } }).__seatMapTimings.updates);
      await b.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: [`C-${i + 10}-50`, `C-${i + 10}-51`] });
      await expect.poll(() => page.evaluate(() => (window as unknown as { __seatMapTimings: { updates: number } }).__seatMapTimings.updates)).toBeGreaterThan(before);
      updates.push(await page.evaluate(() => (window as unknown as { __seatMapTimings: { lastUpdateMs: number } }).__seatMapTimings.lastUpdateMs));
    }
    expect(await seatStatus(page, 'C-10-50')).toBe('H');
    await page.getByTestId('seat-counts').getByText('19,994 of 20,000 seats available · 6 held · 0 sold').waitFor();
    console.log(`20,000-seat map: fetch ${render.loadMs.toFixed(0)} ms, layout ${render.layoutMs.toFixed(0)} ms, draw ${render.drawMs.toFixed(0)} ms, drawn ${render.sinceNavigationMs.toFixed(0)} ms after navigation (page ready at ${render.domReadyMs.toFixed(0)} ms); live updates applied in ${updates.map((u) => u.toFixed(1)).join(', ')} ms`);
    await shot(page, 'seatmap-20000');
    // The goals (drawn in 1 s, an update in 50 ms) are reported; a timed test on a shared 2-core
    // machine asserts only a loose bound, five times the goal scaled by the load per core (as the
    // herd does), so a busy machine cannot fail it while a real regression (say 10x) still does.
    const slack = 5 * Math.max(1, (loadavg()[0] ?? 1) / Math.max(1, availableParallelism()));
    const drawMs = render.layoutMs + render.drawMs;
    console.log(`20,000-seat map goals: drawn ${drawMs.toFixed(0)} ms [< 1000 ms: ${drawMs < 1000 ? 'PASS' : 'FAIL'}], slowest update ${Math.max(...updates).toFixed(1)} ms [< 50 ms: ${Math.max(...updates) < 50 ? 'PASS' : 'FAIL'}] (asserted: ${slack.toFixed(1)} x the goal)`);
    expect(drawMs).toBeLessThan(1000 * slack);
    // From navigation start it also counts the server loading 20,000 seats the first time; reported, bounded loosely.
    expect(render.sinceNavigationMs).toBeLessThan(5000 * slack);
    expect(Math.max(...updates)).toBeLessThan(50 * slack);
    await context.close();
  });
});
