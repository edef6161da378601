import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, ApiClient, createShow } from '../support/api-client.js';
import { startTestNode, type TestNode } from '../support/backend.js';
import { buyerApi, clickSeat, ensureWebBuilt, hasChromium, launch, noSeriousA11yViolations, shot, signedInContext, watchConsole } from './browser.js';

let t: TestNode & { baseUrl: string };
let browser: Browser;
let admin: ApiClient;
let seq = 0;

describe.skipIf(!hasChromium)('web front end: the waiting room', () => {
  beforeAll(async () => {
    ensureWebBuilt();
    [t, browser] = await Promise.all([startTestNode({ env: { TICKETRUSH_ADMIT_SWEEP_MS: '200' } }), launch()]);
    admin = await adminClient(t.node.app);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('turns the room on from the organizer page; a buyer is sent to the queue, waits, is admitted and holds a seat with the token, in English and Chinese', async () => {
    const showId = await createShow(admin);
    // The organizer: the room's controls on the show's live page, applied live.
    const organizer = await signedInContext(browser, admin, 'admin', 'ADMIN');
    const org = await organizer.newPage();
    const orgErrors = watchConsole(org);
    await org.goto(`${t.baseUrl}/admin/shows/${showId}`);
    await org.getByTestId('waiting-room-panel').waitFor();
    await expect(org.getByTestId('waiting-room-live').textContent()).resolves.toContain('Off');
    await org.getByTestId('waiting-room-enabled').check();
    await org.getByTestId('waiting-room-rate').fill('0');
    await org.getByTestId('waiting-room-window').fill('600');
    await org.getByTestId('waiting-room-save').click();
    await org.getByText('Waiting room saved.').waitFor();
    await expect(org.getByTestId('waiting-room-live').textContent()).resolves.toContain('On');
    await noSeriousA11yViolations(org, 'waiting-room controls');

    // The buyer tries to hold: refused, and offered the queue.
    const name = `wrbuyer${++seq}`;
    const context = await signedInContext(browser, await buyerApi(t.node.app, name), name, 'BUYER');
    const page = await context.newPage();
    const errors = watchConsole(page, /403/);
    await page.goto(`${t.baseUrl}/shows/${showId}`);
    await page.getByTestId('seat-counts').waitFor();
    await clickSeat(page, 'A-5-5');
    await page.getByTestId('hold-selected').click();
    await page.getByTestId('join-queue').click();

    // In line, admission paused: the place, the wait, and that a place is not a reservation.
    await page.getByTestId('queue-position').waitFor();
    await expect(page.getByTestId('queue-position').textContent()).resolves.toBe('Your place in line: 1');
    await expect(page.getByTestId('queue-wait').textContent()).resolves.toContain('paused');
    await expect(page.getByTestId('not-reservation').textContent()).resolves.toContain('not a reservation');
    await noSeriousA11yViolations(page, 'queue page');
    await shot(page, 'queue-waiting');
    // The organizer sees the line.
    await org.getByText('1 waiting', { exact: false }).waitFor({ timeout: 5_000 });

    // 简体中文.
    await page.getByLabel('Language').selectOption('zh-CN');
    await expect(page.getByTestId('queue-position').textContent()).resolves.toBe('你当前排在第 1 位');
    await expect(page.getByTestId('not-reservation').textContent()).resolves.toContain('不是预订');
    await page.getByLabel('语言').selectOption('en');

    // The organizer sets a rate: the buyer is admitted, with a countdown, and goes on to the seat map.
    await org.getByTestId('waiting-room-rate').fill('600');
    await org.getByTestId('waiting-room-save').click();
    await page.getByTestId('queue-admitted').waitFor({ timeout: 10_000 });
    await expect(page.getByTestId('admission-countdown').textContent()).resolves.toMatch(/^Your admission ends in (09:[0-5]\d|10:00)$/);
    await shot(page, 'queue-admitted');
    await page.getByTestId('go-buy').click();
    await page.getByTestId('seat-counts').waitFor();
    await page.getByTestId('admission-countdown').waitFor();
    await clickSeat(page, 'A-5-6');
    await page.getByTestId('hold-selected').click();
    await page.getByTestId('hold-panel').waitFor();
    // The order carries the token too.
    await page.getByTestId('checkout').click();
    await page.waitForURL(/\/orders\//);
    expect(errors).toEqual([]);
    expect(orgErrors).toEqual([]);
    await context.close();
    await organizer.close();
  }, 60_000);
});
