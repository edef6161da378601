import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, ApiClient, createShow } from '../support/api-client.js';
import { startTestNode, type TestNode } from '../support/backend.js';
import { buyerApi, clickSeat, ensureWebBuilt, hasChromium, launch, noSeriousA11yViolations, shot, signedInContext } from './browser.js';

let t: TestNode & { baseUrl: string };
let browser: Browser;
let admin: ApiClient;

describe.skipIf(!hasChromium)('web front end: discount codes and order contact', () => {
  beforeAll(async () => {
    ensureWebBuilt();
    [t, browser] = await Promise.all([startTestNode(), launch()]);
    admin = await adminClient(t.node.app);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('the organizer creates and disables a code; a buyer (简体中文) checks out with a contact and the code', async () => {
    const showId = await createShow(admin);
    const organizer = await signedInContext(browser, admin, 'admin', 'ADMIN');
    const page = await organizer.newPage();
    await page.goto(`${t.baseUrl}/admin/discounts`);
    await page.getByLabel('Discount code').fill('WEB20');
    await page.getByLabel('Percent off').fill('20');
    await page.getByRole('button', { name: 'Create discount code' }).click();
    await page.getByTestId('discount-WEB20').waitFor();
    await page.getByLabel('Discount code').fill('GONE');
    await page.getByRole('button', { name: 'Create discount code' }).click();
    await page.getByTestId('disable-GONE').click();
    await page.getByTestId('discount-GONE').getByText('Disabled').waitFor();
    await shot(page, 'organizer-discounts');
    await noSeriousA11yViolations(page, 'discounts page');

    const buyer = await buyerApi(t.node.app, 'webdiscount');
    const context = await signedInContext(browser, buyer, 'webdiscount', 'BUYER', { locale: 'zh-CN' });
    const shop = await context.newPage();
    await shop.goto(`${t.baseUrl}/shows/${showId}`);
    await shop.getByRole('application').waitFor();
    await clickSeat(shop, 'A-1-1');
    await shop.getByTestId('hold-selected').click();
    await shop.getByTestId('hold-countdown').waitFor();
    await shop.getByLabel('姓名').fill('王小明');
    await shop.getByLabel('电话').fill('13800000000');
    await shop.getByLabel('邮箱').fill('xm@example.com');
    // A disabled code is refused in the buyer's language; the corrected one goes through.
    await shop.getByLabel('优惠码').fill('gone');
    await shop.getByTestId('checkout').click();
    await shop.getByText('优惠码不存在。').waitFor();
    await shop.getByLabel('优惠码').fill('web20');
    await shop.getByTestId('checkout').click();
    await shop.getByTestId('order-discount').waitFor();
    await expect(shop.getByTestId('order-discount').textContent()).resolves.toContain('WEB20');
    await expect(shop.getByTestId('order-contact').textContent()).resolves.toContain('王小明');
    await shot(shop, 'order-with-discount-zh');
    await organizer.close();
    await context.close();
  }, 60_000);
});
