import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, ApiClient } from '../support/api-client.js';
import { startTestNode, type TestNode } from '../support/backend.js';
import { eventually } from '../support/wait.js';
import { buyerApi, ensureWebBuilt, hasChromium, launch, signedInContext, watchConsole } from './browser.js';

let t: TestNode & { baseUrl: string };
let browser: Browser;
let admin: ApiClient;

describe.skipIf(!hasChromium)('web front end: exchange 改签 (issue 25 item 4)', () => {
  beforeAll(async () => {
    ensureWebBuilt();
    [t, browser] = await Promise.all([startTestNode(), launch()]);
    admin = await adminClient(t.node.app);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('a buyer exchanges a ticket for a cheaper seat from the order page (en): the difference back shown before confirming; the panel reads in zh-CN', async () => {
    const now = Date.now();
    const created = await admin.request('POST', '/api/v1/admin/shows', {
      title: 'Exchangeable', venue: 'Hall', city: 'Shanghai', exchangeUntilHoursBefore: 24,
      startsAt: new Date(now + 10 * 86_400_000).toISOString(), saleStartsAt: new Date(now - 60_000).toISOString(), saleEndsAt: new Date(now + 5 * 86_400_000).toISOString(),
      seatMap: { sections: [{ id: 'A', name: 'Stalls', rows: 2, seatsPerRow: 5, priceCents: 5000 }, { id: 'B', name: 'Circle', rows: 1, seatsPerRow: 5, priceCents: 3000 }] },
    });
    const showId = created.body.showId as string;
    const username = 'webexchange1';
    const api = await buyerApi(t.node.app, username);
    const hold = await api.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-1-1'] });
    const order = (await api.request('POST', '/api/v1/orders', { holdId: hold.body.holdId }, { 'x-idempotency-key': 'wx1' })).body;
    await api.request('POST', `/api/v1/orders/${order.orderId}/sandbox-pay`, { outcome: 'SUCCEEDED' });
    await eventually(async () => ((await api.request('GET', `/api/v1/orders/${order.orderId}`)).body.status === 'TICKETED' ? true : undefined));

    const zh = await signedInContext(browser, api, username, 'BUYER', { locale: 'zh-CN' });
    const zhPage = await zh.newPage();
    await zhPage.goto(`${t.baseUrl}/orders/${order.orderId}`);
    await zhPage.getByRole('heading', { name: '改签' }).waitFor();
    await zh.close();

    const context = await signedInContext(browser, api, username, 'BUYER');
    const errors = watchConsole(context);
    const page = await context.newPage();
    await page.goto(`${t.baseUrl}/orders/${order.orderId}`);
    await page.getByTestId('exchange-seats').fill('B-1-5');
    await page.getByTestId('exchange-check').click();
    // Before anything is held: 20.00 less, given back to the payment.
    const quote = page.getByTestId('exchange-quote');
    await quote.waitFor();
    expect(await quote.getAttribute('data-difference')).toBe('-2000');
    expect(await quote.textContent()).toContain('goes back');
    await page.getByTestId('exchange-send').click();
    await page.getByTestId('exchange-new-order').waitFor();
    expect(await page.getByTestId('exchange-back').textContent()).toContain('20');
    const old = (await api.request('GET', `/api/v1/orders/${order.orderId}`)).body;
    expect(old.tickets.map((k: { status: string }) => k.status)).toEqual(['INVALID']);
    await page.getByTestId('exchange-new-order').click();
    // The new order names its seat (the order page offers no refund panel, listing seat ids, when the show allows no refund).
    await page.getByTestId('order-lines').getByText('row 1, seat 5').waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });

  it('a buyer exchanges for a dearer seat: the difference to pay shown before confirming, then paid on the new order; the old ticket stays valid until then', async () => {
    const now = Date.now();
    const created = await admin.request('POST', '/api/v1/admin/shows', {
      title: 'Dearer', venue: 'Hall', city: 'Shanghai', exchangeUntilHoursBefore: 24,
      startsAt: new Date(now + 10 * 86_400_000).toISOString(), saleStartsAt: new Date(now - 60_000).toISOString(), saleEndsAt: new Date(now + 5 * 86_400_000).toISOString(),
      seatMap: { sections: [{ id: 'A', name: 'Stalls', rows: 1, seatsPerRow: 5, priceCents: 3000 }, { id: 'B', name: 'Boxes', rows: 1, seatsPerRow: 2, priceCents: 5000 }] },
    });
    const showId = created.body.showId as string;
    const username = 'webexchange2';
    const api = await buyerApi(t.node.app, username);
    const hold = await api.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-1-1'] });
    const order = (await api.request('POST', '/api/v1/orders', { holdId: hold.body.holdId }, { 'x-idempotency-key': 'wx2' })).body;
    await api.request('POST', `/api/v1/orders/${order.orderId}/sandbox-pay`, { outcome: 'SUCCEEDED' });
    await eventually(async () => ((await api.request('GET', `/api/v1/orders/${order.orderId}`)).body.status === 'TICKETED' ? true : undefined));

    const context = await signedInContext(browser, api, username, 'BUYER');
    const errors = watchConsole(context);
    const page = await context.newPage();
    await page.goto(`${t.baseUrl}/orders/${order.orderId}`);
    await page.getByTestId('exchange-seats').fill('B-1-1');
    await page.getByTestId('exchange-check').click();
    const quote = page.getByTestId('exchange-quote');
    await quote.waitFor();
    expect(await quote.getAttribute('data-difference')).toBe('2000');
    await page.getByTestId('exchange-send').click();
    await page.getByTestId('exchange-done').waitFor();
    expect(await page.getByTestId('exchange-done').textContent()).toContain('pay the difference');
    // Nothing swapped yet: the old ticket is still valid.
    expect((await api.request('GET', `/api/v1/orders/${order.orderId}`)).body.tickets.map((k: { status: string }) => k.status)).toEqual(['VALID']);
    const newOrderId = new URL(await page.getByTestId('exchange-new-order').getAttribute('href') ?? '', t.baseUrl).pathname.split('/').pop() ?? '';
    const pending = (await api.request('GET', `/api/v1/orders/${newOrderId}`)).body;
    expect({ status: pending.status, amountCents: pending.amountCents }).toMatchObject({ status: 'PENDING_PAY' });
    // Paid (the sandbox plays the card holder): the swap happens.
    expect((await api.request('POST', `/api/v1/orders/${newOrderId}/sandbox-pay`, { outcome: 'SUCCEEDED' })).status).toBe(202);
    await eventually(async () => ((await api.request('GET', `/api/v1/orders/${newOrderId}`)).body.status === 'TICKETED' ? true : undefined));
    expect((await api.request('GET', `/api/v1/orders/${order.orderId}`)).body.tickets.map((k: { status: string }) => k.status)).toEqual(['INVALID']);
    expect(errors).toEqual([]);
    await context.close();
  });
});
