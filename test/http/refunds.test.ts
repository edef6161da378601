import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, ApiClient } from '../support/api-client.js';
import { startTestNode, type TestNode } from '../support/backend.js';
import { postCallback } from '../support/payments.js';
import { eventually } from '../support/wait.js';

let t: TestNode & { baseUrl: string };
let admin: ApiClient;
let seq = 0;

beforeAll(async () => {
  t = await startTestNode();
  admin = await adminClient(t.node.app);
});
afterAll(async () => t.close());

/** A show starting in 10 days, with the given refund policy (absent: none). */
async function show(refundUntilHoursBefore?: number): Promise<string> {
  const now = Date.now();
  const reply = await admin.request('POST', '/api/v1/admin/shows', {
    title: 'Refund Show', venue: 'Hall', city: 'City',
    startsAt: new Date(now + 10 * 86_400_000).toISOString(), saleStartsAt: new Date(now - 60_000).toISOString(), saleEndsAt: new Date(now + 5 * 86_400_000).toISOString(),
    seatMap: { sections: [{ id: 'A', name: 'Stalls', rows: 2, seatsPerRow: 5, priceCents: 5000 }] },
    ...(refundUntilHoursBefore === undefined ? {} : { refundUntilHoursBefore, exchangeUntilHoursBefore: 48 }),
  });
  expect(reply.status).toBe(201);
  return reply.body.showId as string;
}

/**
 * A buyer with a paid, ticketed order of these seats: paid through the sandbox (which then knows
 * the money), or by a bare signed callback the sandbox never saw (so it refuses to refund it).
 */
async function ticketed(showId: string, seatIds: string[], via: 'sandbox' | 'callback' = 'sandbox'): Promise<{ buyer: ApiClient; orderId: string; ticketIds: string[] }> {
  const buyer = await new ApiClient(t.node.app).signUp(`refunder${++seq}`);
  const hold = await buyer.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds });
  const order = (await buyer.request('POST', '/api/v1/orders', { holdId: hold.body.holdId }, { 'x-idempotency-key': `o-${seq}` })).body;
  if (via === 'sandbox') expect((await buyer.request('POST', `/api/v1/orders/${order.orderId}/sandbox-pay`, { outcome: 'SUCCEEDED' })).status).toBe(202);
  else await postCallback(t.node.app, t.node.config.secrets.payment, { paymentId: order.paymentId, orderId: order.orderId, status: 'SUCCEEDED', amountCents: order.amountCents });
  const tickets = await eventually(async () => {
    const o = (await buyer.request('GET', `/api/v1/orders/${order.orderId}`)).body;
    return o.status === 'TICKETED' ? (o.tickets as { ticketId: string }[]) : undefined;
  });
  return { buyer, orderId: order.orderId, ticketIds: tickets.map((k) => k.ticketId) };
}

const refund = (client: ApiClient, orderId: string, body: unknown, key: string | null = `r-${++seq}`) =>
  client.request('POST', `/api/v1/orders/${orderId}/refund`, body, key === null ? {} : { 'x-idempotency-key': key });

