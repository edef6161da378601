import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconcilePendingPayments, refundPendingPayments } from '../../src/app/payments.js';
import { refundInstead, type Order, type Payment } from '../../src/domain/index.js';
import type { SandboxProvider } from '../../src/adapters/payments/sandbox-provider.js';
import { adminClient, ApiClient, createShow } from '../support/api-client.js';
import { startTestNode, type TestNode } from '../support/backend.js';
import { StoreBusyError } from '../../src/ports/engine/index.js';

/**
 * Every background pass must work through its whole backlog over successive runs: rows it cannot
 * settle (abandoned checkouts the provider still calls PENDING, refunds it refuses, orders that
 * cannot be ticketed, holds that cannot be freed) must never hide the rows behind them.
 * The passes are called directly (the node does not listen, so no timer runs them meanwhile).
 */
let t: TestNode;
let sandbox: SandboxProvider;
let showId: string;
let userId: string;
let alice: ApiClient;
let seq = 0;

beforeAll(async () => {
  t = await startTestNode({ listen: false });
  if (t.node.sandbox === null) throw new Error('the sandbox provider is off');
  sandbox = t.node.sandbox;
  showId = await createShow(await adminClient(t.node.app), { sections: [
    { id: 'A', name: 'Stalls', rows: 10, seatsPerRow: 10, priceCents: 5000 },
    { id: 'GA', name: 'Standing', kind: 'GENERAL_ADMISSION', capacity: 5000, priceCents: 4000 },
  ] });
  alice = await new ApiClient(t.node.app).signUp('backlog-buyer');
  const user = await t.node.ctx.store.findUserByUsername('backlog-buyer');
  if (user === null) throw new Error('no user');
  userId = user.userId;
});
afterAll(async () => t.close());

/**
 * Checkouts the buyer abandoned, made through the store port as the application makes them: a
 * hold of one standing place, its order awaiting the provider's payment, then the hold released
 * (which cancels the order). The payment stays PENDING, or is marked for refund when `refund`.
 * Made in parallel batches, as a rush would.
 */
/**
 * One buyer's 50 parallel claims all lock that buyer's unit counter, so on PostgreSQL some wait past
 * lock_timeout and are refused as busy (503 BUSY over HTTP); they retry, as a client told Retry-After would.
 */
async function retryBusy<T>(work: () => Promise<T>, attempts = 20): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof StoreBusyError) || attempt >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20 * attempt));
    }
  }
}

async function abandonedCheckouts(paymentIds: readonly string[], refund = false): Promise<string[]> {
  const store = t.node.ctx.store;
  const orderIds: string[] = [];
  for (let i = 0; i < paymentIds.length; i += 50) {
    orderIds.push(...await Promise.all(paymentIds.slice(i, i + 50).map(async (paymentId) => {
      const n = ++seq;
      const now = t.node.ctx.clock.now() - 60_000;
      const claimed = await retryBusy(() => store.claimUnits({ holdId: `hld_backlog_${n}`, showId, userId, now, expiresAt: now + 600_000, userUnitsMax: 1_000_000, sectionId: 'GA', quantity: 1 }));
      if (!claimed.ok) throw new Error(`claim: ${JSON.stringify(claimed)}`);
      const hold = claimed.hold;
      const order: Order = {
        orderId: `ord_backlog_${n}`, userId, showId, holdId: hold.holdId, idempotencyKey: `backlog-${n}`, lines: hold.lines, amountCents: hold.totalPriceCents,
        status: 'INIT', paymentId: null, createdAt: now, updatedAt: now,
      };
      if (!(await store.openOrder(order)).ok) throw new Error('openOrder refused');
      const key = { scope: `order:${userId}`, key: order.idempotencyKey, createdAt: now };
      await store.beginKey({ ...key, requestHash: 'h', state: 'IN_FLIGHT', outcome: null, responseBody: null });
      const payment: Payment = { paymentId, orderId: order.orderId, amountCents: order.amountCents, status: 'PENDING', updatedAt: now };
      if (!(await store.awaitPayment({ orderId: order.orderId, payment, now, key, responseBody: '{}' })).ok) throw new Error('awaitPayment refused');
      if (!(await store.lapseHold({ holdId: hold.holdId, event: 'RELEASE', expectedExpiresAt: hold.expiresAt, now })).ok) throw new Error('release refused');
      if (refund) {
        const plan = refundInstead(payment, now);
        if (!plan.ok || plan.value.plan === null || !(await store.settlePayment(plan.value.plan)).ok) throw new Error('refund plan refused');
      }
      return order.orderId;
    })));
  }
  return orderIds;
}

/** Payments the provider really has on its books, still PENDING there (the buyer walked away). */
async function providerPayments(count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push((await t.node.ctx.payments.createPayment({ orderId: `ord_abandoned_${i}_${seq}`, amountCents: 4000, currency: 'EUR', idempotencyKey: `abandoned-${i}-${seq}` })).paymentId);
  return ids;
}

const orderStatus = async (orderId: string) => (await t.node.ctx.store.getOrder(orderId))?.status;

/** Calls `pass` until `done` holds, at most `runs` times; returns how many runs it took. */
async function runUntil(pass: () => Promise<unknown>, done: () => Promise<boolean>, runs: number): Promise<number | 'never'> {
  for (let run = 1; run <= runs; run++) {
    await pass();
    if (await done()) return run;
  }
  return 'never';
}

describe('background passes work through their whole backlog', () => {
  it('settles a paid order whose callbacks were lost behind 1,000 abandoned checkouts', async () => {
    await abandonedCheckouts(await providerPayments(1000));

    const hold = await alice.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-1-1'] });
    const order = await alice.request('POST', '/api/v1/orders', { holdId: hold.body.holdId }, { 'x-idempotency-key': 'paid-behind-backlog' });
    expect(order.body.status).toBe('PENDING_PAY');
    sandbox.setCallbacksLost(true);
    try {
      expect((await alice.request('POST', `/api/v1/orders/${order.body.orderId}/sandbox-pay`, { outcome: 'SUCCEEDED' })).status).toBe(202);
      // 1,000 abandoned payments are 5 pages of 200: the paid one is reached by the second run.
      const runs = await runUntil(() => reconcilePendingPayments(t.node.ctx, 0), async () => (await orderStatus(order.body.orderId)) !== 'PENDING_PAY', 4);
      expect(runs).not.toBe('never');
      expect(['PAID', 'TICKETED']).toContain(await orderStatus(order.body.orderId));
    } finally {
      sandbox.setCallbacksLost(false);
    }
  });

  it('pays a refund owed behind more refunds than one page that the provider keeps refusing', async () => {
    // The provider refuses these refunds: on its books the money never arrived.
    await abandonedCheckouts(await providerPayments(450), true);
    const [owed] = await providerPayments(1) as [string];
    await sandbox.simulate(owed, 'SUCCEEDED');
    const [orderId] = await abandonedCheckouts([owed], true) as [string];
    const runs = await runUntil(() => refundPendingPayments(t.node.ctx), async () => (await orderStatus(orderId)) === 'REFUNDED', 4);
    expect(runs).not.toBe('never');
  });

  // Orders PAID that can never be ticketed, and overdue holds that can never be freed, cannot be
  // made any more: the port's guards refuse every way to them (the old test wrote such rows by
  // hand). Their passes still walk by keyset (src/app/keyset-sweep.ts), covered above.
  it.todo('tickets a paid order behind paid orders that cannot be ticketed (needs a fault-injecting store)');
  it.todo('frees an overdue hold behind an overdue hold that cannot be freed (needs a fault-injecting store)');
});
