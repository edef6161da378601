import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, ApiClient, createShow } from '../support/api-client.js';
import { adminCredentials, startTestNode, type TestNode } from '../support/backend.js';
import { postCallback } from '../support/payments.js';
import { eventually } from '../support/wait.js';
import { buyerApi, ensureWebBuilt, hasChromium, launch, noSeriousA11yViolations, shot, signedInContext, watchConsole } from './browser.js';

let t: TestNode & { baseUrl: string };
let browser: Browser;
let admin: ApiClient;
let seq = 0;

/** Every console error of a page, to be empty at the end. */
async function buyStanding(showId: string, quantity: number): Promise<void> {
  const api = await buyerApi(t.node.app, `stand${++seq}`);
  const hold = await api.request('POST', `/api/v1/shows/${showId}/holds`, { section: 'GA', quantity });
  const order = (await api.request('POST', '/api/v1/orders', { holdId: hold.body.holdId }, { 'x-idempotency-key': `k${++seq}` })).body;
  await postCallback(t.node.app, t.node.config.secrets.payment, { paymentId: order.paymentId, orderId: order.orderId, status: 'SUCCEEDED', amountCents: order.amountCents });
  await eventually(async () => ((await api.request('GET', `/api/v1/orders/${order.orderId}`)).body.status === 'TICKETED' ? true : undefined));
}

const organizer = (options: Parameters<Browser['newContext']>[0] = {}): Promise<BrowserContext> =>
  signedInContext(browser, admin, adminCredentials.username, 'ADMIN', { timezoneId: 'Asia/Shanghai', ...options });