describe('buyer refunds (issue 25)', () => {
  it('refunds chosen tickets within the policy: revoked at once, money and seat back once the provider confirms, the same key the same refund', async () => {
    const showId = await show(24);
    const { buyer, orderId, ticketIds } = await ticketed(showId, ['A-1-1', 'A-1-2']);
    const first = await refund(buyer, orderId, { ticketIds: [ticketIds[0]] }, 'refund-key-1');
    expect(first.status).toBe(202);
    expect(first.body).toMatchObject({ orderId, ticketIds: [ticketIds[0]], whole: false, amountCents: 5000, requestedBy: 'BUYER' });
    const replay = await refund(buyer, orderId, { ticketIds: [ticketIds[0]] }, 'refund-key-1');
    expect({ status: replay.status, id: replay.body.refundId, replayed: replay.headers['idempotent-replayed'] }).toEqual({ status: 202, id: first.body.refundId, replayed: 'true' });
    // Revoked at once: on the door's list, whatever the provider says later.
    const revoked = await admin.request('GET', `/api/v1/shows/${showId}/revoked-tickets`);
    expect(revoked.body.ticketIds).toEqual([ticketIds[0]]);
    const done = await eventually(async () => {
      const r = (await buyer.request('GET', `/api/v1/orders/${orderId}/refunds`)).body;
      return r.refunds[0]?.status === 'REFUNDED' ? r : undefined;
    });
    expect(done.refunds).toHaveLength(1);
    expect(Date.parse(done.refundUntil)).toBeGreaterThan(Date.now());
    const order = (await buyer.request('GET', `/api/v1/orders/${orderId}`)).body;
    expect(order).toMatchObject({ status: 'TICKETED', refundedCents: 5000 });
    expect(order.tickets.map((k: { status: string }) => k.status).sort()).toEqual(['INVALID', 'VALID']);
    // The seat is for sale again.
    const other = await new ApiClient(t.node.app).signUp(`other${++seq}`);
    expect((await other.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-1-1'] })).status).toBe(201);
    // A refunded ticket is not refunded twice; the provider saw one refund under the refund's own key.
    expect((await refund(buyer, orderId, { ticketIds: [ticketIds[0]] })).body.code).toBe('TICKET_NOT_REFUNDABLE');
    // The rest of the order: a whole refund.
    const rest = await refund(buyer, orderId, null);
    expect(rest.body).toMatchObject({ whole: true, amountCents: 5000, ticketIds: [ticketIds[1]] });
    await eventually(async () => ((await buyer.request('GET', `/api/v1/orders/${orderId}`)).body.status === 'REFUNDED' ? true : undefined));
    expect((await refund(buyer, orderId, null)).body.code).toBe('ORDER_NOT_REFUNDABLE');
  });

  it('outside the policy a buyer gets 409 REFUND_NOT_ALLOWED; an admin (organizer) refunds any time; someone else\'s order is 404', async () => {
    const showId = await show();
    const { buyer, orderId } = await ticketed(showId, ['A-2-1']);
    const refused = await refund(buyer, orderId, null);
    expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 409, code: 'REFUND_NOT_ALLOWED' });
    const stranger = await new ApiClient(t.node.app).signUp(`stranger${++seq}`);
    const hidden = await refund(stranger, orderId, null);
    expect({ status: hidden.status, code: hidden.body.code }).toEqual({ status: 404, code: 'ORDER_NOT_FOUND' });
    const byAdmin = await refund(admin, orderId, null);
    expect(byAdmin.status).toBe(202);
    expect(byAdmin.body.requestedBy).toBe('ORGANIZER');
  });

  it('a refund the provider refuses gives the tickets back: valid again, off the revocation list, the order TICKETED', async () => {
    const showId = await show(24);
    const { buyer, orderId } = await ticketed(showId, ['A-1-5'], 'callback');
    expect((await refund(buyer, orderId, null)).status).toBe(202);
    const refused = await eventually(async () => {
      const r = (await buyer.request('GET', `/api/v1/orders/${orderId}/refunds`)).body;
      return r.refunds[0]?.status === 'REFUSED' ? r.refunds[0] : undefined;
    });
    expect(refused.reason).toMatch(/refused/);
    const order = (await buyer.request('GET', `/api/v1/orders/${orderId}`)).body;
    expect(order).toMatchObject({ status: 'TICKETED', refundedCents: 0 });
    expect(order.tickets.map((k: { status: string }) => k.status)).toEqual(['VALID']);
    expect((await admin.request('GET', `/api/v1/shows/${showId}/revoked-tickets`)).body.ticketIds).toEqual([]);
  });

  it('PATCH moves the policy: a deadline now past refuses the buyer', async () => {
    const showId = await show(24);
    const { buyer, orderId } = await ticketed(showId, ['A-2-2']);
    const patched = await admin.request('PATCH', `/api/v1/admin/shows/${showId}`, { refundUntilHoursBefore: 300 });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ refundUntilHoursBefore: 300, exchangeUntilHoursBefore: 48 });
    expect((await refund(buyer, orderId, null)).body.code).toBe('REFUND_NOT_ALLOWED');
    expect((await admin.request('PATCH', `/api/v1/admin/shows/${showId}`, { refundUntilHoursBefore: -1 })).status).toBe(400);
  });

  it('bad input is a 400 with a stable code: no key, an empty or oversized list, unknown fields', async () => {
    const showId = await show(24);
    const { buyer, orderId } = await ticketed(showId, ['A-2-3']);
    for (const [body, key] of [[null, null], [{ ticketIds: [] }, 'k1'], [{ ticketIds: Array.from({ length: 1001 }, (_, i) => `t${i}`) }, 'k2'], [{ extra: 1 }, 'k3']] as const) {
      const reply = await refund(buyer, orderId, body, key);
      expect({ status: reply.status, code: reply.body.code }).toEqual({ status: 400, code: 'VALIDATION_FAILED' });
    }
    expect((await refund(buyer, orderId, { ticketIds: ['tkt_nope'] })).body.code).toBe('TICKET_NOT_REFUNDABLE');
  });
});

