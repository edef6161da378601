import { createPublicKey, verify } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, ApiClient, createShow } from '../support/api-client.js';
import { startTestNode, type TestNode } from '../support/backend.js';
import { postCallback } from '../support/payments.js';
import { applyPaymentReport } from '../../src/app/payments.js';
import type { Store } from '../../src/ports/engine/index.js';
import { eventually, sleep } from '../support/wait.js';

let t: TestNode & { baseUrl: string };
let admin: ApiClient;
let secret: string;
let seq = 0;
const buyer = async () => new ApiClient(t.node.app).signUp(`payer${++seq}`);

beforeAll(async () => {
  t = await startTestNode({ env: { TICKETRUSH_RECONCILE_MS: '300' } });
  admin = await adminClient(t.node.app);
  secret = t.node.config.secrets.payment;
});
afterAll(async () => t.close());

async function pendingOrder(api: ApiClient, seatIds = ['A-1-1'], holdSeconds?: number) {
  const showId = await createShow(admin);
  const hold = await api.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds, ...(holdSeconds === undefined ? {} : { holdSeconds }) });
  const order = await api.request('POST', '/api/v1/orders', { holdId: hold.body.holdId }, { 'x-idempotency-key': `o-${++seq}` });
  return { showId, order: order.body as { orderId: string; paymentId: string; amountCents: number } };
}

/** A steward signed in with the STAFF role an admin gave them. */
async function doorStaff(username: string): Promise<ApiClient> {
  await new ApiClient(t.node.app).signUp(username);
  await admin.request('PUT', `/api/v1/admin/users/${username}/role`, { role: 'STAFF' });
  return new ApiClient(t.node.app).logIn(username, 'password-123');
}

const orderOf = async (api: ApiClient, orderId: string) => (await api.request('GET', `/api/v1/orders/${orderId}`)).body;
const statusOf = async (api: ApiClient, showId: string, seatId: string) =>
  ((await api.request('GET', `/api/v1/shows/${showId}/seats`)).body.seats as { seatId: string; status: string }[]).find((s) => s.seatId === seatId)?.status;

