import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, type ApiClient } from '../support/api-client.js';
import { startTestNode, type TestNode } from '../support/backend.js';
import { buyerApi, ensureWebBuilt, hasChromium, launch, noSeriousA11yViolations, shot, signedInContext, watchConsole } from './browser.js';

let t: TestNode & { baseUrl: string };
let browser: Browser;
let admin: ApiClient;
let seq = 0;
const minute = 60_000;

describe.skipIf(!hasChromium)('web front end: bargains (seed 001 砍价)', () => {
  beforeAll(async () => {
    ensureWebBuilt();
    [t, browser] = await Promise.all([startTestNode(), launch()]);
    admin = await adminClient(t.node.app);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('a buyer starts a bargain and shares it; a newcomer registers on the share page and cuts; the buyer orders at the price reached; in English and Chinese', async () => {
    const now = Date.now();
    const title = `Kettle bargain ${++seq}`;
    const created = await admin.request('POST', '/api/v1/admin/bargains', {
      title, goods: 'Kettle', originalPriceCents: 10_000, floorPriceCents: 6_000, cutMinCents: 100, cutMaxCents: 500, minCuts: 1, stock: 3,
      saleStartsAt: new Date(now - minute).toISOString(), saleEndsAt: new Date(now + 30 * minute).toISOString(),
    });
    expect(created.status).toBe(201);
    const name = `bgbuyer${++seq}`;
    const context = await signedInContext(browser, await buyerApi(t.node.app, name), name, 'BUYER');
    const page = await context.newPage();
    const errors = watchConsole(page);
    await page.goto(`${t.baseUrl}/activities`);
    const card = page.locator('[data-testid=activity-card]', { hasText: title });
    await card.waitFor();
    await expect(card.textContent()).resolves.toContain('Bargain');
    await card.getByRole('link').click();
    await page.getByTestId('start-bargain').waitFor();
    await expect(page.getByTestId('bargain-prices').textContent()).resolves.toContain('friends can cut it down to');
    await noSeriousA11yViolations(page, 'bargain page');
    await shot(page, 'bargain');
    await page.getByTestId('start-bargain').click();
    await page.waitForURL(/\/bargain-orders\//);
    const shareLink = await page.getByTestId('share-link').inputValue();
    expect(shareLink).toBe(page.url());
    await expect(page.getByTestId('bargain-order').isDisabled()).resolves.toBe(true);
    await noSeriousA11yViolations(page, 'bargain order (mine)');

    // A friend opens the link signed out, registers on the spot, and cuts once.
    const friendContext = await browser.newContext();
    const friend = await friendContext.newPage();
    await friend.goto(shareLink);
    await friend.getByTestId('join-to-cut').waitFor();
    await noSeriousA11yViolations(friend, 'share page (newcomer)');
    await shot(friend, 'bargain-share');
    await friend.getByLabel('Username').fill(`bgfriend${++seq}`);
    await friend.getByLabel('Password').fill('password-123');
    await friend.getByRole('button', { name: 'Create account' }).click();
    await friend.getByTestId('bargain-cut').click();
    await expect(friend.getByTestId('bargain-notice').textContent()).resolves.toMatch(/^You cut .+ off the price/);
    await friend.getByText('You have cut this price').waitFor();
    expect(friend.url()).toBe(shareLink);
    await friendContext.close();

    await page.reload();
    await page.getByTestId('bargain-status').getByText('Ready: you can order at this price.').waitFor();
    await expect(page.locator('[data-testid=bargain-cuts] li').count()).resolves.toBe(1);
    await page.getByTestId('bargain-order').click();
    await page.waitForURL(/\/orders\//);
    await page.getByTestId('pay').waitFor();
    await noSeriousA11yViolations(page, 'bargain order');
    await page.getByTestId('pay').click();
    await page.getByTestId('order-status').getByText('Status: tickets issued').waitFor({ timeout: 15_000 });

    // 简体中文: the share page, axe-clean.
    await page.getByLabel('Language').selectOption('zh-CN');
    await page.goto(shareLink);
    await page.getByTestId('bargain-status').getByText('已按此价格下单。').waitFor();
    await expect(page.getByTestId('bargain-see-order').textContent()).resolves.toBe('查看我的订单');
    await noSeriousA11yViolations(page, 'bargain order zh-CN');
    expect(errors.filter((e) => !/Failed to load resource/.test(e))).toEqual([]);
    await context.close();
  });

  it('lets an organizer create a bargain, edit it and take it offline', async () => {
    const context = await signedInContext(browser, admin, 'admin', 'ADMIN');
    const page = await context.newPage();
    await page.goto(`${t.baseUrl}/admin/campaigns`);
    await page.getByTestId('new-bargain').click();
    await page.getByLabel('Title').fill('Organizer bargain');
    await page.getByLabel('Goods').fill('Teapot');
    await noSeriousA11yViolations(page, 'create bargain');
    await page.getByTestId('create-bargain').click();
    await page.waitForURL(/\/bargains\//);
    await expect(page.getByTestId('bargain-left').textContent()).resolves.toBe('10 of 10 left');
    const bargainId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop() ?? '');

    await page.goto(`${t.baseUrl}/admin/campaigns`);
    const card = page.locator('[data-testid=campaign-card]', { has: page.locator(`a[href="/bargains/${bargainId}"]`) });
    await card.waitFor();
    await card.getByLabel('Title').fill('Organizer bargain, renamed');
    await card.getByRole('button', { name: 'Save changes' }).click();
    await card.getByTestId('campaign-notice').getByText('Saved.').waitFor();
    await card.getByTestId('toggle-offline').click();
    await card.getByTestId('campaign-status').getByText('Offline').waitFor();
    await noSeriousA11yViolations(page, 'campaigns with a bargain');
    const [download] = await Promise.all([page.waitForEvent('download'), card.getByTestId('download-orders').click()]);
    expect(download.suggestedFilename()).toBe(`bargain-${bargainId}-orders.csv`);
    const detail = await admin.request('GET', `/api/v1/activities/${bargainId}`);
    expect(detail.body).toMatchObject({ kind: 'BARGAIN', title: 'Organizer bargain, renamed', status: 'OFFLINE' });
    await context.close();
  });
});