describe.skipIf(!hasChromium)('web front end: organizer pages (issue 20)', () => {
  beforeAll(async () => {
    ensureWebBuilt();
    [t, browser] = await Promise.all([startTestNode(), launch()]);
    admin = await adminClient(t.node.app);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('Live sale counts 3 Standing places paid, per section, in English and Chinese, and nothing overflows a phone screen', async () => {
    const showId = await createShow(admin, { sections: [
      { id: 'A', name: 'Stalls', rows: 2, seatsPerRow: 5, priceCents: 50000 },
      { id: 'GA', name: 'Standing', kind: 'GENERAL_ADMISSION', capacity: 50, priceCents: 9900 },
    ] });
    await buyStanding(showId, 3);
    for (const [locale, sold] of [['en-US', 'Sold'], ['zh-CN', '已售']] as const) {
      const context = await organizer({ locale, viewport: { width: 360, height: 740 } });
      const page = await context.newPage();
      const errors = watchConsole(page);
      await page.goto(`${t.baseUrl}/admin/shows/${showId}`);
      await page.getByTestId('section-sold-GA').getByText('3').waitFor();
      await expect(page.getByTestId('stat-sold').textContent()).resolves.toBe(`${sold}3`);
      await expect(page.getByTestId('section-money-GA').textContent()).resolves.toMatch(/297\.00/);
      await expect(page.getByTestId('stat-money').textContent()).resolves.toMatch(/297\.00/);
      await expect(page.getByTestId('section-sold-A').textContent()).resolves.toBe('0');
      // The money figure stays inside its card on a 360 px screen.
      const overflow = await page.getByTestId('stat-money').evaluate((el) => el.scrollWidth - el.clientWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
      await shot(page, `organizer-live-ga-${locale}`);
      await noSeriousA11yViolations(page, `live sale ${locale}`);
      expect(errors).toEqual([]);
      await context.close();
    }
  });

  it('creates a show in EUR with dates in a named time zone, goes to it, edits it, and the buyer\'s card shows picture, price and words', async () => {
    const context = await organizer();
    const page = await context.newPage();
    const errors = watchConsole(page);
    await page.goto(`${t.baseUrl}/admin/new`);
    await expect(page.getByTestId('time-zone').textContent()).resolves.toContain('Asia/Shanghai');
    await page.getByLabel('Show starts (Asia/Shanghai)').waitFor();
    await page.getByLabel('Title').fill('Euro Night');
    await page.getByLabel('Venue').fill('Hall');
    await page.getByLabel('City').fill('Lyon');
    await page.getByLabel('Currency').selectOption('EUR');
    await expect(page.getByRole('columnheader', { name: 'Price (EUR)' }).count()).resolves.toBe(1);
    await page.getByTestId('save-show').click();
    await page.waitForURL(/\/admin\/shows\/[^/]+$/);
    const showId = page.url().split('/').at(-1) as string;
    await page.getByTestId('stat-money').getByText('€0.00').waitFor();

    await page.getByText('Edit show').click();
    await page.getByLabel('Title').fill('Euro Night (late)');
    await page.getByLabel('Description').fill('Chansons until midnight.');
    await page.getByLabel('Picture (https address)').fill('https://example.invalid/euro.png');
    await page.getByTestId('save-edit').click();
    await page.getByTestId('edit-message').getByText('Changes saved.').waitFor();
    await page.getByRole('heading', { name: 'Live sale: Euro Night (late)' }).waitFor();
    // A refusal reads as such and changes nothing.
    await page.getByLabel('Sale closes (Asia/Shanghai)').fill('2001-01-01T10:00');
    await page.getByTestId('save-edit').click();
    await page.getByRole('alert').waitFor();
    expect((await admin.request('GET', `/api/v1/shows/${showId}`)).body).toMatchObject({ title: 'Euro Night (late)', currency: 'EUR', description: 'Chansons until midnight.' });
    await noSeriousA11yViolations(page, 'live sale with edit form');

    const buyer = await browser.newContext({ locale: 'en-US' });
    const list = await buyer.newPage();
    // The picture's host does not resolve: the browser's own load error is not the page's.
    await list.route('https://example.invalid/**', (route) => route.fulfill({ status: 200, contentType: 'image/svg+xml', body: '<svg xmlns="http://www.w3.org/2000/svg" width="16" height="9"/>' }));
    const listErrors = watchConsole(list);
    await list.goto(`${t.baseUrl}/`);
    const card = list.locator('[data-testid=show-card]', { hasText: 'Euro Night (late)' });
    await card.waitFor();
    const image = card.getByRole('img', { name: 'Euro Night (late)' });
    expect(await image.getAttribute('loading')).toBe('lazy');
    expect([await image.getAttribute('width'), await image.getAttribute('height')]).toEqual(['320', '180']);
    await expect(card.getByTestId('lowest-price').textContent()).resolves.toBe('From €180.00');
    await expect(card.textContent()).resolves.toContain('Chansons until midnight.');
    await noSeriousA11yViolations(list, 'show list with pictures');
    expect(listErrors).toEqual([]);
    expect(errors.filter((e) => !/409/.test(e))).toEqual([]);
    await buyer.close();
    await context.close();
  });

  it('organizer cards label their capacity; the users page grants and withdraws door staff, in both languages', async () => {
    await createShow(admin);
    const name = `doorfolk${++seq}`;
    await new ApiClient(t.node.app).signUp(name);
    for (const locale of ['en-US', 'zh-CN'] as const) {
      const context = await organizer({ locale });
      const page = await context.newPage();
      const errors = watchConsole(page);
      await page.goto(`${t.baseUrl}/admin`);
      await expect(page.getByTestId('organizer-capacity').first().textContent()).resolves.toMatch(locale === 'en-US' ? /^Capacity \d/ : /^容量 \d/);
      await page.getByTestId('manage-users').click();
      await page.waitForURL(`${t.baseUrl}/admin/users`);
      await page.locator('#user-search').fill(name.toUpperCase());
      const row = page.getByTestId(`user-${name}`);
      await row.waitFor();
      if (locale === 'en-US') {
        await page.getByRole('button', { name: `Make ${name} door staff` }).click();
        // Exact: the button's own "Make door staff" must not count as the new role.
        await row.getByText('Door staff', { exact: true }).waitFor();
        await expect.poll(async () => (await admin.request('GET', `/api/v1/admin/users?q=${name}`)).body.users[0].role).toBe('STAFF');
        await noSeriousA11yViolations(page, 'users page');
      } else {
        await page.getByRole('button', { name: `撤销 ${name} 的检票员角色` }).click();
        await row.getByText('购票者', { exact: true }).waitFor();
        await expect.poll(async () => (await admin.request('GET', `/api/v1/admin/users?q=${name}`)).body.users[0].role).toBe('BUYER');
        await shot(page, 'organizer-users-zh');
      }
      expect(errors).toEqual([]);
      await context.close();
    }
  });
});
