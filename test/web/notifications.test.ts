import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, createShow, type ApiClient } from '../support/api-client.js';
import { adminCredentials, startTestNode, type TestNode } from '../support/backend.js';
import { eventually } from '../support/wait.js';
import { buyerApi, ensureWebBuilt, hasChromium, launch, noSeriousA11yViolations, shot, signedInContext, watchConsole } from './browser.js';

let t: TestNode & { baseUrl: string };
let browser: Browser;
let admin: ApiClient;

/** Issue 25 item 7 and issue 26 item 5 in the browser: a buyer's notifications (badge, page, email address, language), an organizer's audit log. */
describe.skipIf(!hasChromium)('web front end: notifications and the audit log', () => {
  beforeAll(async () => {
    ensureWebBuilt();
    [t, browser] = await Promise.all([startTestNode({ env: { TICKETRUSH_RATE_LIMITS: 'off' } }), launch()]);
    admin = await adminClient(t.node.app);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('a buyer sees the badge and the confirmation of a paid order in Chinese, sets an address; the language chosen reaches the server', async () => {
    const showId = await createShow(admin);
    const api = await buyerApi(t.node.app, 'webnotify1');
    const hold = await api.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-1-1'] });
    const order = await api.request('POST', '/api/v1/orders', { holdId: hold.body.holdId }, { 'x-idempotency-key': 'web-notify-1' });
    await api.request('POST', `/api/v1/orders/${order.body.orderId}/sandbox-pay`, { outcome: 'SUCCEEDED' });
    await eventually(async () => ((await api.request('GET', '/api/v1/me/notifications')).body.unread === 1 ? true : undefined), 10_000, 'the notification');

    const context = await signedInContext(browser, api, 'webnotify1', 'BUYER', { locale: 'zh-CN' });
    const page = await context.newPage();
    const errors = watchConsole(page);
    await page.goto(`${t.baseUrl}/`);
    const badge = page.getByTestId('nav-notifications');
    await badge.filter({ hasText: '通知（1 条新）' }).waitFor({ timeout: 10_000 });
    await badge.click();
    const item = page.getByTestId('notification').first();
    await item.waitFor();
    await expect(item.textContent()).resolves.toContain('订单已确认，门票已出票');
    await expect(item.getByRole('link', { name: '查看订单' }).getAttribute('href')).resolves.toBe(`/orders/${order.body.orderId}`);
    // Opened: read; the badge goes back to plain.
    await badge.filter({ hasText: /^通知$/ }).waitFor({ timeout: 10_000 });
    await page.getByLabel('通知邮箱').fill('webnotify1@example.com');
    await page.getByRole('button', { name: '保存' }).click();
    await page.getByTestId('email-result').filter({ hasText: '已保存' }).waitFor();
    await noSeriousA11yViolations(page, 'notifications zh-CN');
    await shot(page, 'notifications-zh-CN');
    expect((await api.request('GET', '/api/v1/me/preferences')).body).toEqual({ language: 'zh-CN', email: 'webnotify1@example.com' });
    // Choosing English in the header tells the server (emails follow it).
    await page.getByLabel('语言').selectOption('en');
    await eventually(async () => ((await api.request('GET', '/api/v1/me/preferences')).body.language === 'en' ? true : undefined), 5_000, 'language synced');
    await page.getByLabel('Email for notifications').fill('not an address');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByTestId('email-result').filter({ hasText: 'That is not an email address.' }).waitFor();
    expect(errors.filter((e) => !/status of 400/.test(e))).toEqual([]);
    await context.close();
  }, 120_000);

  it('an organizer reads the audit log and filters it', async () => {
    const showId = await createShow(admin);
    await admin.request('PATCH', `/api/v1/admin/shows/${showId}`, { title: 'Audited Show' });
    const context = await signedInContext(browser, admin, adminCredentials.username, 'ADMIN');
    const page = await context.newPage();
    const errors = watchConsole(page);
    await page.goto(`${t.baseUrl}/admin`);
    await page.getByTestId('audit-log-link').click();
    await page.getByTestId('audit-log').waitFor();
    await page.getByLabel('Id').fill(showId);
    await page.getByRole('button', { name: 'Filter' }).click();
    const rows = page.getByTestId('audit-entry');
    // The unfiltered list may still be on screen right after the click: wait for the filtered one.
    await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(2);
    // Who by name and what in words (issue 35 item 9), not a user id and `show.edited`.
    await expect(rows.first().getByTestId('audit-action').textContent()).resolves.toBe('Show edited');
    await expect(rows.first().getByTestId('audit-actor').textContent()).resolves.toBe(`${adminCredentials.username} (Organizer)`);
    await expect(rows.first().textContent()).resolves.toContain('Title: Test Show → Audited Show');
    await noSeriousA11yViolations(page, 'audit log');
    await shot(page, 'audit-log');
    await page.getByLabel('Language').selectOption('zh-CN');
    await rows.first().getByTestId('audit-action').getByText('编辑演出').waitFor();
    await rows.first().getByText('标题：Test Show → Audited Show').waitFor();
    await rows.last().getByTestId('audit-action').getByText('创建演出').waitFor();
    await page.getByRole('option', { name: '秒杀' }).waitFor({ state: 'attached' });
    await noSeriousA11yViolations(page, 'audit log zh-CN');
    await page.getByLabel('语言').selectOption('en');
    await page.getByLabel('Id').fill('shw_nothing');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByTestId('audit-empty').waitFor();
    expect(errors).toEqual([]);
    await context.close();
  }, 120_000);
});
