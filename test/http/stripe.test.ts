import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, ApiClient, createShow } from '../support/api-client.js';
import { startTestNode, type TestNode } from '../support/backend.js';
import { FakeStripe } from '../support/fake-stripe.js';
import { eventually } from '../support/wait.js';
import { reconcilePendingPayments } from '../../src/app/payments.js';

const webhookSecret = 'whsec_test_ticketrush';
let t: TestNode & { baseUrl: string };
let stripe: FakeStripe;
let admin: ApiClient;
let seq = 0;
const buyer = async () => new ApiClient(t.node.app).signUp(`striper${++seq}`);

beforeAll(async () => {
  stripe = await new FakeStripe().start();
  t = await startTestNode({
    env: {
      TICKETRUSH_PAYMENT_PROVIDER: 'stripe', STRIPE_SECRET_KEY: 'sk_test_ticketrush', STRIPE_WEBHOOK_SECRET: webhookSecret, STRIPE_API_URL: stripe.url,
      // Reconciliation is run by the test that is about it, never racing the webhooks of the others.
      TICKETRUSH_RECONCILE_MS: '3600000',
    },
  });
  admin = await adminClient(t.node.app);
});
afterAll(async () => {
  await t?.close();
  await stripe?.stop();
});

interface PlacedOrder { orderId: string; paymentId: string; amountCents: number; checkoutUrl?: string }

async function placeOrder(api: ApiClient, seatIds: string[], showId?: string) {
  const show = showId ?? await createShow(admin);
  const hold = await api.request('POST', `/api/v1/shows/${show}/holds`, { seatIds });
  const order = await api.request('POST', '/api/v1/orders', { holdId: hold.body.holdId }, { 'x-idempotency-key': `s-${++seq}` });
  expect(order.status).toBe(201);
  return { showId: show, order: order.body as PlacedOrder };
}

const deliver = (event: { payload: string; signature: string }) => t.node.app.inject({
  method: 'POST', url: '/api/v1/payments/stripe/webhook', payload: event.payload,
  headers: { 'content-type': 'application/json', 'stripe-signature': event.signature },
});
const orderOf = async (api: ApiClient, orderId: string) => (await api.request('GET', `/api/v1/orders/${orderId}`)).body;
const seatOf = async (api: ApiClient, showId: string, seatId: string) =>
  ((await api.request('GET', `/api/v1/shows/${showId}/seats`)).body.seats as { seatId: string; status: string }[]).find((s) => s.seatId === seatId)?.status;

