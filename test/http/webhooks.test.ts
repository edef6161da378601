import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../src/lib/webhook-signature.js';
import type { OutboxEvent } from '../../src/ports/engine/index.js';
import { adminClient, ApiClient } from '../support/api-client.js';
import { startTestNode, type TestNode } from '../support/backend.js';
import { eventually } from '../support/wait.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * The admin webhook routes on a listening node: registration with its secret shown once, URL and
 * event checks with stable codes (no loop back to this very server), listing without secrets,
 * removal, each delivery's attempts; and the node's sink sending to a real receiver at once.
 */
let t: TestNode & { baseUrl: string };
let admin: ApiClient;
let buyer: ApiClient;
let receiver: WebhookReceiver;
const publicUrl = 'https://tickets.example.com';

beforeAll(async () => {
  // The local receiver is on loopback: allowed by the operator's setting, as in a test deployment (issue 33).
  t = await startTestNode({ env: { TICKETRUSH_PUBLIC_URL: publicUrl, TICKETRUSH_RATE_LIMITS: 'off', TICKETRUSH_WEBHOOK_ALLOW_HOSTS: '127.0.0.1,localhost' } });
  admin = await adminClient(t.node.app);
  buyer = await new ApiClient(t.node.app).signUp('hook-buyer');
  receiver = await startWebhookReceiver(() => 204);
}, 60_000);
afterAll(async () => {
  await receiver?.close();
  await t?.close();
});

const register = (by: ApiClient, body: unknown) => by.request('POST', '/api/v1/admin/webhooks', body);

