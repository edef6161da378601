import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, ApiClient, createShow } from '../support/api-client.js';
import { adminCredentials, startTestNode, type TestNode } from '../support/backend.js';
import { eventually } from '../support/wait.js';
import { buyerApi, noSeriousA11yViolations, ensureWebBuilt, hasChromium, launch, shot, signedInContext } from './browser.js';

let t: TestNode & { baseUrl: string };
let browser: Browser;
let admin: ApiClient;
let seq = 0;

/** A paid, ticketed seat: the QR a buyer would show at the door. */
async function ticket(showId: string, seatId: string): Promise<{ ticketId: string; qr: string; owner: ApiClient }> {
  const owner = await buyerApi(t.node.app, `holder${++seq}`);
  const hold = await owner.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: [seatId] });
  const order = await owner.request('POST', '/api/v1/orders', { holdId: hold.body.holdId }, { 'x-idempotency-key': `door-${seq}` });
  await owner.request('POST', `/api/v1/orders/${order.body.orderId}/sandbox-pay`, { outcome: 'SUCCEEDED' });
  const done = await eventually(async () => {
    const o = (await owner.request('GET', `/api/v1/orders/${order.body.orderId}`)).body;
    return o.status === 'TICKETED' ? o : undefined;
  }, 15_000);
  return { ...done.tickets[0], owner };
}

const ticketStatus = async (holder: ApiClient, ticketId: string) => (await holder.request('GET', `/api/v1/tickets/${ticketId}`)).body.status as string;

