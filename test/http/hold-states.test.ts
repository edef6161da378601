import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, ApiClient, createShow } from '../support/api-client.js';
import { startTestNode, type TestNode } from '../support/backend.js';
import { postCallback } from '../support/payments.js';
import { eventually } from '../support/wait.js';

/**
 * One hold state, one answer, on every route that acts on a hold: an expired hold is
 * HOLD_EXPIRED and a released or confirmed one HOLD_NOT_ACTIVE, whether the buyer extends it,
 * releases it, orders from it or pays for its order. ILLEGAL_TRANSITION never reaches a client.
 */
let t: TestNode & { baseUrl: string };
let admin: ApiClient;
let seq = 0;

beforeAll(async () => {
  t = await startTestNode();
  admin = await adminClient(t.node.app);
});
afterAll(async () => t.close());

interface Ended {
  readonly api: ApiClient;
  readonly holdId: string;
  readonly orderId: string;
}

/** A hold with a pending order on it, for `api`, lasting `holdSeconds`. */
async function holdWithOrder(holdSeconds = 60): Promise<Ended> {
  const api = await new ApiClient(t.node.app).signUp(`states${++seq}`);
  const showId = await createShow(admin);
  const hold = await api.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-1-1'], holdSeconds });
  expect(hold.status).toBe(201);
  const order = await api.request('POST', '/api/v1/orders', { holdId: hold.body.holdId }, { 'x-idempotency-key': `first-${seq}` });
  expect(order.status).toBe(201);
  return { api, holdId: hold.body.holdId as string, orderId: order.body.orderId as string };
}

const stateOf = async (holdId: string) => (await t.node.ctx.store.getHold(holdId))?.status;

const ended: Record<'RELEASED' | 'EXPIRED' | 'CONFIRMED', { code: string; make: () => Promise<Ended> }> = {
  RELEASED: {
    code: 'HOLD_NOT_ACTIVE',
    async make() {
      const h = await holdWithOrder();
      expect((await h.api.request('DELETE', `/api/v1/holds/${h.holdId}`)).status).toBe(200);
      return h;
    },
  },
  EXPIRED: {
    code: 'HOLD_EXPIRED',
    async make() {
      const h = await holdWithOrder(1);
      await eventually(async () => ((await stateOf(h.holdId)) === 'EXPIRED' ? true : undefined), 4_000, 'hold expired');
      return h;
    },
  },
  CONFIRMED: {
    code: 'HOLD_NOT_ACTIVE',
    async make() {
      const h = await holdWithOrder();
      const order = (await h.api.request('GET', `/api/v1/orders/${h.orderId}`)).body;
      const paid = await postCallback(t.node.app, t.node.config.secrets.payment, {
        paymentId: order.paymentId, orderId: h.orderId, status: 'SUCCEEDED', amountCents: order.amountCents,
      });
      expect(paid.body.outcome).toBe('SOLD');
      return h;
    },
  },
};

const routes: Record<string, (h: Ended) => Promise<{ status: number; body: { code?: string; details?: Record<string, unknown> } }>> = {
  extend: (h) => h.api.request('POST', `/api/v1/holds/${h.holdId}/extend`, { seconds: 30 }),
  release: (h) => h.api.request('DELETE', `/api/v1/holds/${h.holdId}`),
  order: (h) => h.api.request('POST', '/api/v1/orders', { holdId: h.holdId }, { 'x-idempotency-key': `again-${++seq}` }),
  pay: (h) => h.api.request('POST', `/api/v1/orders/${h.orderId}/sandbox-pay`, {}),
};

describe('a hold that has ended answers the same code on every route', () => {
  for (const [state, { code, make }] of Object.entries(ended)) {
    it(`${state}: extend, release, order and pay all answer 409 ${code} (pay of a paid order: ORDER_ALREADY_PAID)`, async () => {
      const h = await make();
      expect(await stateOf(h.holdId)).toBe(state);
      const answers: Record<string, unknown> = {};
      for (const [route, call] of Object.entries(routes)) {
        const reply = await call(h);
        answers[route] = { status: reply.status, code: reply.body.code, status_in_details: reply.body.details?.status };
      }
      const same = { status: 409, code, status_in_details: state };
      // Except paying a paid order again: the buyer is told the order is paid (issue 20, defect 11).
      const pay = state === 'CONFIRMED' ? { status: 409, code: 'ORDER_ALREADY_PAID', status_in_details: expect.stringMatching(/^(PAID|TICKETED)$/) } : same;
      expect(answers).toEqual({ extend: same, release: same, order: same, pay });
    }, 10_000);
  }

  it('a retry with the key of an order cut short by a provider outage answers by the hold state too', async () => {
    const sandbox = t.node.sandbox;
    if (sandbox === null) throw new Error('the sandbox provider is off');
    const api = await new ApiClient(t.node.app).signUp(`states${++seq}`);
    const showId = await createShow(admin);
    const hold = await api.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-2-2'], holdSeconds: 1 });
    const order = () => api.request('POST', '/api/v1/orders', { holdId: hold.body.holdId }, { 'x-idempotency-key': `outage-${seq}` });
    sandbox.setAvailable(false);
    try {
      expect((await order()).status).toBe(502);
    } finally {
      sandbox.setAvailable(true);
    }
    await eventually(async () => ((await stateOf(hold.body.holdId)) === 'EXPIRED' ? true : undefined), 4_000, 'hold expired');
    const retried = await order();
    expect({ status: retried.status, code: retried.body.code }).toEqual({ status: 409, code: 'HOLD_EXPIRED' });
    const extend = await api.request('POST', `/api/v1/holds/${hold.body.holdId}/extend`, {});
    expect(extend.body.code).toBe('HOLD_EXPIRED');
  });

  it('a hold released while the provider opens the payment answers HOLD_NOT_ACTIVE to the order, not HOLD_EXPIRED', async () => {
    const sandbox = t.node.sandbox;
    if (sandbox === null) throw new Error('the sandbox provider is off');
    const api = await new ApiClient(t.node.app).signUp(`states${++seq}`);
    const showId = await createShow(admin);
    const hold = await api.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-3-3'] });
    sandbox.setCallDelayMs(400);
    try {
      const ordering = api.request('POST', '/api/v1/orders', { holdId: hold.body.holdId }, { 'x-idempotency-key': `slow-${seq}` });
      // The order is opened at once; the provider then takes 400 ms to open the payment.
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect((await api.request('DELETE', `/api/v1/holds/${hold.body.holdId}`)).status).toBe(200);
      const answer = await ordering;
      expect({ status: answer.status, code: answer.body.code }).toEqual({ status: 409, code: 'HOLD_NOT_ACTIVE' });
    } finally {
      sandbox.setCallDelayMs(0);
    }
  });
});