describe('webhook administration', () => {
  it('registers a receiver (201, secret shown once), lists it without the secret, and removes it (204, then 404)', async () => {
    const created = await register(admin, { url: receiver.url, events: ['order.paid', 'tickets.issued', 'order.paid'] });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ webhookId: expect.stringMatching(/^whk_/), secret: expect.stringMatching(/^whsec_[0-9a-f]{64}$/) });
    const other = await register(admin, { url: receiver.url, events: ['hold.created'] });
    expect(other.body.secret).not.toBe(created.body.secret);
    const listed = await admin.request('GET', '/api/v1/admin/webhooks');
    expect(listed.status).toBe(200);
    const mine = listed.body.webhooks.find((w: { webhookId: string }) => w.webhookId === created.body.webhookId);
    expect(mine).toEqual({ webhookId: created.body.webhookId, url: receiver.url, events: ['order.paid', 'tickets.issued'], status: 'ACTIVE', disabledReason: null, createdAt: expect.any(String) });
    expect(JSON.stringify(listed.body)).not.toContain(created.body.secret);
    expect((await admin.request('GET', '/api/v1/admin/webhooks?limit=1')).body).toMatchObject({ webhooks: [expect.anything()], more: true });
    expect((await admin.request('DELETE', `/api/v1/admin/webhooks/${created.body.webhookId}`)).status).toBe(204);
    const again = await admin.request('DELETE', `/api/v1/admin/webhooks/${created.body.webhookId}`);
    expect({ status: again.status, code: again.body.code }).toEqual({ status: 404, code: 'WEBHOOK_NOT_FOUND' });
    expect((await admin.request('GET', `/api/v1/admin/webhooks/${created.body.webhookId}/deliveries`)).body.code).toBe('WEBHOOK_NOT_FOUND');
    await admin.request('DELETE', `/api/v1/admin/webhooks/${other.body.webhookId}`);
  });

  it('refuses a bad URL or event with a stable 400 code, and never a URL that loops back to this server', async () => {
    const own = new URL(`http://127.0.0.1:${(t.node.app.server.address() as AddressInfo).port}`);
    const cases: [string, unknown[], string][] = [
      ['ftp://127.0.0.1/hook', ['order.paid'], 'WEBHOOK_URL_INVALID'],
      ['javascript:alert(1)', ['order.paid'], 'WEBHOOK_URL_INVALID'],
      ['not a url', ['order.paid'], 'WEBHOOK_URL_INVALID'],
      ['http://user:pw@127.0.0.1:9/hook', ['order.paid'], 'WEBHOOK_URL_INVALID'],
      [`http://127.0.0.1:9/${'a'.repeat(2100)}`, ['order.paid'], 'WEBHOOK_URL_TOO_LONG'],
      [`${own.origin}/api/v1/hook`, ['order.paid'], 'WEBHOOK_URL_LOOP'],
      [`http://localhost:${own.port}/hook`, ['order.paid'], 'WEBHOOK_URL_LOOP'],
      [`http://[::1]:${own.port}/hook`, ['order.paid'], 'WEBHOOK_URL_LOOP'],
      [`http://[::ffff:127.0.0.1]:${own.port}/hook`, ['order.paid'], 'WEBHOOK_URL_LOOP'],
      // Inward targets (issue 33): refused before anything is stored or sent, unless allowed (here 127.0.0.1 and localhost are).
      ['http://169.254.169.254/latest/meta-data/', ['order.paid'], 'WEBHOOK_URL_INVALID'],
      ['http://10.0.0.1/hook', ['order.paid'], 'WEBHOOK_URL_INVALID'],
      ['http://172.16.0.1/hook', ['order.paid'], 'WEBHOOK_URL_INVALID'],
      ['http://192.168.1.1/hook', ['order.paid'], 'WEBHOOK_URL_INVALID'],
      ['http://[fd00::1]/hook', ['order.paid'], 'WEBHOOK_URL_INVALID'],
      ['http://[fe80::1]/hook', ['order.paid'], 'WEBHOOK_URL_INVALID'],
      ['http://0.0.0.0:9/hook', ['order.paid'], 'WEBHOOK_URL_INVALID'],
      ['http://127.0.0.2:6379/', ['order.paid'], 'WEBHOOK_URL_INVALID'],
      ['http://[::ffff:10.0.0.1]/hook', ['order.paid'], 'WEBHOOK_URL_INVALID'],
      [`${publicUrl}/hook`, ['order.paid'], 'WEBHOOK_URL_LOOP'],
      [`https://TICKETS.example.com:443/x`, ['order.paid'], 'WEBHOOK_URL_LOOP'],
      [receiver.url, ['order.shipped'], 'WEBHOOK_EVENT_UNKNOWN'],
      [receiver.url, [], 'VALIDATION_FAILED'],
      [receiver.url, [{}], 'VALIDATION_FAILED'],
      ['x'.repeat(9000), ['order.paid'], 'VALIDATION_FAILED'],
    ];
    for (const [url, events, code] of cases) {
      const reply = await register(admin, { url, events });
      expect({ url: url.slice(0, 60), status: reply.status, code: reply.body.code }).toEqual({ url: url.slice(0, 60), status: 400, code });
    }
    expect((await register(admin, { url: receiver.url, events: ['order.paid'], extra: 1 })).status).toBe(400);
    // Other ports of this machine (loopback allowed by TICKETRUSH_WEBHOOK_ALLOW_HOSTS here), and other hosts on the public URL's port, are fine.
    for (const url of [`http://127.0.0.1:${Number(own.port) === 65535 ? 1 : Number(own.port) + 1}/hook`, 'https://hooks.example.org/in', 'http://localhost:9/x']) {
      const reply = await register(admin, { url, events: ['order.paid'] });
      expect({ url, status: reply.status }).toEqual({ url, status: 201 });
      await admin.request('DELETE', `/api/v1/admin/webhooks/${reply.body.webhookId}`);
    }
  });

  it('is for admins only: 401 without a token, 403 for a buyer', async () => {
    const anonymous = new ApiClient(t.node.app);
    for (const [method, url] of [['POST', '/api/v1/admin/webhooks'], ['GET', '/api/v1/admin/webhooks'], ['DELETE', '/api/v1/admin/webhooks/whk_x'], ['GET', '/api/v1/admin/webhooks/whk_x/deliveries']] as const) {
      const body = method === 'POST' ? { url: receiver.url, events: ['order.paid'] } : undefined;
      expect({ url, status: (await anonymous.request(method, url, body)).status }).toEqual({ url, status: 401 });
      const refused = await buyer.request(method, url, body);
      expect({ url, status: refused.status, code: refused.body.code }).toEqual({ url, status: 403, code: 'FORBIDDEN' });
    }
  });

  it("sends an event from the node's sink to the receiver at once, signed with the secret, and lists the attempt", async () => {
    const created = await register(admin, { url: receiver.url, events: ['order.paid'] });
    const event: OutboxEvent = {
      position: '1', eventId: 'evt_http_1', type: 'order.paid', showId: 'show_1', createdAt: Date.now(), origin: 'test', changes: null,
      data: { orderId: 'order_1', showId: 'show_1', amountCents: 5000, currency: 'CNY', username: 'hook-buyer' },
    };
    const before = receiver.received.length;
    await t.node.webhooks.sink.deliver([event]);
    await t.node.webhooks.sink.deliver([event]);
    const got = await eventually(async () => receiver.received[before]);
    expect(verifyWebhook(created.body.secret, got.headers['x-ticketrush-signature'] as string, got.body, Math.floor(Date.now() / 1000), 300)).toBe('VALID');
    expect(got.headers['x-ticketrush-event-id']).toBe('evt_http_1');
    const listed = await eventually(async () => {
      const reply = await admin.request('GET', `/api/v1/admin/webhooks/${created.body.webhookId}/deliveries?limit=10`);
      return reply.body.deliveries?.[0]?.status === 'DELIVERED' ? reply.body : undefined;
    });
    expect(listed).toEqual({
      deliveries: [{
        deliveryId: expect.any(String), eventId: 'evt_http_1', type: 'order.paid', status: 'DELIVERED', nextAttemptAt: null,
        attempts: [{ attempt: 1, at: expect.any(String), statusCode: 204, durationMs: expect.any(Number), error: null, outcome: 'DELIVERED', nextAttemptAt: null }],
        lastStatusCode: 204, lastDurationMs: expect.any(Number), lastError: null, createdAt: expect.any(String), updatedAt: expect.any(String),
      }],
      more: false,
    });
    expect(receiver.received.length).toBe(before + 1);
    expect((await t.node.app.inject('/metrics')).body).toMatch(/ticketrush_webhook_attempts_total\{outcome="DELIVERED"\} 1\n/);
  });
});
