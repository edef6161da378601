import { afterAll, beforeAll, expect, it } from 'vitest';
import { adminClient, ApiClient, createShow } from '../support/api-client.js';
import { loadConfig } from '../../src/config.js';
import { startTestNode, type TestNode } from '../support/backend.js';
import { eventually } from '../support/wait.js';

/**
 * A provider so slow that a retry takes the key over (limits.idempotencyInFlightMsMax) while the
 * first request still waits: the key still makes one order, and the first request cannot
 * overwrite the answer of the retry that took over.
 */
let t: TestNode & { baseUrl: string };
let clockOffsetMs = 0;

beforeAll(async () => {
  t = await startTestNode({ clock: { now: () => Date.now() + clockOffsetMs } });
});
afterAll(async () => t.close());

it('keeps one order per key when a retry takes over a key whose first request is stuck at the provider', async () => {
  const sandbox = t.node.sandbox;
  if (sandbox === null) throw new Error('the sandbox provider is off');
  const admin = await adminClient(t.node.app);
  const alice = await new ApiClient(t.node.app).signUp('slow-provider-buyer');
  const showId = await createShow(admin);
  const hold = await alice.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-1-1'] });
  const order = () => alice.request('POST', '/api/v1/orders', { holdId: hold.body.holdId }, { 'x-idempotency-key': 'slow-1' });

  sandbox.setCallDelayMs(400);
  const first = order();
  // Not a fixed sleep: only once the first request holds the key and has opened its order (so it
  // is on its way into the 400 ms provider call) may the clock pass the in-flight bound; a key
  // written after the jump would be fresh, and the retry could not take it over.
  await eventually(async () => ((await t.node.ctx.store.liveOrderOfHold(hold.body.holdId)) === null ? undefined : true), 5_000, 'the first request to open its order');
  clockOffsetMs += 61_000; // the first request has now been in flight past every bound
  sandbox.setCallDelayMs(800);
  const takeover = order();
  const [firstReply, takeoverReply] = await Promise.all([first, takeover]);
  sandbox.setCallDelayMs(0);

  expect({ status: firstReply.status, code: firstReply.body.code }).toEqual({ status: 409, code: 'IDEMPOTENCY_REQUEST_IN_FLIGHT' });
  expect(takeoverReply.status).toBe(201);
  const again = await order();
  expect({ status: again.status, orderId: again.body.orderId }).toEqual({ status: 201, orderId: takeoverReply.body.orderId });
  const orders = (await alice.request('GET', '/api/v1/me/orders')).body.orders as { orderId: string; status: string; paymentId: string }[];
  expect(orders.map((o) => ({ orderId: o.orderId, status: o.status, paymentId: o.paymentId }))).toEqual([
    { orderId: takeoverReply.body.orderId, status: 'PENDING_PAY', paymentId: takeoverReply.body.paymentId },
  ]);
});

it('takes a key over after TICKETRUSH_IDEMPOTENCY_IN_FLIGHT_SECONDS, not before; the setting stays above the provider call\'s bound', async () => {
  expect(() => loadConfig({ TICKETRUSH_IDEMPOTENCY_IN_FLIGHT_SECONDS: '10' })).toThrow(/TICKETRUSH_IDEMPOTENCY_IN_FLIGHT_SECONDS/);
  let offsetMs = 0;
  const short = await startTestNode({ env: { TICKETRUSH_IDEMPOTENCY_IN_FLIGHT_SECONDS: '20' }, clock: { now: () => Date.now() + offsetMs } });
  try {
    const sandbox = short.node.sandbox;
    if (sandbox === null) throw new Error('the sandbox provider is off');
    const admin = await adminClient(short.node.app);
    const bob = await new ApiClient(short.node.app).signUp('short-in-flight-buyer');
    const showId = await createShow(admin);
    const hold = await bob.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-1-2'] });
    const order = () => bob.request('POST', '/api/v1/orders', { holdId: hold.body.holdId }, { 'x-idempotency-key': 'short-1' });
    sandbox.setCallDelayMs(600);
    const first = order();
    await eventually(async () => ((await short.node.ctx.store.liveOrderOfHold(hold.body.holdId)) === null ? undefined : true), 5_000, 'the first request to open its order');
    offsetMs += 15_000; // past the provider's bound, within the setting: still the first request's
    const early = await order();
    expect({ status: early.status, code: early.body.code }).toEqual({ status: 409, code: 'IDEMPOTENCY_REQUEST_IN_FLIGHT' });
    offsetMs += 6_000; // 21 s: a dead request's key, taken over
    const takeover = await order();
    sandbox.setCallDelayMs(0);
    expect(takeover.status).toBe(201);
    await first;
  } finally {
    await short.close();
  }
});
