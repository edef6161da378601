import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, ApiClient, createShow } from '../support/api-client.js';
import { startTestNode, type TestNode } from '../support/backend.js';
import { buyerApi, ensureWebBuilt, hasChromium, launch, noSeriousA11yViolations, shot, signedInContext } from './browser.js';

let t: TestNode & { baseUrl: string };
let browser: Browser;
let admin: ApiClient;
let seq = 0;

describe.skipIf(!hasChromium)('web front end: the waitlist (候补)', () => {
  beforeAll(async () => {
    ensureWebBuilt();
    [t, browser] = await Promise.all([startTestNode(), launch()]);
    admin = await adminClient(t.node.app);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('joins on a sold-out show, is offered the seat that comes back as a hold with its countdown, pays it, and sees the entry listed; leaves another', async () => {
    const showId = await createShow(admin, { sections: [{ id: 'A', name: 'Stalls', rows: 1, seatsPerRow: 1, priceCents: 5000 }] });
    const holder = await buyerApi(t.node.app, `holder${++seq}`);
    const held = await holder.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-1-1'] });
    expect(held.status).toBe(201);
    const name = `waiter${++seq}`;
    const context = await signedInContext(browser, await buyerApi(t.node.app, name), name, 'BUYER');
    const page = await context.newPage();
    await page.goto(`${t.baseUrl}/shows/${showId}`);
    await page.getByTestId('waitlist-join').click();
    await page.getByTestId('waitlist-status').getByText('You are on the waitlist for 1 seat.').waitFor();
    await noSeriousA11yViolations(page, 'show page with the waitlist');
    await shot(page, 'waitlist-waiting');
    // The holder lets go: the seat goes to the line in the release itself, and the page picks up the offer.
    expect((await holder.request('DELETE', `/api/v1/holds/${held.body.holdId}`)).status).toBe(200);
    await page.getByTestId('hold-countdown').waitFor({ timeout: 10_000 });
    await shot(page, 'waitlist-offered');
    await page.getByTestId('checkout').click();
    await page.getByTestId('order-status').waitFor({ timeout: 10_000 });
    // My waitlist lists the entry (offered, or claimed once paid).
    await page.goto(`${t.baseUrl}/waitlist`);
    const entry = page.getByTestId('waitlist-entry').first();
    await entry.waitFor();
    await expect(entry.textContent()).resolves.toMatch(/Test Show: waitlist for 1 seat(Offered|Claimed)/);

    // Leaving: the join button comes back.
    const other = await createShow(admin, { sections: [{ id: 'A', name: 'Stalls', rows: 1, seatsPerRow: 1, priceCents: 5000 }] });
    expect((await holder.request('POST', `/api/v1/shows/${other}/holds`, { seatIds: ['A-1-1'] })).status).toBe(201);
    await page.goto(`${t.baseUrl}/shows/${other}`);
    await page.getByTestId('waitlist-join').click();
    await page.getByTestId('waitlist-leave').click();
    await page.getByTestId('waitlist-join').waitFor();
    await context.close();
  });

  it('speaks 简体中文', async () => {
    const showId = await createShow(admin, { sections: [{ id: 'A', name: 'Stalls', rows: 1, seatsPerRow: 1, priceCents: 5000 }] });
    const holder = await buyerApi(t.node.app, `holderzh${++seq}`);
    expect((await holder.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-1-1'] })).status).toBe(201);
    const name = `waiterzh${++seq}`;
    const context = await signedInContext(browser, await buyerApi(t.node.app, name), name, 'BUYER', { locale: 'zh-CN' });
    const page = await context.newPage();
    await page.goto(`${t.baseUrl}/shows/${showId}`);
    await page.getByTestId('waitlist-join').getByText('加入候补').click();
    await page.getByTestId('waitlist-status').getByText('您已加入候补，等待 1 个座位。').waitFor();
    await context.close();
  });
});
