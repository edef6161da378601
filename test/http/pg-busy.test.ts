import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PgStore } from '../../src/adapters/postgres/pg-store.js';
import { signWebhook } from '../../src/lib/webhook-signature.js';
import { adminClient, ApiClient, createShow } from '../support/api-client.js';
import { startTestNode, testStore, type TestNode } from '../support/backend.js';
import { eventually } from '../support/wait.js';

/**
 * PostgreSQL with every pooled connection taken: each route that needs the database answers
 * 503 BUSY with Retry-After (never a 500, never a wait past the connect timeout), and the routes
 * served from memory still answer. Pools of one connection per lane, both held by the test.
 * The table must name every route of the OpenAPI document, so a new route cannot skip this.
 */
type Expect = 'busy' | 'memory' | 'unready';
interface Case { readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'; readonly path: string; readonly url: () => string; readonly expect: Expect; readonly body?: () => unknown; readonly headers?: () => Record<string, string>; readonly as?: 'buyer' | 'admin' | 'none' }

let t: TestNode & { baseUrl: string };
let admin: ApiClient;
let buyerToken: string;
let adminToken: string;
let showId: string;
let holdId: string;
let orderId: string;
let paymentId: string;
let ticketId: string;
let ticketedOrderId: string;
let qr: string;
let soldOutShowId: string;
let poolId: string;
let webhookId: string;
let flashSaleId: string;
let bargainId: string;
let bargainOrderId: string;
let queueShowId: string;
let queueId: string;

describe.skipIf(testStore === 'sqlite')('PostgreSQL with every connection taken', () => {
  beforeAll(async () => {
    t = await startTestNode({
      env: {
        TICKETRUSH_DATABASE_POOL_MAX: '1',
        TICKETRUSH_DATABASE_CHECKOUT_POOL_MAX: '1',
        TICKETRUSH_DATABASE_CONNECT_TIMEOUT_MS: '150',
        TICKETRUSH_RATE_LIMITS: 'off',
        TICKETRUSH_WEBHOOK_ALLOW_HOSTS: '127.0.0.1:9',
      },
    });
    admin = await adminClient(t.node.app);
    adminToken = (await admin.request('POST', '/api/v1/auth/login', { username: 'admin', password: 'admin-password-1' })).body.token;
    const buyer = await new ApiClient(t.node.app).signUp('busy-buyer');
    buyerToken = (await buyer.request('POST', '/api/v1/auth/login', { username: 'busy-buyer', password: 'password-123' })).body.token;
    showId = await createShow(admin);
    // A ticketed order (for the ticket routes) and a live hold with an unpaid order.
    const sold = await buyer.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-1-1'] });
    const soldOrder = await buyer.request('POST', '/api/v1/orders', { holdId: sold.body.holdId }, { 'x-idempotency-key': 'busy-1' });
    await buyer.request('POST', `/api/v1/orders/${soldOrder.body.orderId}/sandbox-pay`, { outcome: 'SUCCEEDED' });
    const ticketed = await eventually(async () => {
      const o = (await buyer.request('GET', `/api/v1/orders/${soldOrder.body.orderId}`)).body;
      return o.status === 'TICKETED' ? o : undefined;
    });
    ticketId = ticketed.tickets[0].ticketId;
    ticketedOrderId = soldOrder.body.orderId;
    qr = ticketed.tickets[0].qr;
    const hold = await buyer.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-2-1'] });
    holdId = hold.body.holdId;
    const order = await buyer.request('POST', '/api/v1/orders', { holdId }, { 'x-idempotency-key': 'busy-2' });
    orderId = order.body.orderId;
    paymentId = order.body.paymentId;
    // A show whose every place and seat is held: what the losers of a rush keep pressing on.
    soldOutShowId = await createShow(admin, { sections: [{ id: 'S', name: 'Stalls', rows: 1, seatsPerRow: 1, priceCents: 100 }, { id: 'GA', name: 'Standing', kind: 'GENERAL_ADMISSION', capacity: 1, priceCents: 100 }] });
    expect((await buyer.request('POST', `/api/v1/shows/${soldOutShowId}/holds`, { seatIds: ['S-1-1'] })).status).toBe(201);
    expect((await buyer.request('POST', `/api/v1/shows/${soldOutShowId}/holds`, { section: 'GA', quantity: 1 })).status).toBe(201);
    poolId = (await admin.request('POST', '/api/v1/admin/code-pools', { title: 'Busy codes', saleStartsAt: new Date(Date.now() - 6e4).toISOString(), saleEndsAt: new Date(Date.now() + 8e8).toISOString() })).body.poolId;
    await admin.request('POST', `/api/v1/admin/code-pools/${poolId}/codes`, { codes: ['B1', 'B2'] });
    webhookId = (await admin.request('POST', '/api/v1/admin/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['order.paid'] })).body.webhookId;
    // A flash sale on sale (issue 23).
    flashSaleId = (await admin.request('POST', '/api/v1/admin/flash-sales', {
      title: 'Busy sale', saleStartsAt: new Date(Date.now() - 6e4).toISOString(), saleEndsAt: new Date(Date.now() + 8e8).toISOString(), maxPerUser: 2,
      items: [{ itemId: 'TEA', name: 'Tea', priceCents: 100, originalPriceCents: 200, stock: 5 }],
    })).body.flashSaleId;
    // A bargain with one started bargain order (issue 23 item 4).
    bargainId = (await admin.request('POST', '/api/v1/admin/bargains', {
      title: 'Busy bargain', goods: 'Kettle', originalPriceCents: 1000, floorPriceCents: 500, cutMinCents: 10, cutMaxCents: 20, minCuts: 1, stock: 5,
      saleStartsAt: new Date(Date.now() - 6e4).toISOString(), saleEndsAt: new Date(Date.now() + 8e8).toISOString(),
    })).body.bargainId;
    bargainOrderId = (await buyer.request('POST', `/api/v1/bargains/${bargainId}/start`)).body.bargainOrderId;
    // A show with its waiting room on (paused) and the buyer's place in line (issue 24).
    queueShowId = await createShow(admin);
    expect((await admin.request('PUT', `/api/v1/admin/activities/${queueShowId}/waiting-room`, { enabled: true, admitPerMinute: 0, admissionSeconds: 600 })).status).toBe(200);
    queueId = (await buyer.request('POST', `/api/v1/activities/${queueShowId}/queue`)).body.queueId;
  }, 60_000);
  afterAll(async () => t?.close());

  const callbackBody = () => JSON.stringify({ paymentId, orderId, status: 'SUCCEEDED', amountCents: 5000 });
  const cases: Case[] = [
    { method: 'GET', path: '/healthz', url: () => '/healthz', expect: 'memory' },
    { method: 'GET', path: '/readyz', url: () => '/readyz', expect: 'unready' },
    { method: 'GET', path: '/metrics', url: () => '/metrics', expect: 'memory' },
    { method: 'POST', path: '/api/v1/auth/register', url: () => '/api/v1/auth/register', body: () => ({ username: 'late-comer', password: 'password-123' }), expect: 'busy', as: 'none' },
    { method: 'POST', path: '/api/v1/auth/login', url: () => '/api/v1/auth/login', body: () => ({ username: 'busy-buyer', password: 'password-123' }), expect: 'busy', as: 'none' },
    { method: 'GET', path: '/api/v1/me', url: () => '/api/v1/me', expect: 'busy' },
    { method: 'PUT', path: '/api/v1/admin/users/{username}/role', url: () => '/api/v1/admin/users/busy-buyer/role', body: () => ({ role: 'STAFF' }), expect: 'busy', as: 'admin' },
    { method: 'POST', path: '/api/v1/admin/shows', url: () => '/api/v1/admin/shows', body: () => ({ title: 'T', venue: 'V', city: 'C', startsAt: new Date(Date.now() + 9e8).toISOString(), saleStartsAt: new Date(Date.now() - 6e4).toISOString(), saleEndsAt: new Date(Date.now() + 8e8).toISOString(), seatMap: { sections: [{ id: 'A', name: 'A', rows: 1, seatsPerRow: 2, priceCents: 100 }] } }), expect: 'busy', as: 'admin' },
    { method: 'GET', path: '/api/v1/shows', url: () => '/api/v1/shows', expect: 'busy' },
    { method: 'GET', path: '/api/v1/shows/{showId}', url: () => `/api/v1/shows/${showId}`, expect: 'memory' },
    { method: 'GET', path: '/api/v1/shows/{showId}/availability', url: () => `/api/v1/shows/${showId}/availability`, expect: 'memory' },
    { method: 'GET', path: '/api/v1/shows/{showId}/seats', url: () => `/api/v1/shows/${showId}/seats`, expect: 'memory' },
    { method: 'POST', path: '/api/v1/shows/{showId}/holds', url: () => `/api/v1/shows/${showId}/holds`, body: () => ({ seatIds: ['A-3-1'] }), expect: 'busy' },
    { method: 'DELETE', path: '/api/v1/holds/{holdId}', url: () => `/api/v1/holds/${holdId}`, expect: 'busy' },
    { method: 'POST', path: '/api/v1/holds/{holdId}/extend', url: () => `/api/v1/holds/${holdId}/extend`, body: () => ({ seconds: 60 }), expect: 'busy' },
    { method: 'POST', path: '/api/v1/orders', url: () => '/api/v1/orders', body: () => ({ holdId }), headers: () => ({ 'x-idempotency-key': 'busy-3' }), expect: 'busy' },
    { method: 'GET', path: '/api/v1/orders/{orderId}', url: () => `/api/v1/orders/${orderId}`, expect: 'busy' },
    { method: 'GET', path: '/api/v1/me/orders', url: () => '/api/v1/me/orders', expect: 'busy' },
    {
      method: 'POST', path: '/api/v1/payments/callback', url: () => '/api/v1/payments/callback', body: callbackBody, as: 'none', expect: 'busy',
      headers: () => ({ 'x-ticketrush-signature': signWebhook(t.node.config.secrets.payment, callbackBody(), Math.floor(Date.now() / 1000)) }),
    },
    { method: 'POST', path: '/api/v1/admin/discounts', url: () => '/api/v1/admin/discounts', body: () => ({ code: 'BUSY-10', percentOff: 10, validFrom: new Date(Date.now() - 6e4).toISOString(), validUntil: new Date(Date.now() + 8e8).toISOString(), maxUses: 5, perUserMax: 1 }), expect: 'busy', as: 'admin' },
    { method: 'GET', path: '/api/v1/admin/discounts', url: () => '/api/v1/admin/discounts', expect: 'busy', as: 'admin' },
    { method: 'POST', path: '/api/v1/admin/discounts/{code}/disable', url: () => '/api/v1/admin/discounts/BUSY-10/disable', expect: 'busy', as: 'admin' },
    // This node's provider is the sandbox: Stripe's endpoint refuses (404 STRIPE_DISABLED) before any database work.
    { method: 'POST', path: '/api/v1/payments/stripe/webhook', url: () => '/api/v1/payments/stripe/webhook', body: callbackBody, as: 'none', expect: 'memory', headers: () => ({ 'stripe-signature': 't=1,v1=00' }) },
    { method: 'POST', path: '/api/v1/orders/{orderId}/sandbox-pay', url: () => `/api/v1/orders/${orderId}/sandbox-pay`, body: () => ({ outcome: 'SUCCEEDED' }), expect: 'busy' },
    { method: 'GET', path: '/api/v1/tickets/public-key', url: () => '/api/v1/tickets/public-key', expect: 'memory' },
    { method: 'GET', path: '/api/v1/me/tickets', url: () => '/api/v1/me/tickets', expect: 'busy' },
    { method: 'GET', path: '/api/v1/tickets/{ticketId}', url: () => `/api/v1/tickets/${ticketId}`, expect: 'busy' },
    { method: 'POST', path: '/api/v1/checkin', url: () => '/api/v1/checkin', body: () => ({ qr, nonce: 'busy-nonce-1' }), expect: 'busy', as: 'admin' },
    { method: 'GET', path: '/api/v1/shows/{showId}/events', url: () => `/api/v1/shows/${showId}/events`, expect: 'memory' },
    { method: 'GET', path: '/api/v1/admin/shows/{showId}/stats', url: () => `/api/v1/admin/shows/${showId}/stats`, expect: 'busy', as: 'admin' },
    { method: 'POST', path: '/api/v1/checkin/offline-scans', url: () => '/api/v1/checkin/offline-scans', body: () => ({ scans: [{ qr, nonce: 'busy-nonce-2', scannedAt: new Date().toISOString() }] }), expect: 'busy', as: 'admin' },
    { method: 'GET', path: '/api/v1/shows/{showId}/revoked-tickets', url: () => `/api/v1/shows/${showId}/revoked-tickets`, expect: 'busy', as: 'admin' },
    { method: 'GET', path: '/api/v1/me/holds', url: () => '/api/v1/me/holds', expect: 'busy' },
    { method: 'POST', path: '/api/v1/orders/{orderId}/cancel', url: () => `/api/v1/orders/${orderId}/cancel`, expect: 'busy' },
    { method: 'POST', path: '/api/v1/orders/{orderId}/refund', url: () => `/api/v1/orders/${ticketedOrderId}/refund`, body: () => ({}), headers: () => ({ 'x-idempotency-key': 'busy-refund-1' }), expect: 'busy' },
    { method: 'POST', path: '/api/v1/orders/{orderId}/exchange', url: () => `/api/v1/orders/${ticketedOrderId}/exchange`, body: () => ({ seatIds: ['A-1-1'] }), expect: 'busy' },
    { method: 'GET', path: '/api/v1/orders/{orderId}/refunds', url: () => `/api/v1/orders/${ticketedOrderId}/refunds`, expect: 'busy' },
    { method: 'POST', path: '/api/v1/admin/shows/{showId}/cancel', url: () => `/api/v1/admin/shows/${showId}/cancel`, body: () => ({ reason: 'busy' }), expect: 'busy', as: 'admin' },
    { method: 'GET', path: '/api/v1/admin/shows/{showId}/cancellation', url: () => `/api/v1/admin/shows/${showId}/cancellation`, expect: 'busy', as: 'admin' },
    { method: 'GET', path: '/api/v1/orders/{orderId}/tickets.pdf', url: () => `/api/v1/orders/${ticketedOrderId}/tickets.pdf`, expect: 'busy' },
    { method: 'PATCH', path: '/api/v1/admin/shows/{showId}', url: () => `/api/v1/admin/shows/${showId}`, body: () => ({ title: 'Renamed' }), expect: 'busy', as: 'admin' },
    { method: 'GET', path: '/api/v1/admin/users', url: () => '/api/v1/admin/users?q=busy', expect: 'busy', as: 'admin' },
    { method: 'GET', path: '/api/v1/admin/shows/{showId}/attendees', url: () => `/api/v1/admin/shows/${showId}/attendees?q=busy`, expect: 'busy', as: 'admin' },
    { method: 'GET', path: '/api/v1/shows/{showId}/checkin-stats', url: () => `/api/v1/shows/${showId}/checkin-stats`, expect: 'busy', as: 'admin' },
    { method: 'POST', path: '/api/v1/admin/code-pools', url: () => '/api/v1/admin/code-pools', body: () => ({ title: 'T', saleStartsAt: new Date(Date.now() - 6e4).toISOString(), saleEndsAt: new Date(Date.now() + 8e8).toISOString() }), expect: 'busy', as: 'admin' },
    { method: 'POST', path: '/api/v1/admin/code-pools/{poolId}/codes', url: () => `/api/v1/admin/code-pools/${poolId}/codes`, body: () => 'C1\nC2\n', headers: () => ({ 'content-type': 'text/csv' }), expect: 'busy', as: 'admin' },
    { method: 'POST', path: '/api/v1/code-pools/{poolId}/grab', url: () => `/api/v1/code-pools/${poolId}/grab`, expect: 'busy' },
    { method: 'GET', path: '/api/v1/code-pools/{poolId}', url: () => `/api/v1/code-pools/${poolId}`, expect: 'busy' },
    { method: 'GET', path: '/api/v1/me/codes', url: () => '/api/v1/me/codes', expect: 'busy' },
    { method: 'GET', path: '/api/v1/admin/code-pools/{poolId}/winners.csv', url: () => `/api/v1/admin/code-pools/${poolId}/winners.csv`, expect: 'busy', as: 'admin' },
    { method: 'GET', path: '/api/v1/admin/flash-sales/{flashSaleId}/orders.csv', url: () => `/api/v1/admin/flash-sales/${flashSaleId}/orders.csv`, expect: 'busy', as: 'admin' },
    { method: 'GET', path: '/api/v1/admin/bargains/{bargainId}/orders.csv', url: () => `/api/v1/admin/bargains/${bargainId}/orders.csv`, expect: 'busy', as: 'admin' },
    { method: 'GET', path: '/api/v1/admin/shows/{showId}/orders.csv', url: () => `/api/v1/admin/shows/${showId}/orders.csv`, expect: 'busy', as: 'admin' },
    { method: 'GET', path: '/api/v1/admin/shows/{showId}/tickets.csv', url: () => `/api/v1/admin/shows/${showId}/tickets.csv`, expect: 'busy', as: 'admin' },
    { method: 'POST', path: '/api/v1/admin/webhooks', url: () => '/api/v1/admin/webhooks', body: () => ({ url: 'http://127.0.0.1:9/other', events: ['order.paid'] }), expect: 'busy', as: 'admin' },
    { method: 'GET', path: '/api/v1/admin/webhooks', url: () => '/api/v1/admin/webhooks', expect: 'busy', as: 'admin' },
    { method: 'GET', path: '/api/v1/admin/webhooks/{webhookId}/deliveries', url: () => `/api/v1/admin/webhooks/${webhookId}/deliveries`, expect: 'busy', as: 'admin' },
    { method: 'DELETE', path: '/api/v1/admin/webhooks/{webhookId}', url: () => `/api/v1/admin/webhooks/${webhookId}`, expect: 'busy', as: 'admin' },
    { method: 'GET', path: '/api/v1/activities', url: () => '/api/v1/activities', expect: 'busy' },
    { method: 'GET', path: '/api/v1/activities/{activityId}', url: () => `/api/v1/activities/${flashSaleId}`, expect: 'busy' },
    { method: 'PATCH', path: '/api/v1/admin/activities/{activityId}', url: () => `/api/v1/admin/activities/${flashSaleId}`, body: () => ({ title: 'Renamed sale' }), expect: 'busy', as: 'admin' },
    { method: 'POST', path: '/api/v1/admin/flash-sales', url: () => '/api/v1/admin/flash-sales', body: () => ({ title: 'T', saleStartsAt: new Date(Date.now() - 6e4).toISOString(), saleEndsAt: new Date(Date.now() + 8e8).toISOString(), maxPerUser: 1, items: [{ itemId: 'A', name: 'A', priceCents: 1, originalPriceCents: 1, stock: 1 }] }), expect: 'busy', as: 'admin' },
    { method: 'GET', path: '/api/v1/flash-sales/{flashSaleId}', url: () => `/api/v1/flash-sales/${flashSaleId}`, expect: 'busy' },
    { method: 'POST', path: '/api/v1/flash-sales/{flashSaleId}/orders', url: () => `/api/v1/flash-sales/${flashSaleId}/orders`, body: () => ({ itemId: 'TEA', quantity: 1 }), headers: () => ({ 'x-idempotency-key': 'busy-flash-1' }), expect: 'busy' },
    { method: 'POST', path: '/api/v1/admin/bargains', url: () => '/api/v1/admin/bargains', body: () => ({ title: 'T', goods: 'G', originalPriceCents: 100, floorPriceCents: 50, cutMinCents: 1, cutMaxCents: 2, minCuts: 1, stock: 1, saleStartsAt: new Date(Date.now() - 6e4).toISOString(), saleEndsAt: new Date(Date.now() + 8e8).toISOString() }), expect: 'busy', as: 'admin' },
    { method: 'GET', path: '/api/v1/bargains/{bargainId}', url: () => `/api/v1/bargains/${bargainId}`, expect: 'busy' },
    { method: 'POST', path: '/api/v1/shows/{showId}/waitlist', url: () => `/api/v1/shows/${showId}/waitlist`, body: () => ({ quantity: 1 }), expect: 'busy' },
    { method: 'DELETE', path: '/api/v1/shows/{showId}/waitlist', url: () => `/api/v1/shows/${showId}/waitlist`, expect: 'busy' },
    { method: 'GET', path: '/api/v1/me/waitlist', url: () => '/api/v1/me/waitlist', expect: 'busy' },
    { method: 'POST', path: '/api/v1/bargains/{bargainId}/start', url: () => `/api/v1/bargains/${bargainId}/start`, expect: 'busy' },
    { method: 'GET', path: '/api/v1/bargain-orders/{bargainOrderId}', url: () => `/api/v1/bargain-orders/${bargainOrderId}`, expect: 'busy' },
    { method: 'POST', path: '/api/v1/bargain-orders/{bargainOrderId}/cuts', url: () => `/api/v1/bargain-orders/${bargainOrderId}/cuts`, expect: 'busy', as: 'admin' },
    { method: 'POST', path: '/api/v1/bargain-orders/{bargainOrderId}/order', url: () => `/api/v1/bargain-orders/${bargainOrderId}/order`, headers: () => ({ 'x-idempotency-key': 'busy-bargain-1' }), expect: 'busy' },
    { method: 'GET', path: '/api/v1/me/notifications', url: () => '/api/v1/me/notifications', expect: 'busy' },
    { method: 'POST', path: '/api/v1/me/notifications/read', url: () => '/api/v1/me/notifications/read', expect: 'busy' },
    { method: 'GET', path: '/api/v1/me/preferences', url: () => '/api/v1/me/preferences', expect: 'busy' },
    { method: 'PUT', path: '/api/v1/me/preferences', url: () => '/api/v1/me/preferences', body: () => ({ language: 'zh-CN' }), expect: 'busy' },
    { method: 'GET', path: '/api/v1/admin/audit-log', url: () => '/api/v1/admin/audit-log', expect: 'busy', as: 'admin' },
    // Issue 24 item 4: the blocklist's admin routes read the admin's stored role first (roleGuard).
    { method: 'POST', path: '/api/v1/admin/blocklist', url: () => '/api/v1/admin/blocklist', body: () => ({ ip: '192.0.2.1', reason: 'busy' }), expect: 'busy', as: 'admin' },
    { method: 'GET', path: '/api/v1/admin/blocklist', url: () => '/api/v1/admin/blocklist', expect: 'busy', as: 'admin' },
    { method: 'DELETE', path: '/api/v1/admin/blocklist/{blockId}', url: () => '/api/v1/admin/blocklist/blk_busy', expect: 'busy', as: 'admin' },
    { method: 'PUT', path: '/api/v1/admin/activities/{activityId}/waiting-room', url: () => `/api/v1/admin/activities/${queueShowId}/waiting-room`, body: () => ({ enabled: true, admitPerMinute: 0, admissionSeconds: 600 }), expect: 'busy', as: 'admin' },
    { method: 'GET', path: '/api/v1/admin/activities/{activityId}/waiting-room', url: () => `/api/v1/admin/activities/${queueShowId}/waiting-room`, expect: 'busy', as: 'admin' },
    { method: 'POST', path: '/api/v1/activities/{activityId}/queue', url: () => `/api/v1/activities/${queueShowId}/queue`, expect: 'busy' },
    { method: 'GET', path: '/api/v1/activities/{activityId}/queue/{queueId}', url: () => `/api/v1/activities/${queueShowId}/queue/${queueId}`, expect: 'busy' },
    { method: 'DELETE', path: '/api/v1/activities/{activityId}/queue/{queueId}', url: () => `/api/v1/activities/${queueShowId}/queue/${queueId}`, expect: 'busy' },
    { method: 'GET', path: '/api/v1/activities/{activityId}/queue/{queueId}/events', url: () => `/api/v1/activities/${queueShowId}/queue/${queueId}/events`, expect: 'unready' },
  ];

  it('names every route of the API', async () => {
    const document = t.node.app.swagger() as { paths: Record<string, Record<string, unknown>> };
    const routes = Object.entries(document.paths).flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`));
    expect(cases.map((c) => `${c.method} ${c.path}`).sort()).toEqual(routes.sort());
  });

  it('answers 503 BUSY with Retry-After on every route that needs the database, at once', async () => {
    const store = t.node.ctx.store as PgStore;
    const held: pg.PoolClient[] = [await store.pools.rush.connect(), await store.pools.checkout.connect()];
    const seen: string[] = [];
    try {
      for (const c of cases) {
        const token = c.as === 'none' ? null : c.as === 'admin' ? adminToken : buyerToken;
        const body = c.body?.();
        const started = performance.now();
        const controller = new AbortController();
        const response = await fetch(`${t.baseUrl}${c.url()}`, {
          method: c.method,
          signal: controller.signal,
          headers: {
            ...(token === null ? {} : { authorization: `Bearer ${token}` }),
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            ...c.headers?.(),
          },
          ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
        });
        const ms = performance.now() - started;
        const text = c.path.endsWith('/events') ? '' : await response.text();
        controller.abort();
        const code = text.startsWith('{') ? (JSON.parse(text) as { code?: string }).code : undefined;
        seen.push(`${c.method} ${c.path} -> ${response.status} ${code ?? ''} ${ms.toFixed(0)} ms`);
        expect(response.status, `${c.method} ${c.path}: ${text.slice(0, 200)}`).not.toBe(500);
        if (c.expect === 'busy') {
          expect({ route: `${c.method} ${c.path}`, status: response.status, code }).toEqual({ route: `${c.method} ${c.path}`, status: 503, code: 'BUSY' });
          expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
          // The connect timeout (150 ms) bounds each wait; a use case may ask twice.
          expect(ms).toBeLessThan(2_000);
        } else if (c.expect === 'unready') {
          expect(response.status).toBe(503);
        } else {
          expect(response.status).toBeLessThan(500);
        }
      }
    } finally {
      for (const client of held) client.release();
      console.log(seen.join('\n'));
    }
    // Connections back: the same routes work again.
    expect((await fetch(`${t.baseUrl}/api/v1/orders/${orderId}`, { headers: { authorization: `Bearer ${buyerToken}` } })).status).toBe(200);
  }, 60_000);

  it('refuses the losers of a sold-out show from memory: no connection needed, so none taken from the winners', async () => {
    const store = t.node.ctx.store as PgStore;
    const held: pg.PoolClient[] = [await store.pools.rush.connect(), await store.pools.checkout.connect()];
    try {
      for (const body of [{ section: 'GA', quantity: 1 }, { quantity: 1 }, { seatIds: ['S-1-1'] }]) {
        const reply = await fetch(`${t.baseUrl}/api/v1/shows/${soldOutShowId}/holds`, {
          method: 'POST', headers: { authorization: `Bearer ${buyerToken}`, 'content-type': 'application/json' }, body: JSON.stringify(body),
        });
        expect({ body, status: reply.status, text: reply.status === 409 ? '' : await reply.text() }).toEqual({ body, status: 409, text: '' });
      }
    } finally {
      for (const client of held) client.release();
    }
  });
});
