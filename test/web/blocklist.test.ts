import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createShow, type ApiClient } from '../support/api-client.js';
import { adminCredentials, type TestNode } from '../support/backend.js';
import { buyerApi, hasChromium, noSeriousA11yViolations, shot, signedInContext, watchConsole } from './browser.js';
import { withBrowserNode } from './browser-node.js';

/** Issue 35 item 9: the blocklist is managed from /admin (it was reachable only through the API). */
let t: TestNode & { baseUrl: string };
let browser: Browser;
let admin: ApiClient;

describe.skipIf(!hasChromium)('web front end: the blocklist page (issue 35)', () => {
  withBrowserNode((opened) => ({ t, browser, admin } = opened));

  it('an organizer blocks a buyer from /admin, sees the entry in en and zh-CN, and lifts it', async () => {
    const showId = await createShow(admin);
    const buyer = await buyerApi(t.node.app, 'blockme1');
    const context = await signedInContext(browser, admin, adminCredentials.username, 'ADMIN');
    const errors = watchConsole(context);
    const page = await context.newPage();
    await page.goto(`${t.baseUrl}/admin`);
    await page.getByTestId('manage-blocklist').click();
    await page.getByTestId('no-blocks').getByText('Nobody is blocked.').waitFor();
    await page.getByLabel('Username').fill('blockme1');
    await page.getByLabel('Reason (admins only)').fill('Bot traffic');
    await page.getByRole('button', { name: 'Add to blocklist' }).click();
    const row = page.getByTestId('block-row').filter({ hasText: 'blockme1' });
    await row.getByText('Bot traffic').waitFor();
    await row.getByText('Until lifted').waitFor();
    await noSeriousA11yViolations(page, 'blocklist');
    await shot(page, 'blocklist-en');
    const refused = await buyer.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-1-1'] });
    expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 403, code: 'BLOCKED' });

    await page.getByLabel('Language').selectOption('zh-CN');
    await page.getByRole('heading', { name: '黑名单' }).waitFor();
    await row.getByText('直到解除').waitFor();
    await noSeriousA11yViolations(page, 'blocklist zh-CN');
    await page.getByRole('button', { name: '解除对 blockme1 的封禁' }).click();
    await page.getByTestId('no-blocks').getByText('当前没有封禁。').waitFor();
    expect((await admin.request('GET', '/api/v1/admin/blocklist')).body.entries).toEqual([]);
    expect((await buyer.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-1-1'] })).status).toBe(201);
    await page.getByLabel('语言').selectOption('en');
    await context.close();
    expect(errors).toEqual([]);
  }, 60_000);
});
