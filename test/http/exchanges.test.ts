import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SwapExchangeInput } from '../../src/ports/engine/index.js';
import { adminClient, ApiClient } from '../support/api-client.js';
import { startTestNode, type TestNode } from '../support/backend.js';
import { eventually } from '../support/wait.js';

let t: TestNode & { baseUrl: string };
let admin: ApiClient;
let seq = 0;

beforeAll(async () => {
  t = await startTestNode();
  admin = await adminClient(t.node.app);
});
afterAll(async () => t.close());

/** A show starting in 10 days, with the given exchange policy (absent: none). */
async function show(exchangeUntilHoursBefore?: number): Promise<string> {
  const now = Date.now();
  const reply = await admin.request('POST', '/api/v1/admin/shows', {
    title: 'Exchange Show', venue: 'Hall', city: 'City',
    startsAt: new Date(now + 10 * 86_400_000).toISOString(), saleStartsAt: new Date(now - 60_000).toISOString(), saleEndsAt: new Date(now + 5 * 86_400_000).toISOString(),
    seatMap: { sections: [{ id: 'A', name: 'Stalls', rows: 2, seatsPerRow: 5, priceCents: 5000 }, { id: 'B', name: 'Balcony', rows: 1, seatsPerRow: 5, priceCents: 3000 }] },
    ...(exchangeUntilHoursBefore === undefined ? {} : { exchangeUntilHoursBefore }),
  });
  expect(reply.status).toBe(201);
  return reply.body.showId as string;
}

async function ticketed(showId: string, seatIds: string[]): Promise<{ buyer: ApiClient; orderId: string; ticketIds: string[] }> {
  const buyer = await new ApiClient(t.node.app).signUp(`exchanger${++seq}`);
  const hold = await buyer.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds });
  const order = (await buyer.request('POST', '/api/v1/orders', { holdId: hold.body.holdId }, { 'x-idempotency-key': `o-${seq}` })).body;
  expect((await buyer.request('POST', `/api/v1/orders/${order.orderId}/sandbox-pay`, { outcome: 'SUCCEEDED' })).status).toBe(202);
  const tickets = await eventually(async () => {
    const o = (await buyer.request('GET', `/api/v1/orders/${order.orderId}`)).body;
    return o.status === 'TICKETED' ? (o.tickets as { ticketId: string }[]) : undefined;
  });
  return { buyer, orderId: order.orderId, ticketIds: tickets.map((k) => k.ticketId) };
}

const exchange = (client: ApiClient, orderId: string, body: unknown) => client.request('POST', `/api/v1/orders/${orderId}/exchange`, body);
const seatStatus = async (showId: string, seatId: string): Promise<string> =>
  ((await admin.request('GET', `/api/v1/shows/${showId}/seats`)).body.seats as { seatId: string; status: string }[]).find((s) => s.seatId === seatId)?.status ?? 'missing';