describe('Stripe Checkout', () => {
  it('opens one Checkout Session per order (keyed by the order id) and answers its hosted page', async () => {
    const alice = await buyer();
    const { order } = await placeOrder(alice, ['A-1-1', 'A-1-2']);
    expect(order.paymentId).toMatch(/^cs_test_/);
    expect(order.checkoutUrl).toBe(`https://checkout.stripe.test/c/pay/${order.paymentId}`);
    expect(stripe.createKeys.at(-1)).toBe(order.orderId);
    const session = stripe.sessions.get(order.paymentId);
    expect(session).toMatchObject({ amount_total: order.amountCents, client_reference_id: order.orderId, currency: 'cny' });
    // The order's page offers the same hosted page while it is unpaid (a buyer who came back without paying).
    expect((await alice.request('GET', `/api/v1/orders/${order.orderId}`)).body.checkoutUrl).toBe(order.checkoutUrl);
  });

  it('sells on a signed checkout.session.completed, and a duplicate event changes nothing', async () => {
    const alice = await buyer();
    const { showId, order } = await placeOrder(alice, ['A-2-1']);
    const event = stripe.signedEvent('checkout.session.completed', stripe.pay(order.paymentId), webhookSecret, { eventId: 'evt_dup' });
    const first = await deliver(event);
    expect({ status: first.statusCode, body: first.json() }).toEqual({ status: 200, body: { received: true, outcome: 'SOLD' } });
    expect((await deliver(event)).json()).toEqual({ received: true, outcome: 'DUPLICATE' });
    const done = await eventually(async () => {
      const o = await orderOf(alice, order.orderId);
      return o.status === 'TICKETED' ? o : undefined;
    });
    expect(done.tickets).toHaveLength(1);
    expect(await seatOf(alice, showId, 'A-2-1')).toBe('SOLD');
  });

  it('cancels on a decline (the session expires unpaid) and frees the seat', async () => {
    const alice = await buyer();
    const { showId, order } = await placeOrder(alice, ['A-3-1']);
    const reply = await deliver(stripe.signedEvent('checkout.session.expired', stripe.expire(order.paymentId), webhookSecret));
    expect(reply.json()).toEqual({ received: true, outcome: 'CANCELLED' });
    expect((await orderOf(alice, order.orderId)).status).toBe('CANCELLED');
    expect(await seatOf(alice, showId, 'A-3-1')).toBe('AVAILABLE');
  });

  it('sells a payment for a lapsed hold whose seat is still free', async () => {
    const alice = await buyer();
    const { showId, order } = await placeOrder(alice, ['A-4-1']);
    expect((await alice.request('POST', `/api/v1/orders/${order.orderId}/cancel`)).status).toBe(200);
    const reply = await deliver(stripe.signedEvent('checkout.session.completed', stripe.pay(order.paymentId), webhookSecret));
    expect(reply.json()).toEqual({ received: true, outcome: 'SOLD_LATE' });
    expect(await seatOf(alice, showId, 'A-4-1')).toBe('SOLD');
  });

  it('refunds through Stripe a payment for a lapsed hold whose seat someone else took', async () => {
    const [alice, bob] = [await buyer(), await buyer()];
    const { showId, order } = await placeOrder(alice, ['A-5-1']);
    expect((await alice.request('POST', `/api/v1/orders/${order.orderId}/cancel`)).status).toBe(200);
    await placeOrder(bob, ['A-5-1'], showId);
    const reply = await deliver(stripe.signedEvent('checkout.session.completed', stripe.pay(order.paymentId), webhookSecret));
    expect(reply.json()).toEqual({ received: true, outcome: 'REFUND_REQUIRED' });
    await eventually(async () => ((await orderOf(alice, order.orderId)).status === 'REFUNDED' ? true : undefined), 5_000, 'refund');
    const refunds = stripe.refunds.filter((r) => r.payment_intent === `pi_${order.paymentId}`);
    expect(refunds).toEqual([expect.objectContaining({ amount: order.amountCents, idempotencyKey: `refund:${order.paymentId}` })]);
    expect(await seatOf(alice, showId, 'A-5-1')).toBe('HELD');
  });

  it('refuses a forged signature (401 SIGNATURE_INVALID) and one dated outside the tolerance, past or future (401 SIGNATURE_EXPIRED); nothing is applied', async () => {
    const alice = await buyer();
    const { showId, order } = await placeOrder(alice, ['A-6-1']);
    const session = { ...stripe.sessions.get(order.paymentId)!, status: 'complete' as const, payment_status: 'paid' as const };
    const forged = await deliver(stripe.signedEvent('checkout.session.completed', session, 'whsec_not_ours'));
    expect({ status: forged.statusCode, code: forged.json().code }).toEqual({ status: 401, code: 'SIGNATURE_INVALID' });
    const tampered = stripe.signedEvent('checkout.session.completed', { ...session, payment_status: 'unpaid' }, webhookSecret);
    const swapped = await deliver({ payload: JSON.stringify({ ...JSON.parse(tampered.payload), data: { object: session } }), signature: tampered.signature });
    expect({ status: swapped.statusCode, code: swapped.json().code }).toEqual({ status: 401, code: 'SIGNATURE_INVALID' });
    const stale = await deliver(stripe.signedEvent('checkout.session.completed', session, webhookSecret, { timestamp: Math.floor(Date.now() / 1000) - 301 }));
    expect({ status: stale.statusCode, code: stale.json().code }).toEqual({ status: 401, code: 'SIGNATURE_EXPIRED' });
    // Outside the tolerance the other way (issue 33): a genuine signature dated 400 s ahead.
    const ahead = await deliver(stripe.signedEvent('checkout.session.completed', session, webhookSecret, { timestamp: Math.floor(Date.now() / 1000) + 400 }));
    expect({ status: ahead.statusCode, code: ahead.json().code }).toEqual({ status: 401, code: 'SIGNATURE_EXPIRED' });
    const unsigned = await t.node.app.inject({ method: 'POST', url: '/api/v1/payments/stripe/webhook', payload: '{}', headers: { 'content-type': 'application/json' } });
    expect(unsigned.json().code).toBe('SIGNATURE_INVALID');
    expect((await orderOf(alice, order.orderId)).status).toBe('PENDING_PAY');
    expect(await seatOf(alice, showId, 'A-6-1')).toBe('HELD');
  });

  it('reconciles a payment whose webhook never came by asking Stripe about the session', async () => {
    const alice = await buyer();
    const { order } = await placeOrder(alice, ['A-7-1']);
    const { order: open } = await placeOrder(alice, ['A-7-2']);
    stripe.pay(order.paymentId);
    expect(await reconcilePendingPayments(t.node.ctx, 0)).toBe(1);
    expect(['PAID', 'TICKETED']).toContain((await orderOf(alice, order.orderId)).status);
    // A session still open is left pending.
    expect((await orderOf(alice, open.orderId)).status).toBe('PENDING_PAY');
  });

  it('acknowledges events that decide nothing', async () => {
    const alice = await buyer();
    const { order } = await placeOrder(alice, ['A-8-1']);
    const reply = await deliver(stripe.signedEvent('checkout.session.completed', stripe.sessions.get(order.paymentId)!, webhookSecret));
    expect(reply.json()).toEqual({ received: true, outcome: null });
    expect((await deliver(stripe.signedEvent('customer.created', stripe.sessions.get(order.paymentId)!, webhookSecret))).json()).toEqual({ received: true, outcome: null });
    expect((await orderOf(alice, order.orderId)).status).toBe('PENDING_PAY');
  });
});
