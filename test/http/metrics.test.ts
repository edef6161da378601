import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, ApiClient, createShow } from '../support/api-client.js';
import { startTestNode, type TestNode } from '../support/backend.js';
import { postCallback } from '../support/payments.js';

/** promtool ships in Debian's `prometheus` package (.ci/run installs it). */
const promtool = spawnSync('promtool', ['--version'], { stdio: 'ignore' }).status === 0;

let t: TestNode & { baseUrl: string };
let metrics: string;

beforeAll(async () => {
  t = await startTestNode();
  const showId = await createShow(await adminClient(t.node.app));
  const alice = await new ApiClient(t.node.app).signUp('metrics-alice');
  const bob = await new ApiClient(t.node.app).signUp('metrics-bob');
  const hold = await alice.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-1-1'] });
  await bob.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-1-1'] }); // refused: taken
  await alice.request('POST', '/api/v1/orders', { holdId: hold.body.holdId }); // refused: no key
  await alice.as(null).request('POST', '/api/v1/orders', { holdId: hold.body.holdId }, { 'x-idempotency-key': 'anon' }); // refused: not signed in
  await bob.request('POST', '/api/v1/orders', { holdId: hold.body.holdId }, { 'x-idempotency-key': 'not-mine' }); // refused: not owned
  const order = await alice.request('POST', '/api/v1/orders', { holdId: hold.body.holdId }, { 'x-idempotency-key': 'mine' });
  await alice.request('POST', '/api/v1/orders', { holdId: hold.body.holdId }, { 'x-idempotency-key': 'mine' }); // replayed
  const body = { paymentId: order.body.paymentId, orderId: order.body.orderId, status: 'SUCCEEDED' as const, amountCents: order.body.amountCents };
  await postCallback(t.node.app, t.node.config.secrets.payment, body, { signWith: 'a-forged-secret' });
  await postCallback(t.node.app, t.node.config.secrets.payment, body, { signatureTime: Math.floor(Date.now() / 1000) - 3600 });
  await t.node.app.inject({ method: 'POST', url: '/api/v1/payments/callback', payload: '{}', headers: { 'content-type': 'application/json' } });
  await postCallback(t.node.app, t.node.config.secrets.payment, { ...body, paymentId: 'pay_unknown' });
  await postCallback(t.node.app, t.node.config.secrets.payment, body);
  t.node.ctx.telemetry.jobFailed('refunds', new Error('drill'));
  metrics = (await t.node.app.inject('/metrics')).body;
});
afterAll(async () => t.close());

describe('/metrics', () => {
  it('counts every order attempt, refusals with their code', () => {
    expect(metrics).toMatch(/ticketrush_orders_total\{outcome="PENDING_PAY"\} 1\n/);
    expect(metrics).toMatch(/ticketrush_orders_total\{outcome="REPLAYED"\} 1\n/);
    expect(metrics).toMatch(/ticketrush_orders_total\{outcome="HOLD_NOT_OWNED"\} 1\n/);
    expect(metrics).toMatch(/ticketrush_orders_total\{outcome="VALIDATION_FAILED"\} 1\n/);
    expect(metrics).toMatch(/ticketrush_orders_total\{outcome="UNAUTHORIZED"\} 1\n/);
  });

  it('counts rejected callback signatures, and every other refused callback, with their code', () => {
    expect(metrics).toMatch(/ticketrush_payment_callbacks_total\{outcome="SIGNATURE_INVALID"\} 2\n/);
    expect(metrics).toMatch(/ticketrush_payment_callbacks_total\{outcome="SIGNATURE_EXPIRED"\} 1\n/);
    expect(metrics).toMatch(/ticketrush_payment_callbacks_total\{outcome="PAYMENT_NOT_FOUND"\} 1\n/);
    expect(metrics).toMatch(/ticketrush_payment_callbacks_total\{outcome="SOLD"\} 1\n/);
  });

  it('labels hold latency by outcome, and never uses the label Prometheus sets on every target', () => {
    expect(metrics).toMatch(/ticketrush_hold_latency_seconds_count\{outcome="HELD"\} 1\n/);
    expect(metrics).toMatch(/ticketrush_hold_latency_seconds_count\{outcome="SEAT_UNAVAILABLE"\} 1\n/);
    expect(metrics).toMatch(/ticketrush_job_failures_total\{task="refunds"\} 1\n/);
    expect(metrics).not.toMatch(/[{,](job|instance)="/);
    expect(metrics).not.toMatch(/^nodejs_active_\w+_total/m);
  });

  it.skipIf(!promtool)('passes `promtool check metrics`', () => {
    const out = spawnSync('promtool', ['check', 'metrics'], { input: metrics, encoding: 'utf8' });
    expect(`${out.stdout}${out.stderr}`.trim()).toBe('');
    expect(out.status).toBe(0);
  });
  if (!promtool) it.skip("promtool is not installed (Debian package `prometheus`); `promtool check metrics` was not run", () => undefined);
});

