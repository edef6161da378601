import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, ApiClient } from '../support/api-client.js';
import { adminCredentials, startTestNode, type TestNode } from '../support/backend.js';
import { eventually } from '../support/wait.js';
import { buyerApi, ensureWebBuilt, hasChromium, launch, noSeriousA11yViolations, shot, signedInContext, watchConsole } from './browser.js';

let t: TestNode & { baseUrl: string };
let browser: Browser;
let admin: ApiClient;
let seq = 0;

/** A show starting in 10 days whose buyers may refund until 24 h before. */
async function refundableShow(): Promise<string> {
  const now = Date.now();
  const reply = await admin.request('POST', '/api/v1/admin/shows', {
    title: 'Refundable', venue: 'Hall', city: 'Shanghai', refundUntilHoursBefore: 24,
    startsAt: new Date(now + 10 * 86_400_000).toISOString(), saleStartsAt: new Date(now - 60_000).toISOString(), saleEndsAt: new Date(now + 5 * 86_400_000).toISOString(),
    seatMap: { sections: [{ id: 'A', name: 'Stalls', rows: 2, seatsPerRow: 5, priceCents: 5000 }] },
  });
  expect(reply.status).toBe(201);
  return reply.body.showId as string;
}

/** A buyer's order of these seats, paid through the sandbox and ticketed. */
async function ticketed(showId: string, seatIds: string[]): Promise<{ api: ApiClient; username: string; orderId: string }> {
  const username = `webrefund${++seq}`;
  const api = await buyerApi(t.node.app, username);
  const hold = await api.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds });
  const order = (await api.request('POST', '/api/v1/orders', { holdId: hold.body.holdId }, { 'x-idempotency-key': `w${++seq}` })).body;
  await api.request('POST', `/api/v1/orders/${order.orderId}/sandbox-pay`, { outcome: 'SUCCEEDED' });
  await eventually(async () => ((await api.request('GET', `/api/v1/orders/${order.orderId}`)).body.status === 'TICKETED' ? true : undefined));
  return { api, username, orderId: order.orderId as string };
}

describe.skipIf(!hasChromium)('web front end: refunds and show cancellation (issue 25)', () => {
  beforeAll(async () => {
    ensureWebBuilt();
    [t, browser] = await Promise.all([startTestNode(), launch()]);
    admin = await adminClient(t.node.app);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('a buyer refunds a chosen ticket from the order page (policy shown, en and zh-CN); an organizer cancels the show and watches every order refunded', async () => {
    const showId = await refundableShow();
    const buyer = await ticketed(showId, ['A-1-1', 'A-1-2']);
    const other = await ticketed(showId, ['A-2-1']);

    const context = await signedInContext(browser, buyer.api, buyer.username, 'BUYER');
    const errors = watchConsole(context);
    const page = await context.newPage();
    await page.goto(`${t.baseUrl}/orders/${buyer.orderId}`);
    await page.getByTestId('refund-policy').getByText('You can refund until').waitFor();
    const first = (await buyer.api.request('GET', `/api/v1/orders/${buyer.orderId}`)).body.tickets[0].ticketId as string;
    // Each ticket says what refunding it gives back (its paid price).
    await page.getByTestId(`refund-amount-${first}`).getByText('50.00').waitFor();
    await page.getByTestId(`refund-pick-${first}`).check();
    await page.getByTestId('refund-selected').click();
    await page.locator('[data-testid="refund-row"][data-status="REFUNDED"]').waitFor();
    await page.getByTestId('refunded-so-far').getByText('50.00').waitFor();
    await noSeriousA11yViolations(page, 'order page with a refund');
    await shot(page, 'refund-order-en');
    const after = (await buyer.api.request('GET', `/api/v1/orders/${buyer.orderId}`)).body;
    expect(after).toMatchObject({ status: 'TICKETED', refundedCents: 5000 });

    const zh = await signedInContext(browser, buyer.api, buyer.username, 'BUYER', { locale: 'zh-CN' });
    const zhPage = await zh.newPage();
    await zhPage.goto(`${t.baseUrl}/orders/${buyer.orderId}`);
    await zhPage.getByRole('heading', { name: '退票' }).waitFor();
    await zhPage.getByTestId('refund-policy').getByText('之前退票').waitFor();
    await zhPage.locator('[data-testid="refund-row"]').getByText('已退款').waitFor();
    await zh.close();

    const organizer = await signedInContext(browser, admin, adminCredentials.username, 'ADMIN');
    const orgErrors = watchConsole(organizer);
    const orgPage = await organizer.newPage();
    orgPage.on('dialog', (d) => void d.accept());
    await orgPage.goto(`${t.baseUrl}/admin/shows/${showId}`);
    await orgPage.getByTestId('cancel-reason').fill('Storm warning');
    await orgPage.getByTestId('cancel-show-submit').click();
    await orgPage.getByTestId('cancel-done').waitFor({ timeout: 15_000 });
    await noSeriousA11yViolations(orgPage, 'cancelled show');
    await shot(orgPage, 'cancel-show-en');
    for (const { api, orderId } of [buyer, other]) {
      expect((await api.request('GET', `/api/v1/orders/${orderId}`)).body.status).toBe('REFUNDED');
    }
    await context.close();
    await organizer.close();
    expect([...errors, ...orgErrors]).toEqual([]);
  }, 60_000);
});