describe('exchanges 改签 (issue 25 item 4)', () => {
  it('an even swap on the same show: 201 with the new tickets, the old ones revoked, the old seats free', async () => {
    const showId = await show(24);
    const { buyer, orderId, ticketIds } = await ticketed(showId, ['A-1-1', 'A-1-2']);
    const swapped = await exchange(buyer, orderId, { seatIds: ['A-2-4', 'A-2-5'] });
    expect(swapped.status).toBe(201);
    expect(swapped.body.exchange).toMatchObject({ oldOrderId: orderId, oldTicketIds: ticketIds, newShowId: showId, differenceCents: 0 });
    expect(swapped.body.order).toMatchObject({ status: 'TICKETED', amountCents: 10_000 });
    expect(swapped.body.tickets.map((k: { seatId: string; status: string }) => [k.seatId, k.status])).toEqual([['A-2-4', 'VALID'], ['A-2-5', 'VALID']]);
    const old = (await buyer.request('GET', `/api/v1/orders/${orderId}`)).body;
    expect(old.tickets.map((k: { status: string }) => k.status)).toEqual(['INVALID', 'INVALID']);
    expect(((await admin.request('GET', `/api/v1/shows/${showId}/revoked-tickets`)).body.ticketIds as string[]).sort()).toEqual([...ticketIds].sort());
    // The new order is the buyer's like any other.
    expect((await buyer.request('GET', `/api/v1/orders/${swapped.body.order.orderId}`)).body.status).toBe('TICKETED');
    // The old seats are for sale again.
    const other = await new ApiClient(t.node.app).signUp(`other${++seq}`);
    expect((await other.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-1-1'] })).status).toBe(201);
    // Exchanged once: the old order has nothing left to exchange.
    expect((await exchange(buyer, orderId, { seatIds: ['A-1-3', 'A-1-4'] })).body.code).toBe('ORDER_NOT_TICKETED');
  });

  it('to another show by section + quantity', async () => {
    const from = await show(24);
    const to = await show(24);
    const { buyer, orderId } = await ticketed(from, ['A-1-3']);
    const swapped = await exchange(buyer, orderId, { showId: to, section: 'A', quantity: 1 });
    expect(swapped.status).toBe(201);
    expect(swapped.body.order.showId ?? swapped.body.order.activityId).toBe(to);
    expect(swapped.body.tickets).toHaveLength(1);
  });

  it('policy, ownership and price: 409 EXCHANGE_NOT_ALLOWED for the buyer, an admin any time, 404 for a stranger, 202 for dearer seats (called off: the held seat goes back)', async () => {
    const showId = await show();
    const { buyer, orderId } = await ticketed(showId, ['B-1-5']);
    const refused = await exchange(buyer, orderId, { seatIds: ['A-2-1'] });
    expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 409, code: 'EXCHANGE_NOT_ALLOWED' });
    const stranger = await new ApiClient(t.node.app).signUp(`stranger${++seq}`);
    const hidden = await exchange(stranger, orderId, { seatIds: ['A-2-1'] });
    expect({ status: hidden.status, code: hidden.body.code }).toEqual({ status: 404, code: 'ORDER_NOT_FOUND' });
    // Dearer seats wait for the difference (issue 32): 202, the new order PENDING_PAY for 2000, the seat held.
    const dearer = await exchange(admin, orderId, { seatIds: ['A-2-1'] });
    expect({ status: dearer.status, exchange: dearer.body.exchange?.status, differenceCents: dearer.body.exchange?.differenceCents }).toEqual({ status: 202, exchange: 'PENDING', differenceCents: 2000 });
    expect(dearer.body.order).toMatchObject({ status: 'PENDING_PAY', amountCents: 2000 });
    expect(await seatStatus(showId, 'A-2-1')).toBe('HELD');
    // The buyer calls it off: the hold goes back with the order, the exchange ends ABANDONED, the old ticket untouched.
    expect((await buyer.request('POST', `/api/v1/orders/${dearer.body.order.orderId}/cancel`)).status).toBe(200);
    expect(await seatStatus(showId, 'A-2-1')).toBe('AVAILABLE');
    expect((await t.node.ctx.store.exchangeIntoOrder(dearer.body.order.orderId))?.status).toBe('ABANDONED');
    const byAdmin = await exchange(admin, orderId, { seatIds: ['B-1-1'] });
    expect(byAdmin.status).toBe(201);
    expect((await buyer.request('GET', `/api/v1/orders/${byAdmin.body.order.orderId}`)).status).toBe(200);
  });

  it('the new hold lapsed before the swap: 409 HOLD_EXPIRED, the old tickets still VALID, nothing changed', async () => {
    const showId = await show(24);
    const { buyer, orderId } = await ticketed(showId, ['A-2-2']);
    const store = t.node.ctx.store as unknown as { swapExchange: (input: SwapExchangeInput) => Promise<unknown> };
    const real = store.swapExchange;
    // The swap runs after the hold's end (as if the process stalled between the hold and the swap).
    store.swapExchange = (input) => real.call(t.node.ctx.store, { ...input, now: input.now + 60 * 60_000 });
    try {
      const late = await exchange(buyer, orderId, { seatIds: ['A-2-3'] });
      expect({ status: late.status, code: late.body.code }).toEqual({ status: 409, code: 'HOLD_EXPIRED' });
    } finally {
      store.swapExchange = real;
    }
    const old = (await buyer.request('GET', `/api/v1/orders/${orderId}`)).body;
    expect(old).toMatchObject({ status: 'TICKETED' });
    expect(old.tickets.map((k: { status: string }) => k.status)).toEqual(['VALID']);
    expect(await seatStatus(showId, 'A-2-2')).toBe('SOLD');
    expect(await seatStatus(showId, 'A-2-3')).toBe('AVAILABLE');
  });

  it('X-Idempotency-Key: a retried exchange answers the same exchange and takes nothing twice; another body is 422; a refusal frees the key', async () => {
    const showId = await show(24);
    const { buyer, orderId } = await ticketed(showId, ['B-1-2']);
    const keyed = (body: unknown, key: string) => buyer.request('POST', `/api/v1/orders/${orderId}/exchange`, body, { 'x-idempotency-key': key });
    // Refused (a ticket not of this order): nothing changed, and the key is free for the request that may succeed.
    const refused = await keyed({ seatIds: ['A-1-5'], ticketIds: ['tkt_not_mine'] }, 'swap-1');
    expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 409, code: 'TICKET_NOT_EXCHANGEABLE' });
    const first = await keyed({ seatIds: ['B-1-3'] }, 'swap-2');
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await keyed({ seatIds: ['B-1-3'] }, 'swap-2');
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    // Nothing taken twice: one exchange, one new order, one seat sold, the next seat still free.
    const store = t.node.ctx.store;
    expect(await store.exchangesOfOrder(orderId)).toHaveLength(1);
    expect(await seatStatus(showId, 'B-1-3')).toBe('SOLD');
    expect(await seatStatus(showId, 'B-1-4')).toBe('AVAILABLE');
    expect(await seatStatus(showId, 'B-1-2')).toBe('AVAILABLE');
    const list = (await buyer.request('GET', '/api/v1/me/orders')).body.orders as { orderId: string }[];
    expect(list.filter((o) => o.orderId !== orderId).map((o) => o.orderId)).toEqual([first.body.order.orderId]);
    const reused = await keyed({ seatIds: ['B-1-4'] }, 'swap-2');
    expect({ status: reused.status, code: reused.body.code }).toEqual({ status: 422, code: 'IDEMPOTENCY_KEY_REUSED' });
  });

  it('bad input is 400', async () => {
    const showId = await show(24);
    const { buyer, orderId } = await ticketed(showId, ['A-1-4']);
    for (const body of [{}, { seatIds: [] }, { section: 'A', quantity: 0 }, { seatIds: ['A-2-1'], extra: 1 }, { showId: 'x'.repeat(100), seatIds: ['A-2-1'] }, { seatIds: ['A-2-1'], ticketIds: [] }, { section: 'A', quantity: 1, ticketIds: [''] }]) {
      expect((await exchange(buyer, orderId, body)).status).toBe(400);
    }
  });
});
