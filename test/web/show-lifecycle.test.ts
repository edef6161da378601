import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { ApiClient, createShow } from '../support/api-client.js';
import { adminCredentials, type TestNode } from '../support/backend.js';
import { eventually } from '../support/wait.js';
import { buyerApi, hasChromium, noSeriousA11yViolations, shot, signedInContext, watchConsole } from './browser.js';
import { withBrowserNode } from './browser-node.js';

/**
 * Issue 35 items 2, 14 and what-to-build 2: a cancelled or sold-out show reads the same on the
 * home page, /activities and its own page, in both languages; the refund and exchange policy is
 * set in the organizer's forms, read by buyers before they buy, and gates the order page's buttons.
 */
let t: TestNode & { baseUrl: string };
let browser: Browser;
let admin: ApiClient;
let seq = 0;

const tiny = [{ id: 'A', name: 'Stalls', rows: 1, seatsPerRow: 2, priceCents: 5000 }];

async function retitle(showId: string, title: string): Promise<void> {
  expect((await admin.request('PATCH', `/api/v1/admin/shows/${showId}`, { title })).status).toBe(200);
}

/** A buyer's ticketed order of these seats (sandbox payment). */
async function ticketed(showId: string, seatIds: string[]): Promise<{ api: ApiClient; username: string; orderId: string }> {
  const username = `lifecycle${++seq}`;
  const api = await buyerApi(t.node.app, username);
  const hold = await api.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds });
  const order = (await api.request('POST', '/api/v1/orders', { holdId: hold.body.holdId }, { 'x-idempotency-key': `lc${++seq}` })).body;
  await api.request('POST', `/api/v1/orders/${order.orderId}/sandbox-pay`, { outcome: 'SUCCEEDED' });
  await eventually(async () => ((await api.request('GET', `/api/v1/orders/${order.orderId}`)).body.status === 'TICKETED' ? true : undefined));
  return { api, username, orderId: order.orderId as string };
}

const card = (page: Page, testId: string, title: string) => page.getByTestId(testId).filter({ has: page.getByRole('heading', { name: title }) });

