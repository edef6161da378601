import { connect, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, adminClient, createShow } from '../support/api-client.js';
import { startTestNode, type TestNode } from '../support/backend.js';
import { eventually } from '../support/wait.js';
import { shedClassOf } from '../../src/http/load-shedding.js';

// Load shedding (issue 24 item 6): a bound on buying requests in flight. Requests are kept in
// flight by sending their headers and holding back the body: past onRequest (so counted), never
// finished. Small bounds, so a handful of sockets reach them.
const inflightMax = 3;
const moneyInflightMax = 5;
let t: TestNode & { baseUrl: string };
let buyer: ApiClient;
let showId: string;
let bearer: string;
const open: Socket[] = [];

beforeAll(async () => {
  t = await startTestNode({ env: { TICKETRUSH_INFLIGHT_MAX: String(inflightMax), TICKETRUSH_INFLIGHT_MONEY_MAX: String(moneyInflightMax) } });
  const admin = await adminClient(t.node.app);
  showId = await createShow(admin);
  buyer = await new ApiClient(t.node.app).signUp('shedding-buyer');
  // The raw sockets below sign in too: an anonymous request is refused (401) before it is ever stuck.
  bearer = (await buyer.request('POST', '/api/v1/auth/login', { username: 'shedding-buyer', password: 'password-123' })).body.token as string;
});
afterAll(async () => t.close());
afterEach(async () => {
  for (const s of open.splice(0)) s.destroy();
  // The bound is freed as the sockets close: a hold goes through again.
  await eventually(async () => ((await holdAttempt()).status === 503 ? undefined : true), 5_000, 'the bound to free up');
});

/** A request whose body never finishes: it stays in flight until the socket is destroyed. */
async function stuck(method: string, path: string): Promise<void> {
  const { hostname, port } = new URL(t.baseUrl);
  const socket = connect(Number(port), hostname);
  open.push(socket);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  socket.write(`${method} ${path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${bearer}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`);
}

async function stuckMany(n: number, method: string, path: string): Promise<void> {
  for (let i = 0; i < n; i++) await stuck(method, path);
  // The server has read the headers (and counted the request) once a probe sees it: give it a moment.
  await new Promise((resolve) => setTimeout(resolve, 150));
}

/** A hold the server refuses for its body (400) unless shed first (503): no stock is taken. */
const holdAttempt = () => buyer.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: [] });
const orderAttempt = () => buyer.request('POST', '/api/v1/orders', { holdId: 'hld_missing' }, { 'x-idempotency-key': `k-${Math.random()}` });

describe('load shedding', () => {
  it('classes the buying routes: takes shed first, money last, reads never', () => {
    expect(shedClassOf('POST', '/api/v1/shows/:showId/holds')).toBe('take');
    expect(shedClassOf('POST', '/api/v1/activities/:activityId/queue')).toBe('take');
    expect(shedClassOf('POST', '/api/v1/code-pools/:poolId/grab')).toBe('take');
    expect(shedClassOf('POST', '/api/v1/shows/:showId/waitlist')).toBe('take');
    expect(shedClassOf('POST', '/api/v1/payments/stripe/webhook')).toBe('money');
    expect(shedClassOf('POST', '/api/v1/orders')).toBe('money');
    expect(shedClassOf('POST', '/api/v1/orders/:orderId/sandbox-pay')).toBe('money');
    expect(shedClassOf('POST', '/api/v1/payments/callback')).toBe('money');
    expect(shedClassOf('GET', '/api/v1/shows/:showId/seats')).toBeNull();
    expect(shedClassOf('GET', '/healthz')).toBeNull();
  });

  it('past the bound a new hold answers 503 BUSY with Retry-After at once; orders, seat maps and /healthz still pass', async () => {
    await stuckMany(inflightMax, 'POST', `/api/v1/shows/${showId}/holds`);
    const started = performance.now();
    const refused = await holdAttempt();
    expect(performance.now() - started).toBeLessThan(500);
    expect(refused.status).toBe(503);
    expect(refused.body).toMatchObject({ code: 'BUSY', details: { retryAfterSeconds: 1 } });
    expect(refused.headers['retry-after']).toBe('1');
    // Orders are shed last: below their own bound they reach the use case (an unknown hold).
    expect((await orderAttempt()).status).not.toBe(503);
    expect((await buyer.request('GET', `/api/v1/shows/${showId}/seats`)).status).toBe(200);
    expect((await buyer.request('GET', `/api/v1/shows/${showId}/availability`)).status).toBe(200);
    expect((await buyer.request('GET', '/healthz')).status).toBe(200);
  });

  it('orders are shed only past the higher bound, and reads are still served', async () => {
    await stuckMany(moneyInflightMax, 'POST', '/api/v1/orders');
    const refused = await orderAttempt();
    expect(refused.status).toBe(503);
    expect(refused.body).toMatchObject({ code: 'BUSY' });
    expect((await holdAttempt()).status).toBe(503);
    expect((await buyer.request('GET', `/api/v1/shows/${showId}/seats`)).status).toBe(200);
    expect((await buyer.request('GET', '/healthz')).status).toBe(200);
  });

  it('reads in flight are not counted: holds still pass while seat-map readers hang', async () => {
    await stuckMany(moneyInflightMax + 2, 'GET', `/api/v1/shows/${showId}/seats`);
    const hold = await buyer.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-1-1'] });
    expect(hold.status).toBe(201);
    await buyer.request('DELETE', `/api/v1/holds/${hold.body.holdId as string}`);
  });
});
