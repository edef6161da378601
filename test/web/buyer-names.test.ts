import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { ApiClient, createShow } from '../support/api-client.js';
import type { TestNode } from '../support/backend.js';
import { eventually } from '../support/wait.js';
import { buyerApi, hasChromium, noSeriousA11yViolations, signedInContext, watchConsole } from './browser.js';
import { withBrowserNode } from './browser-node.js';

/**
 * Issue 35 item 13: the buyer's waitlist cards and notifications name the show, and "My tickets"
 * offers one link per order that says which order it is (three orders of one show used to read as
 * three identical "Download tickets for Newcomer Gala" links). Both languages, axe-clean.
 */
let t: TestNode & { baseUrl: string };
let browser: Browser;
let admin: ApiClient;
let seq = 0;

describe.skipIf(!hasChromium)('web front end: the buyer\'s pages name the show (issue 35)', () => {
  withBrowserNode((opened) => ({ t, browser, admin } = opened));

  it('names the show on waitlist cards, notifications and per-order ticket links, in en and zh-CN', async () => {
    const showId = await createShow(admin, { sections: [{ id: 'A', name: 'Stalls', rows: 1, seatsPerRow: 3, priceCents: 5000 }] });
    expect((await admin.request('PATCH', `/api/v1/admin/shows/${showId}`, { title: 'Newcomer Gala' })).status).toBe(200);
    const username = `names${++seq}`;
    const buyer = await buyerApi(t.node.app, username);
    const orders: string[] = [];
    for (const seat of ['A-1-1', 'A-1-2', 'A-1-3']) {
      const hold = await buyer.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: [seat] });
      const order = (await buyer.request('POST', '/api/v1/orders', { holdId: hold.body.holdId }, { 'x-idempotency-key': `names-${seat}` })).body;
      await buyer.request('POST', `/api/v1/orders/${order.orderId}/sandbox-pay`, { outcome: 'SUCCEEDED' });
      orders.push(order.orderId as string);
    }
    for (const orderId of orders) await eventually(async () => ((await buyer.request('GET', `/api/v1/orders/${orderId}`)).body.status === 'TICKETED' ? true : undefined));
    // The show is sold out now: a second buyer waits for a seat.
    const waiterName = `waiter${++seq}`;
    const waiter = await buyerApi(t.node.app, waiterName);
    expect((await waiter.request('POST', `/api/v1/shows/${showId}/waitlist`, { quantity: 1 })).status).toBe(201);
    await eventually(async () => ((await buyer.request('GET', '/api/v1/me/notifications?limit=20')).body.notifications.length >= 3 ? true : undefined));

    const words = {
      en: { link: 'Download tickets for Newcomer Gala: Stalls, row 1, seat', waitlist: 'Newcomer Gala: waitlist for 1 seat' },
      'zh-CN': { link: '下载《Newcomer Gala》的电子票：', waitlist: 'Newcomer Gala：候补 1 个座位' },
    };
    for (const [locale, w] of Object.entries(words)) {
      const context = await signedInContext(browser, buyer, username, 'BUYER', { locale });
      const errors = watchConsole(context);
      const page = await context.newPage();
      await page.goto(`${t.baseUrl}/tickets`);
      await page.getByTestId('ticket').first().waitFor();
      const links = await page.getByTestId('tickets-pdf').allTextContents();
      expect(links).toHaveLength(3);
      expect(new Set(links).size).toBe(3);
      for (const text of links) expect(text).toContain(w.link);
      await noSeriousA11yViolations(page, `my tickets ${locale}`);
      await page.goto(`${t.baseUrl}/notifications`);
      await page.getByTestId('notification-show').first().getByText('Newcomer Gala').waitFor();
      expect(await page.getByTestId('notification-show').count()).toBe(await page.getByTestId('notification').count());
      await noSeriousA11yViolations(page, `notifications ${locale}`);
      await context.close();

      const waiting = await signedInContext(browser, waiter, waiterName, 'BUYER', { locale });
      const waitPage = await waiting.newPage();
      const waitErrors = watchConsole(waiting);
      await waitPage.goto(`${t.baseUrl}/waitlist`);
      await waitPage.getByTestId('waitlist-entry').getByRole('heading', { name: w.waitlist }).waitFor();
      await noSeriousA11yViolations(waitPage, `my waitlist ${locale}`);
      await waiting.close();
      expect([...errors, ...waitErrors]).toEqual([]);
    }
  }, 90_000);
});