describe.skipIf(!hasChromium)('web front end: cancelled and sold-out shows, refund and exchange policy (issue 35)', () => {
  withBrowserNode((opened) => ({ t, browser, admin } = opened));

  it('a cancelled show reads Cancelled with its reason and a full one Sold out, on the home page, /activities and its page, in en and zh-CN', async () => {
    const cancelled = await createShow(admin, { sections: tiny });
    await retitle(cancelled, 'Storm Night');
    const full = await createShow(admin, { sections: tiny });
    await retitle(full, 'Full House');
    const holder = await buyerApi(t.node.app, `holder${++seq}`);
    expect((await holder.request('POST', `/api/v1/shows/${full}/holds`, { seatIds: ['A-1-1', 'A-1-2'] })).status).toBe(201);
    expect((await admin.request('POST', `/api/v1/admin/shows/${cancelled}/cancel`, { reason: 'Storm warning' })).status).toBe(202);

    const words = {
      en: { cancelled: 'Cancelled', soldOut: 'Sold out', reason: 'Cancelled: Storm warning', notice: 'This show is cancelled: Storm warning.' },
      'zh-CN': { cancelled: '已取消', soldOut: '已售罄', reason: '已取消：Storm warning', notice: '本场演出已取消：Storm warning。' },
    };
    for (const [locale, w] of Object.entries(words)) {
      const context = await browser.newContext({ locale });
      const errors = watchConsole(context);
      const page = await context.newPage();
      await page.goto(`${t.baseUrl}/`);
      await card(page, 'show-card', 'Storm Night').getByTestId('show-status').getByText(w.cancelled, { exact: true }).waitFor();
      await card(page, 'show-card', 'Storm Night').getByTestId('cancel-reason').getByText(w.reason).waitFor();
      await card(page, 'show-card', 'Full House').getByTestId('show-status').getByText(w.soldOut, { exact: true }).waitFor();
      await noSeriousA11yViolations(page, `home with a cancelled show ${locale}`);

      await page.goto(`${t.baseUrl}/activities`);
      await card(page, 'activity-card', 'Storm Night').getByTestId('activity-status').getByText(w.cancelled, { exact: true }).waitFor();
      await card(page, 'activity-card', 'Storm Night').getByTestId('cancel-reason').getByText(w.reason).waitFor();
      await card(page, 'activity-card', 'Full House').getByTestId('activity-status').getByText(w.soldOut, { exact: true }).waitFor();
      await noSeriousA11yViolations(page, `activities with a cancelled show ${locale}`);
      await shot(page, `activities-cancelled-${locale}`);

      // The show's own page: the notice and its reason, no seat map saying every seat is free.
      await page.goto(`${t.baseUrl}/shows/${cancelled}`);
      await page.getByTestId('show-cancelled').getByText(w.notice).waitFor();
      expect(await page.getByTestId('seat-counts').count()).toBe(0);
      expect(await page.getByRole('application').count()).toBe(0);
      await noSeriousA11yViolations(page, `cancelled show page ${locale}`);
      await context.close();
      expect(errors).toEqual([]);
    }
  }, 60_000);

  it('the organizer sets the policy in the create and edit forms; buyers read it before buying, and the order page offers only what it allows', async () => {
    const organizer = await signedInContext(browser, admin, adminCredentials.username, 'ADMIN', { timezoneId: 'Asia/Shanghai' });
    const orgErrors = watchConsole(organizer);
    const page = await organizer.newPage();
    await page.goto(`${t.baseUrl}/admin/new`);
    await page.getByLabel('Title').fill('Policy Night');
    await page.getByLabel('Venue').fill('Hall');
    await page.getByLabel('City').fill('Hangzhou');
    await page.getByLabel(/^Refunds until/).fill('48');
    await page.getByLabel(/^Exchanges until/).fill('24');
    await noSeriousA11yViolations(page, 'create show with policy');
    await page.getByTestId('save-show').click();
    await page.waitForURL(/\/admin\/shows\/[^/]+$/);
    const showId = page.url().split('/').at(-1) as string;
    expect((await admin.request('GET', `/api/v1/shows/${showId}`)).body).toMatchObject({ refundUntilHoursBefore: 48, exchangeUntilHoursBefore: 24 });
    // The edit form shows the stored policy; emptying a field takes it away.
    await page.getByText('Edit show').click();
    await expect(page.getByTestId('edit-refund-hours').inputValue()).resolves.toBe('48');
    await page.getByTestId('edit-exchange-hours').fill('');
    await page.getByTestId('save-edit').click();
    await page.getByTestId('edit-message').getByText('Changes saved.').waitFor();
    expect((await admin.request('GET', `/api/v1/shows/${showId}`)).body).toMatchObject({ refundUntilHoursBefore: 48, exchangeUntilHoursBefore: null });
    await organizer.close();
    expect(orgErrors).toEqual([]);

    const buyer = await ticketed(showId, ['A-1-1']);
    const words = {
      en: { refund: 'Refunds until', hours: '48 hours before the show', noExchange: 'This show offers no exchanges by the buyer.', place: 'Hall, Hangzhou' },
      // City and venue apart in Chinese too (issue 35 item 8: "HangzhouHall").
      'zh-CN': { refund: '之前可退票', hours: '开演前 48 小时', noExchange: '本场演出不支持购票人自行改签。', place: 'Hangzhou · Hall' },
    };
    for (const [locale, w] of Object.entries(words)) {
      const context = await signedInContext(browser, buyer.api, buyer.username, 'BUYER', { locale });
      const errors = watchConsole(context);
      const buyerPage = await context.newPage();
      await buyerPage.goto(`${t.baseUrl}/shows/${showId}`);
      await buyerPage.getByTestId('show-refund-policy').getByText(w.refund).waitFor();
      await buyerPage.getByTestId('show-refund-policy').getByText(w.hours).waitFor();
      await buyerPage.getByTestId('show-exchange-policy').getByText(w.noExchange).waitFor();
      await noSeriousA11yViolations(buyerPage, `show page policy ${locale}`);
      // The order: refunds offered (the panel and its button), exchanges not (the reason instead).
      await buyerPage.goto(`${t.baseUrl}/orders/${buyer.orderId}`);
      await buyerPage.getByTestId('refund-selected').waitFor();
      await buyerPage.getByTestId('order-show').getByText(w.place).waitFor();
      await buyerPage.getByTestId('exchange-deadline').getByText(w.noExchange).waitFor();
      expect(await buyerPage.getByTestId('exchange-panel').count()).toBe(0);
      await noSeriousA11yViolations(buyerPage, `order page policy ${locale}`);
      await shot(buyerPage, `order-policy-${locale}`);
      await context.close();
      expect(errors).toEqual([]);
    }

    // A show without a policy: neither button, the reason in words.
    const bare = await createShow(admin, { sections: tiny });
    const other = await ticketed(bare, ['A-1-1']);
    const context = await signedInContext(browser, other.api, other.username, 'BUYER', { locale: 'en-US' });
    const bareOrder = await context.newPage();
    await bareOrder.goto(`${t.baseUrl}/orders/${other.orderId}`);
    await bareOrder.getByTestId('refund-closed').getByText('This show offers no refunds by the buyer.').waitFor();
    expect(await bareOrder.getByTestId('refund-panel').count()).toBe(0);
    expect(await bareOrder.getByTestId('exchange-panel').count()).toBe(0);
    await context.close();
  }, 90_000);
});