describe.skipIf(!hasChromium)('web front end: organizer and door staff', () => {
  beforeAll(async () => {
    ensureWebBuilt();
    [t, browser] = await Promise.all([startTestNode(), launch()]);
    admin = await adminClient(t.node.app);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('lets an organizer create a show with a seat-map preview, see it listed, and watch its sale live', async () => {
    const context = await signedInContext(browser, admin, adminCredentials.username, 'ADMIN');
    const page = await context.newPage();
    await page.goto(`${t.baseUrl}/admin/new`);
    await page.getByLabel('Title').fill('Spring Gala');
    await page.getByLabel('Venue').fill('Grand Hall');
    await page.getByLabel('City').fill('Hangzhou');
    await page.getByLabel('Rows 2').fill('3');
    await expect(page.getByTestId('preview-title').textContent()).resolves.toBe('Preview: 248 seats');
    await page.getByRole('img', { name: 'Seat map: 248' }).waitFor();
    await shot(page, 'organizer-create-show');
    await noSeriousA11yViolations(page, 'create show');
    await page.getByTestId('save-show').click();
    // Saving goes straight to the new show's live sale page.
    await page.waitForURL(/\/admin\/shows\/[^/]+$/);
    await page.getByTestId('stat-available').getByText('248').waitFor();
    await page.getByRole('link', { name: 'Organizer', exact: true }).first().click();
    const link = page.getByRole('link', { name: 'Live sale: Spring Gala' });
    await link.waitFor();
    await noSeriousA11yViolations(page, 'organizer');
    await link.click();
    await page.getByTestId('stat-available').getByText('248').waitFor();
    const showId = page.url().split('/').at(-1) as string;
    const buyer = await buyerApi(t.node.app, `fan${++seq}`);
    await buyer.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-1-1', 'A-1-2'] });
    // The page refreshes by itself from the live stream.
    await page.getByTestId('stat-held').getByText('2').waitFor({ timeout: 10_000 });
    await page.getByTestId('stat-hpm').getByText('2').waitFor();
    await shot(page, 'organizer-live-sale');
    await noSeriousA11yViolations(page, 'live sale');
    await context.close();
  });

  it('admits a ticket at the door, says ALREADY USED on the second scan and INVALID for a forgery', async () => {
    const showId = await createShow(admin);
    const first = await ticket(showId, 'A-1-1');
    const name = `steward${++seq}`;
    await buyerApi(t.node.app, name);
    await admin.request('PUT', `/api/v1/admin/users/${name}/role`, { role: 'STAFF' });
    const staff = await new ApiClient(t.node.app).logIn(name, 'password-123');
    const context = await signedInContext(browser, staff, name, 'STAFF', { viewport: { width: 390, height: 844 }, isMobile: true });
    const page = await context.newPage();
    await page.goto(`${t.baseUrl}/door`);
    const verdict = page.getByTestId('door-verdict');
    await page.getByLabel('Ticket code').fill(first.qr);
    await page.getByTestId('door-check').click();
    await verdict.getByText('ADMITTED').waitFor();
    expect(await verdict.textContent()).toContain('Stalls, row 1, seat 1');
    await shot(page, 'door-admitted');
    await noSeriousA11yViolations(page, 'door');
    await page.getByLabel('Ticket code').fill(first.qr);
    await page.getByTestId('door-check').click();
    await verdict.getByText('ALREADY USED').waitFor();
    await shot(page, 'door-already-used');
    await page.getByLabel('Ticket code').fill(`${first.qr.slice(0, -4)}AAAA`);
    await page.getByTestId('door-check').click();
    await verdict.getByText('INVALID').waitFor();

    // Offline: the signature is checked in the browser, the scan queued, then uploaded and counted.
    const second = await ticket(showId, 'A-1-2');
    await page.evaluate(() => navigator.serviceWorker.ready.then(() => true));
    await page.getByTestId('door-offline-ready').waitFor();
    await context.setOffline(true);
    await page.getByTestId('net-status').getByText('Offline').waitFor();
    await page.getByLabel('Ticket code').fill(second.qr);
    await page.getByTestId('door-check').click();
    await verdict.getByText('ADMITTED').waitFor();
    expect(await verdict.textContent()).toContain('Checked offline');
    await page.getByTestId('door-queued').getByText('Scans waiting to upload: 1').waitFor();
    // A second scan of the same ticket at this door, still offline, is caught locally.
    await page.getByLabel('Ticket code').fill(second.qr);
    await page.getByTestId('door-check').click();
    await verdict.getByText('ALREADY USED').waitFor();
    await shot(page, 'door-offline');
    // The page itself survives a reload without network (service worker).
    await page.reload();
    await page.getByLabel('Ticket code').waitFor();
    await page.getByTestId('door-queued').getByText('Scans waiting to upload: 1').waitFor();
    expect(await ticketStatus(second.owner, second.ticketId)).toBe('VALID');
    await context.setOffline(false);
    await page.getByTestId('door-synced').getByText('Uploaded 1 offline scan.').waitFor({ timeout: 10_000 });
    await page.getByTestId('door-queued').getByText('Scans waiting to upload: 0').waitFor();
    expect(await ticketStatus(second.owner, second.ticketId)).toBe('USED');
    await context.close();
  });

  it('flags a ticket two gates admitted while offline once both have synced', async () => {
    const showId = await createShow(admin);
    const shared = await ticket(showId, 'A-2-1');
    const gates = await Promise.all(['G1', 'G2'].map(async (gate) => {
      const name = `gate${gate}${++seq}`;
      await buyerApi(t.node.app, name);
      await admin.request('PUT', `/api/v1/admin/users/${name}/role`, { role: 'STAFF' });
      const context = await signedInContext(browser, await new ApiClient(t.node.app).logIn(name, 'password-123'), name, 'STAFF');
      const page = await context.newPage();
      await page.goto(`${t.baseUrl}/door`);
      await page.getByLabel('Gate').fill(gate);
      await page.evaluate(() => navigator.serviceWorker.ready.then(() => true));
      // The door says when it can check offline (key and revoked lists saved): only then is going offline a fair test.
      await page.getByTestId('door-offline-ready').waitFor();
      return { context, page };
    }));
    for (const { context, page } of gates) {
      await context.setOffline(true);
      // As in the single-door case: scan once the page itself knows it is offline, or it tries the network first.
      await page.getByTestId('net-status').getByText('Offline').waitFor();
      await page.getByLabel('Ticket code').fill(shared.qr);
      await page.getByTestId('door-check').click();
      await page.getByTestId('door-verdict').getByText('ADMITTED').waitFor();
    }
    for (const { context, page } of gates) {
      await context.setOffline(false);
      await page.getByTestId('door-queued').getByText('Scans waiting to upload: 0').waitFor({ timeout: 10_000 });
    }
    const flags = await Promise.all(gates.map(({ page }) => page.getByTestId('door-flag').count()));
    expect([...flags].sort()).toEqual([0, 1]);
    const flagged = gates[flags.indexOf(1)]?.page as Page;
    expect(await flagged.getByTestId('door-flag').textContent()).toContain('(Stalls, row 2, seat 1)');
    await shot(flagged, 'door-flagged');
    for (const { context } of gates) await context.close();
  });
});