describe('show cancellation (issue 25)', () => {
  it('stops sales at once, releases holds, refunds every paid order once, shows its progress; a second cancel is 409', async () => {
    const showId = await show();
    const paid = [await ticketed(showId, ['A-1-1', 'A-1-2']), await ticketed(showId, ['A-1-3'])];
    const holder = await new ApiClient(t.node.app).signUp(`holder${++seq}`);
    const hold = await holder.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-2-1'] });
    expect(hold.status).toBe(201);
    const buyer = paid[0]?.buyer as ApiClient;
    expect((await buyer.request('POST', `/api/v1/admin/shows/${showId}/cancel`, { reason: 'storm' })).status).toBe(403);
    const cancelled = await admin.request('POST', `/api/v1/admin/shows/${showId}/cancel`, { reason: 'storm' });
    expect(cancelled.status).toBe(202);
    expect(cancelled.body).toMatchObject({ showId, reason: 'storm' });
    // Sales stop at once.
    const late = await holder.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-2-2'] });
    expect({ status: late.status, code: late.body.code }).toEqual({ status: 409, code: 'SHOW_CANCELLED' });
    expect((await holder.request('GET', `/api/v1/shows/${showId}`)).body).toMatchObject({ status: 'ENDED', cancelled: true, cancelReason: 'storm' });
    const progress = await eventually(async () => {
      const p = (await admin.request('GET', `/api/v1/admin/shows/${showId}/cancellation`)).body;
      return p.done === true ? p : undefined;
    });
    expect(progress).toMatchObject({ ordersToRefund: 0, activeHolds: 0, ordersByStatus: { REFUNDED: 2 }, refundsByStatus: { REFUNDED: 2 } });
    for (const { buyer: b, orderId } of paid) {
      const refunds = (await b.request('GET', `/api/v1/orders/${orderId}/refunds`)).body.refunds;
      expect(refunds).toHaveLength(1);
      expect(refunds[0]).toMatchObject({ status: 'REFUNDED', whole: true, requestedBy: 'ORGANIZER' });
    }
    expect((await admin.request('GET', `/api/v1/shows/${showId}/revoked-tickets`)).body.ticketIds).toHaveLength(3);
    expect((await t.node.ctx.store.getHold(hold.body.holdId))?.status).toBe('RELEASED');
    const again = await admin.request('POST', `/api/v1/admin/shows/${showId}/cancel`, { reason: 'twice' });
    expect({ status: again.status, code: again.body.code }).toEqual({ status: 409, code: 'SHOW_CANCELLED' });
  });

  it('bad input: no reason, a reason too long, an unknown show, progress of a show not cancelled', async () => {
    const showId = await show();
    for (const body of [{}, { reason: '' }, { reason: 'x'.repeat(501) }, { reason: 'ok', extra: 1 }]) {
      const reply = await admin.request('POST', `/api/v1/admin/shows/${showId}/cancel`, body);
      expect({ status: reply.status, code: reply.body.code }).toEqual({ status: 400, code: 'VALIDATION_FAILED' });
    }
    expect((await admin.request('POST', '/api/v1/admin/shows/shw_nope/cancel', { reason: 'x' })).status).toBe(404);
    expect((await admin.request('GET', `/api/v1/admin/shows/${showId}/cancellation`)).status).toBe(404);
  });
});