describe('payment callbacks', () => {
  it('sells through the sandbox: pay → signed async callback → PAID → tickets → TICKETED', async () => {
    const alice = await buyer();
    const { showId, order } = await pendingOrder(alice, ['A-1-1', 'A-1-2']);
    expect((await alice.request('POST', `/api/v1/orders/${order.orderId}/sandbox-pay`, { outcome: 'SUCCEEDED' })).status).toBe(202);
    const done = await eventually(async () => {
      const o = await orderOf(alice, order.orderId);
      return o.status === 'TICKETED' ? o : undefined;
    });
    expect(done.tickets).toHaveLength(2);
    expect(await statusOf(alice, showId, 'A-1-1')).toBe('SOLD');
  });

  it('takes a settlement that committed between its reads (a duplicate callback on another process) for a duplicate, not an illegal move', async () => {
    const alice = await buyer();
    const { order } = await pendingOrder(alice);
    const report = { paymentId: order.paymentId, orderId: order.orderId, status: 'SUCCEEDED' as const, amountCents: order.amountCents };
    expect((await postCallback(t.node.app, secret, report)).body.outcome).toBe('SOLD');
    // The payment as a reader saw it just before the other settlement committed: still PENDING,
    // while the order read after it is PAID by this very payment.
    const real = t.node.ctx.store;
    let torn = true;
    const store: Store = {
      ...real,
      async getPayment(paymentId) {
        const payment = await real.getPayment(paymentId);
        if (!torn || payment === null) return payment;
        torn = false;
        return { ...payment, status: 'PENDING' };
      },
    };
    await expect(applyPaymentReport({ ...t.node.ctx, store }, report)).resolves.toBe('DUPLICATE');
    expect(torn).toBe(false);
  });

  it('refuses a bad signature and a stale timestamp with 401 and changes nothing', async () => {
    const alice = await buyer();
    const { order } = await pendingOrder(alice);
    const body = { paymentId: order.paymentId, orderId: order.orderId, status: 'SUCCEEDED' as const, amountCents: order.amountCents };
    const forged = await postCallback(t.node.app, secret, body, { signWith: 'not-the-secret-at-all' });
    expect({ status: forged.status, code: forged.body.code }).toEqual({ status: 401, code: 'SIGNATURE_INVALID' });
    const stale = await postCallback(t.node.app, secret, body, { signatureTime: Math.floor(Date.now() / 1000) - 301 });
    expect({ status: stale.status, code: stale.body.code }).toEqual({ status: 401, code: 'SIGNATURE_EXPIRED' });
    expect((await orderOf(alice, order.orderId)).status).toBe('PENDING_PAY');
  });

  it('applies a callback once: a duplicate answers 200 DUPLICATE and issues no extra tickets', async () => {
    const alice = await buyer();
    const { order } = await pendingOrder(alice);
    const body = { paymentId: order.paymentId, orderId: order.orderId, status: 'SUCCEEDED' as const, amountCents: order.amountCents };
    expect((await postCallback(t.node.app, secret, body)).body.outcome).toBe('SOLD');
    expect(await postCallback(t.node.app, secret, body)).toEqual({ status: 200, body: { received: true, outcome: 'DUPLICATE' } });
    const done = await eventually(async () => {
      const o = await orderOf(alice, order.orderId);
      return o.status === 'TICKETED' ? o : undefined;
    });
    expect(done.tickets).toHaveLength(1);
  });

  it('acknowledges a callback with the wrong amount (2xx, so the provider stops), records it, refunds the money and frees the seats', async () => {
    const sandbox = t.node.sandbox;
    if (sandbox === null) throw new Error('the sandbox provider is off');
    const alice = await buyer();
    const { showId, order } = await pendingOrder(alice, ['A-2-7']);
    const metric = async (pattern: RegExp) => Number(pattern.exec((await t.node.app.inject('/metrics')).body)?.[1] ?? 0);
    const anomalies = /ticketrush_payment_anomalies_total\{kind="AMOUNT_MISMATCH"\} (\d+)/;
    const before = await metric(anomalies);
    // The provider takes the money but its callback (with the real amount) is lost; ours reports another amount.
    sandbox.setCallbacksLost(true);
    try {
      expect((await alice.request('POST', `/api/v1/orders/${order.orderId}/sandbox-pay`, {})).status).toBe(202);
    } finally {
      sandbox.setCallbacksLost(false);
    }
    const wrong = await postCallback(t.node.app, secret, { paymentId: order.paymentId, orderId: order.orderId, status: 'SUCCEEDED', amountCents: 1 });
    expect(wrong).toEqual({ status: 200, body: { received: true, outcome: 'AMOUNT_MISMATCH' } });
    expect(await metric(anomalies)).toBe(before + 1);
    expect(await statusOf(alice, showId, 'A-2-7')).toBe('AVAILABLE');
    expect((await orderOf(alice, order.orderId)).status).not.toBe('PAID');
    await eventually(async () => ((await orderOf(alice, order.orderId)).status === 'REFUNDED' ? true : undefined), 5_000, 'refund of the wrong amount');
    // The refund returns the money that arrived, not the price of the order.
    expect(await t.node.ctx.store.getPayment(order.paymentId)).toMatchObject({ status: 'REFUNDED', receivedCents: 1 });
    // The provider's retry (or the right amount, late) changes nothing more, and is acknowledged too.
    expect((await postCallback(t.node.app, secret, { paymentId: order.paymentId, orderId: order.orderId, status: 'SUCCEEDED', amountCents: 1 })).status).toBe(200);
    expect((await postCallback(t.node.app, secret, { paymentId: order.paymentId, orderId: order.orderId, status: 'SUCCEEDED', amountCents: order.amountCents })).body.outcome).toBe('DUPLICATE');
    expect((await orderOf(alice, order.orderId)).status).toBe('REFUNDED');
  });

  it('cancels the order and frees the seats when the payment fails', async () => {
    const alice = await buyer();
    const { showId, order } = await pendingOrder(alice, ['A-3-3']);
    const failed = await postCallback(t.node.app, secret, { paymentId: order.paymentId, orderId: order.orderId, status: 'FAILED', amountCents: order.amountCents });
    expect(failed.body.outcome).toBe('CANCELLED');
    expect((await orderOf(alice, order.orderId)).status).toBe('CANCELLED');
    expect(await statusOf(alice, showId, 'A-3-3')).toBe('AVAILABLE');
  });

  it('sells to a success that follows a decline (the card was retried), and ignores a decline after a success', async () => {
    const alice = await buyer();
    const { showId, order } = await pendingOrder(alice, ['A-3-4']);
    const report = (status: 'SUCCEEDED' | 'FAILED') => postCallback(t.node.app, secret, { paymentId: order.paymentId, orderId: order.orderId, status, amountCents: order.amountCents });
    expect((await report('FAILED')).body.outcome).toBe('CANCELLED');
    expect(await statusOf(alice, showId, 'A-3-4')).toBe('AVAILABLE');
    expect(await report('SUCCEEDED')).toEqual({ status: 200, body: { received: true, outcome: 'SOLD_LATE' } });
    expect(await report('FAILED')).toEqual({ status: 200, body: { received: true, outcome: 'DUPLICATE' } });
    await eventually(async () => ((await orderOf(alice, order.orderId)).status === 'TICKETED' ? true : undefined));
    expect(await statusOf(alice, showId, 'A-3-4')).toBe('SOLD');
  });

  it('refuses a malformed signature header with 401, never a 500', async () => {
    const alice = await buyer();
    const { order } = await pendingOrder(alice);
    const raw = JSON.stringify({ paymentId: order.paymentId, orderId: order.orderId, status: 'SUCCEEDED', amountCents: order.amountCents });
    const t0 = Math.floor(Date.now() / 1000);
    // 64 characters whose UTF-8 encoding is longer than 64 bytes, as well as other malformed forms.
    for (const header of [`t=${t0},v1=${'a'.repeat(63)}\u00e9`, `t=${t0},v1=${'é'.repeat(64)}`, `t=${t0}`, 'v1=abc', 't=x,v1=00', '', ',,,']) {
      const reply = await t.node.app.inject({
        method: 'POST', url: '/api/v1/payments/callback', payload: raw,
        headers: { 'content-type': 'application/json', 'x-ticketrush-signature': header },
      });
      expect(reply.statusCode, header).toBe(401);
      expect(JSON.parse(reply.body).code, header).toMatch(/^SIGNATURE_/);
    }
    expect((await orderOf(alice, order.orderId)).status).toBe('PENDING_PAY');
  });

  it('sells seats still free to a payment that arrives after the hold expired', async () => {
    const alice = await buyer();
    const { showId, order } = await pendingOrder(alice, ['A-4-4'], 1);
    await eventually(async () => ((await statusOf(alice, showId, 'A-4-4')) === 'AVAILABLE' ? true : undefined), 4_000);
    expect((await orderOf(alice, order.orderId)).status).toBe('CANCELLED');
    const late = await postCallback(t.node.app, secret, { paymentId: order.paymentId, orderId: order.orderId, status: 'SUCCEEDED', amountCents: order.amountCents });
    expect(late.body.outcome).toBe('SOLD_LATE');
    await eventually(async () => ((await orderOf(alice, order.orderId)).status === 'TICKETED' ? true : undefined));
    expect(await statusOf(alice, showId, 'A-4-4')).toBe('SOLD');
  });

  it('refunds a late payment whose seats someone else took, and never sells the seat twice', async () => {
    const [alice, bob] = [await buyer(), await buyer()];
    const { showId, order } = await pendingOrder(alice, ['A-5-5'], 1);
    await eventually(async () => ((await statusOf(alice, showId, 'A-5-5')) === 'AVAILABLE' ? true : undefined), 4_000);
    expect((await bob.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-5-5'] })).status).toBe(201);
    // The buyer may no longer pay through us (HOLD_EXPIRED), but the card holder paid at the
    // provider anyway: the sandbox's ledger holds real money to give back.
    expect((await alice.request('POST', `/api/v1/orders/${order.orderId}/sandbox-pay`, {})).body.code).toBe('HOLD_EXPIRED');
    await t.node.sandbox?.simulate(order.paymentId, 'SUCCEEDED');
    await eventually(async () => ((await orderOf(alice, order.orderId)).status === 'REFUNDED' ? true : undefined), 5_000, 'refund');
    expect(await statusOf(alice, showId, 'A-5-5')).toBe('HELD');
  });

  it('keeps a refund owed through a provider outage, counts the failure, and pays it once the provider is back', async () => {
    const sandbox = t.node.sandbox;
    if (sandbox === null) throw new Error('the sandbox provider is off');
    const [alice, bob] = [await buyer(), await buyer()];
    const { showId, order } = await pendingOrder(alice, ['A-6-6'], 1);
    await eventually(async () => ((await statusOf(alice, showId, 'A-6-6')) === 'AVAILABLE' ? true : undefined), 4_000);
    expect((await bob.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-6-6'] })).status).toBe(201);
    const refundFailures = async () => Number(/ticketrush_job_failures_total\{task="refunds"\} (\d+)/.exec((await t.node.app.inject('/metrics')).body)?.[1] ?? 0);
    const failuresBefore = await refundFailures();
    const paymentStatus = async () => (await t.node.ctx.store.getPayment(order.paymentId))?.status;
    sandbox.setAvailable(false);
    try {
      await sandbox.simulate(order.paymentId, 'SUCCEEDED'); // paid at the provider after the hold lapsed
      await eventually(async () => ((await refundFailures()) > failuresBefore ? true : undefined), 5_000, 'a refund attempt failed');
      expect(await paymentStatus()).toBe('REFUND_PENDING');
      expect((await orderOf(alice, order.orderId)).status).toBe('CANCELLED');
    } finally {
      sandbox.setAvailable(true);
    }
    await eventually(async () => ((await orderOf(alice, order.orderId)).status === 'REFUNDED' ? true : undefined), 5_000, 'refund after the outage');
    expect(await paymentStatus()).toBe('REFUNDED');
  });
});

describe('tickets and check-in', () => {
  async function ticketed(api: ApiClient) {
    const { order } = await pendingOrder(api);
    await postCallback(t.node.app, secret, { paymentId: order.paymentId, orderId: order.orderId, status: 'SUCCEEDED', amountCents: order.amountCents });
    const done = await eventually(async () => {
      const o = await orderOf(api, order.orderId);
      return o.status === 'TICKETED' ? o : undefined;
    });
    return done.tickets[0] as { ticketId: string; qr: string; code: string };
  }

  it('gives the buyer a QR an offline scanner can verify with the published Ed25519 key', async () => {
    const alice = await buyer();
    const ticket = await ticketed(alice);
    const key = (await alice.request('GET', '/api/v1/tickets/public-key')).body;
    const [prefix, payload, signature] = ticket.qr.split('.') as [string, string, string];
    const genuine = verify(null, Buffer.from(`${prefix}.${payload}`), createPublicKey(key.publicKeyPem), Buffer.from(signature, 'base64url'));
    expect(genuine).toBe(true);
    expect(JSON.parse(Buffer.from(payload, 'base64url').toString())).toMatchObject({ tid: ticket.ticketId, code: ticket.code });
    expect((await alice.request('GET', '/api/v1/me/tickets')).body.tickets.map((x: { ticketId: string }) => x.ticketId)).toContain(ticket.ticketId);
  });

  it("never shows one buyer another's ticket", async () => {
    const [alice, bob] = [await buyer(), await buyer()];
    const ticket = await ticketed(alice);
    expect((await bob.request('GET', `/api/v1/tickets/${ticket.ticketId}`)).status).toBe(404);
    expect((await bob.request('GET', '/api/v1/me/tickets')).body.tickets).toEqual([]);
  });

  it('admits a ticket once at the door: 200, then 409 TICKET_ALREADY_USED; a retried scan with its nonce is not a second use', async () => {
    const alice = await buyer();
    const ticket = await ticketed(alice);
    const door = await doorStaff('door1');
    expect((await alice.request('POST', '/api/v1/checkin', { qr: ticket.qr })).status).toBe(403);
    const first = await door.request('POST', '/api/v1/checkin', { qr: ticket.qr, nonce: 'scan-1' });
    expect(first.status).toBe(200);
    expect(first.body.ticket.status).toBe('USED');
    expect((await door.request('POST', '/api/v1/checkin', { qr: ticket.qr, nonce: 'scan-1' })).status).toBe(200);
    const second = await door.request('POST', '/api/v1/checkin', { qr: ticket.qr, nonce: 'scan-2' });
    expect({ status: second.status, code: second.body.code }).toEqual({ status: 409, code: 'TICKET_ALREADY_USED' });
  });

  it('takes the door away at once from a steward whose role is withdrawn, token or not', async () => {
    const alice = await buyer();
    const ticket = await ticketed(alice);
    const door = await doorStaff('door2');
    expect((await admin.request('PUT', '/api/v1/admin/users/door2/role', { role: 'BUYER' })).status).toBe(200);
    const refused = await door.request('POST', '/api/v1/checkin', { qr: ticket.qr });
    expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 403, code: 'FORBIDDEN' });
  });

  it('rejects a forged or tampered code with 400 TICKET_INVALID', async () => {
    const alice = await buyer();
    const ticket = await ticketed(alice);
    const [prefix, payload, signature] = ticket.qr.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const tampered = `${prefix}.${Buffer.from(JSON.stringify({ ...claims, seat: 'A-9-9' })).toString('base64url')}.${signature}`;
    for (const qr of [tampered, 'TR1.garbage.sig', 'hello']) {
      const reply = await admin.request('POST', '/api/v1/checkin', { qr });
      expect({ status: reply.status, code: reply.body.code }).toEqual({ status: 400, code: 'TICKET_INVALID' });
    }
  });
});

describe('errors at the edge', () => {
  it('answers every bad request with a 4xx JSON {code, message}, never a 500', async () => {
    const app = t.node.app;
    const cases = [
      { req: { method: 'GET' as const, url: '/nope' }, status: 404, code: 'ROUTE_NOT_FOUND' },
      { req: { method: 'POST' as const, url: '/api/v1/auth/login', headers: { 'content-type': 'application/json' }, payload: '{bad' }, status: 400, code: 'INVALID_JSON' },
      { req: { method: 'POST' as const, url: '/api/v1/auth/login', headers: { 'content-type': 'text/plain' }, payload: 'x' }, status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' },
      { req: { method: 'POST' as const, url: '/api/v1/auth/register', payload: { username: 'x', password: 'y' } }, status: 400, code: 'VALIDATION_FAILED' },
      { req: { method: 'POST' as const, url: '/api/v1/auth/login', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ username: 'a'.repeat(70_000) }) }, status: 413, code: 'PAYLOAD_TOO_LARGE' },
      { req: { method: 'GET' as const, url: '/api/v1/me/orders' }, status: 401, code: 'UNAUTHORIZED' },
      { req: { method: 'GET' as const, url: '/api/v1/shows/shw_missing' }, status: 404, code: 'SHOW_NOT_FOUND' },
    ];
    for (const c of cases) {
      const reply = await app.inject(c.req);
      expect({ url: c.req.url, status: reply.statusCode, code: JSON.parse(reply.body).code }).toEqual({ url: c.req.url, status: c.status, code: c.code });
    }
  });

  it('lets a buyer neither create shows nor pick a role', async () => {
    const alice = await buyer();
    const show = await alice.request('POST', '/api/v1/admin/shows', {});
    expect(show.status).toBe(403);
    const role = await new ApiClient(t.node.app).request('POST', '/api/v1/auth/register', { username: 'sneaky', password: 'password-123', role: 'ADMIN' });
    expect({ status: role.status, code: role.body.code }).toEqual({ status: 400, code: 'VALIDATION_FAILED' });
  });

  it('reports health, readiness and Prometheus metrics', async () => {
    expect((await t.node.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    expect((await t.node.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    await sleep(10);
    const metrics = (await t.node.app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(metrics).toMatch(/ticketrush_holds_total\{outcome="HELD"\} \d+/);
    expect(metrics).toContain('ticketrush_hold_latency_seconds_bucket');
    expect(metrics).toMatch(/ticketrush_payment_callbacks_total\{outcome="DUPLICATE"\} \d+/);
  });
});
