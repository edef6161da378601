import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepOverdueHolds } from '../../src/app/expiry.js';
import type { Store } from '../../src/ports/engine/index.js';
import { adminClient, ApiClient, createShow } from '../support/api-client.js';
import { startTestNode, type TestNode } from '../support/backend.js';
import { sleep } from '../support/wait.js';

/**
 * The holes issue 13's review found in the booking loop ("Why"), each pinned by a test that fails
 * on the code before the engine port: a store fault is not a provider outage, a taken key is
 * honoured, one bad overdue hold does not stop the sweep, endless contention answers 503 BUSY with
 * Retry-After instead of hanging or a 500, and a retried order never opens a second payment.
 * Faults are injected by wrapping one operation of the node's own store for one test.
 */
let t: TestNode & { baseUrl: string };
let admin: ApiClient;
let showId: string;
let seq = 0;

beforeAll(async () => {
  t = await startTestNode();
  admin = await adminClient(t.node.app);
  showId = await createShow(admin, { sections: [{ id: 'A', name: 'Stalls', rows: 10, seatsPerRow: 10, priceCents: 3000 }] });
});
afterAll(async () => t.close());

/** Replaces one store operation until the returned restore is called. */
function wrap<K extends keyof Store>(name: K, replacement: (original: Store[K]) => Store[K]): () => void {
  const store = t.node.ctx.store as unknown as Record<string, unknown>;
  const original = store[name] as Store[K];
  const bound = (original as unknown as (...a: unknown[]) => unknown).bind(t.node.ctx.store) as unknown as Store[K];
  store[name] = replacement(bound);
  return () => {
    store[name] = original;
  };
}

const buyer = async () => new ApiClient(t.node.app).signUp(`holes${++seq}`);
const hold = async (api: ApiClient, seat: string, holdSeconds?: number) => {
  const reply = await api.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: [seat], ...(holdSeconds === undefined ? {} : { holdSeconds }) });
  expect(reply.status).toBe(201);
  return reply.body.holdId as string;
};

describe('the holes of issue 13', () => {
  it('a store failure while creating an order is a server error, not "payment provider unavailable"; the retry places the order', async () => {
    const alice = await buyer();
    const holdId = await hold(alice, 'A-1-1');
    let failures = 0;
    const restore = wrap('awaitPayment', (original) => async (input) => {
      if (failures++ === 0) throw new Error('disk on fire');
      return original(input);
    });
    try {
      const first = await alice.request('POST', '/api/v1/orders', { holdId }, { 'x-idempotency-key': 'store-fault' });
      expect(first.status).toBe(500);
      expect(first.body.code).not.toBe('PAYMENT_PROVIDER_UNAVAILABLE');
      const retry = await alice.request('POST', '/api/v1/orders', { holdId }, { 'x-idempotency-key': 'store-fault' });
      expect({ status: retry.status, state: retry.body.status }).toEqual({ status: 201, state: 'PENDING_PAY' });
    } finally {
      restore();
    }
  });

  it('honours a key someone else wrote first (beginKey refused): no second order, the first answer or "in flight"', async () => {
    const alice = await buyer();
    const holdId = await hold(alice, 'A-2-1');
    const first = await alice.request('POST', '/api/v1/orders', { holdId }, { 'x-idempotency-key': 'taken' });
    expect(first.status).toBe(201);
    // The store now says the key exists (as it would for a request that raced this one).
    const restore = wrap('beginKey', (original) => async (record) => {
      const existing = await t.node.ctx.store.getKey(record.scope, record.key);
      return existing === null ? original(record) : { ok: false, code: 'KEY_EXISTS', record: existing };
    });
    try {
      const again = await alice.request('POST', '/api/v1/orders', { holdId }, { 'x-idempotency-key': 'taken' });
      expect([200, 201, 409]).toContain(again.status);
      if (again.status !== 409) expect(again.body.orderId).toBe(first.body.orderId);
      else expect(again.body.code).toBe('IDEMPOTENCY_REQUEST_IN_FLIGHT');
      const orders = (await alice.request('GET', '/api/v1/me/orders')).body.orders as { orderId: string }[];
      expect(orders.map((o) => o.orderId)).toEqual([first.body.orderId]);
    } finally {
      restore();
    }
  });

  it('one overdue hold that cannot be freed never stops the sweep from freeing the others', async () => {
    const alice = await buyer();
    let stuck = '';
    // In place before the hold exists: the node's own timers and background sweep meet it too.
    const restore = wrap('lapseHold', (original) => async (input) => {
      if (input.holdId === stuck) throw new Error('inconsistent hold');
      return original(input);
    });
    try {
      stuck = await hold(alice, 'A-3-1', 1);
      const others = [await hold(alice, 'A-3-2', 1), await hold(alice, 'A-3-3', 1)];
      for (const id of [stuck, ...others]) await t.node.ctx.jobs.cancel(`expire-hold:${id}`);
      await sleep(1_100);
      await expect(sweepOverdueHolds(t.node.ctx)).resolves.toBeGreaterThanOrEqual(0);
      for (const id of others) expect((await t.node.ctx.store.getHold(id))?.status).toBe('EXPIRED');
      expect((await t.node.ctx.store.getHold(stuck))?.status).toBe('ACTIVE');
    } finally {
      restore();
    }
  });

  it('answers 503 BUSY with Retry-After when a hold keeps changing under the request, never a 500 or a hang', async () => {
    const alice = await buyer();
    const holdId = await hold(alice, 'A-4-1');
    const restore = wrap('extendHold', () => async () => ({ ok: false, stale: 'hold' }));
    try {
      const started = Date.now();
      const reply = await alice.request('POST', `/api/v1/holds/${holdId}/extend`, {});
      expect({ status: reply.status, code: reply.body.code }).toEqual({ status: 503, code: 'BUSY' });
      expect(Number(reply.headers['retry-after'])).toBeGreaterThan(0);
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      restore();
    }
  });

  it('a retried order asks the provider with the same idempotency key, so it never holds two payments for one order', async () => {
    const asked = t.node.ctx.payments;
    const request = { orderId: `ord_holes_${++seq}`, amountCents: 3000, currency: 'EUR', idempotencyKey: `ord_holes_${seq}` };
    const [a, b] = await Promise.all([asked.createPayment(request), asked.createPayment(request)]);
    expect(a.paymentId).toBe(b.paymentId);
    expect((await asked.createPayment(request)).paymentId).toBe(a.paymentId);
  });
});
