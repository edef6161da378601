import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditConfiguredStore } from '../../src/audit-command.js';
import { rawSql } from '../contract/raw-sql.js';
import { adminClient, ApiClient } from '../support/api-client.js';
import { startTestNode, type TestNode } from '../support/backend.js';
import type { TestStoreHandle } from '../support/stores.js';
import { eventually } from '../support/wait.js';

/**
 * Issue 32, the "Why" cases: money that adds up across discounts, refunds, exchanges and show
 * cancellation, checked against what the sandbox provider actually paid back.
 */
let t: TestNode & { baseUrl: string };
let admin: ApiClient;
let seq = 0;
const hour = 3_600_000;

beforeAll(async () => {
  t = await startTestNode({ env: { TICKETRUSH_RATE_LIMITS: 'off' } });
  admin = await adminClient(t.node.app);
});
afterAll(async () => t?.close());

/** A show in 10 days, refunds and exchanges allowed up to 24 hours before: seated A at 380, standing GA at 1000. */
async function show(): Promise<string> {
  const now = Date.now();
  const reply = await admin.request('POST', '/api/v1/admin/shows', {
    title: 'Money Show', venue: 'Hall', city: 'City',
    startsAt: new Date(now + 10 * 86_400_000).toISOString(), saleStartsAt: new Date(now - 60_000).toISOString(), saleEndsAt: new Date(now + 5 * 86_400_000).toISOString(),
    seatMap: { sections: [{ id: 'A', name: 'Stalls', rows: 2, seatsPerRow: 5, priceCents: 380 }, { id: 'GA', name: 'Standing', kind: 'GENERAL_ADMISSION', capacity: 20, priceCents: 1000 }] },
    refundUntilHoursBefore: 24, exchangeUntilHoursBefore: 24,
  });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body.showId as string;
}

async function percentOff(percent: number): Promise<string> {
  const code = `MONEY${++seq}`;
  const reply = await admin.request('POST', '/api/v1/admin/discounts', {
    code, percentOff: percent, validFrom: new Date(Date.now() - hour).toISOString(), validUntil: new Date(Date.now() + hour).toISOString(), maxUses: 10, perUserMax: 5,
  });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return code;
}

interface Bought { buyer: ApiClient; orderId: string; paymentId: string; amountCents: number; tickets: { ticketId: string; paidCents: number }[] }

/** A buyer's paid, ticketed order of a hold request (seats or section + quantity), paid through the sandbox. */
async function bought(showId: string, request: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<Bought> {
  const buyer = await new ApiClient(t.node.app).signUp(`money${++seq}`);
  const hold = await buyer.request('POST', `/api/v1/shows/${showId}/holds`, request);
  expect(hold.status, JSON.stringify(hold.body)).toBe(201);
  const order = (await buyer.request('POST', '/api/v1/orders', { holdId: hold.body.holdId, ...extra }, { 'x-idempotency-key': `m-${seq}` })).body;
  expect((await buyer.request('POST', `/api/v1/orders/${order.orderId}/sandbox-pay`, { outcome: 'SUCCEEDED' })).status).toBe(202);
  const tickets = await eventually(async () => {
    const o = (await buyer.request('GET', `/api/v1/orders/${order.orderId}`)).body;
    return o.status === 'TICKETED' ? (o.tickets as { ticketId: string; paidCents: number }[]) : undefined;
  });
  return { buyer, orderId: order.orderId, paymentId: order.paymentId, amountCents: order.amountCents, tickets };
}

const refund = (client: ApiClient, orderId: string, body: unknown) =>
  client.request('POST', `/api/v1/orders/${orderId}/refund`, body, { 'x-idempotency-key': `r-${++seq}` });

/** The buyer's exchange of the whole or part of `b`, which must succeed at once (201: an even or cheaper swap). */
async function exchanged(b: Bought, body: Record<string, unknown>, headers?: Record<string, string>) {
  const reply = await b.buyer.request('POST', `/api/v1/orders/${b.orderId}/exchange`, body, headers);
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply;
}

/** The order's refunds once none is PENDING any more. */
const settledRefunds = (client: ApiClient, orderId: string, count: number) => eventually(async () => {
  const r = (await client.request('GET', `/api/v1/orders/${orderId}/refunds`)).body.refunds as { status: string; amountCents: number; reason: string | null }[];
  return r.length === count && r.every((x) => x.status !== 'PENDING') ? r : undefined;
});

describe('money that adds up (issue 32)', () => {
  it('Why 1: a discounted order refunds each ticket at its paid price: 2 × 380 at 20% off is 608, one refund 304, the other 304', async () => {
    const showId = await show();
    const code = await percentOff(20);
    const b = await bought(showId, { seatIds: ['A-1-1', 'A-1-2'] }, { discountCode: code });
    expect(b.amountCents).toBe(608);
    // The charge allocated over the tickets, summing exactly to it.
    expect(b.tickets.map((k) => k.paidCents)).toEqual([304, 304]);
    const first = await refund(b.buyer, b.orderId, { ticketIds: [b.tickets[0]?.ticketId] });
    expect(first.body).toMatchObject({ amountCents: 304, whole: false });
    await settledRefunds(b.buyer, b.orderId, 1);
    // The payment row follows the ledger: part of it refunded, then all of it.
    expect((await t.node.ctx.store.getPayment(b.paymentId))?.status).toBe('PARTIALLY_REFUNDED');
    const second = await refund(b.buyer, b.orderId, { ticketIds: [b.tickets[1]?.ticketId] });
    expect(second.body).toMatchObject({ amountCents: 304, whole: true });
    expect((await settledRefunds(b.buyer, b.orderId, 2)).map((r) => [r.status, r.amountCents])).toEqual([['REFUNDED', 304], ['REFUNDED', 304]]);
    expect((await t.node.ctx.store.getPayment(b.paymentId))?.status).toBe('REFUNDED');
    expect(await t.node.sandbox!.refundedCents(b.paymentId)).toBe(608);
  });

  it('a charge that does not divide evenly: the cents go to the earliest tickets (largest remainder, line order)', async () => {
    const showId = await show();
    const code = await percentOff(33);
    // 3 × 1000 at 33% off = 2010: 670 each, nothing left over; 3 × 380 = 1140 at 33% off = 764 (763.8): 255 + 255 + 254.
    const b = await bought(showId, { seatIds: ['A-2-1', 'A-2-2', 'A-2-3'] }, { discountCode: code });
    expect(b.amountCents).toBe(764);
    expect(b.tickets.map((k) => k.paidCents)).toEqual([255, 255, 254]);
  });

  it('Why 2: a discounted order swaps for seats of the same list price; the new tickets carry the paid price and refund it through the first payment', async () => {
    const showId = await show();
    const code = await percentOff(20);
    const b = await bought(showId, { seatIds: ['A-1-3', 'A-1-4'] }, { discountCode: code });
    const swapped = await exchanged(b, { seatIds: ['A-2-4', 'A-2-5'] });
    expect(swapped.body.exchange).toMatchObject({ differenceCents: 0 });
    // The value carried is what was paid (608), not the new seats' list price (760).
    expect(swapped.body.order).toMatchObject({ amountCents: 608, paymentId: null });
    expect(swapped.body.tickets.map((k: { paidCents: number }) => k.paidCents)).toEqual([304, 304]);
    const newOrderId = swapped.body.order.orderId as string;
    expect((await refund(b.buyer, newOrderId, null)).body).toMatchObject({ amountCents: 608, whole: true });
    expect((await settledRefunds(b.buyer, newOrderId, 1))[0]).toMatchObject({ status: 'REFUNDED', amountCents: 608 });
    expect(await t.node.sandbox!.refundedCents(b.paymentId)).toBe(608);
  });

  it('Why 3: a refund of an exchanged order is paid through the original payment; the store says REFUNDED only for money the provider paid back', async () => {
    const from = await show();
    const to = await show();
    const b = await bought(from, { section: 'GA', quantity: 1 });
    const swapped = await exchanged(b, { showId: to, section: 'GA', quantity: 1 });
    const newOrderId = swapped.body.order.orderId as string;
    expect((await refund(b.buyer, newOrderId, null)).status).toBe(202);
    expect((await settledRefunds(b.buyer, newOrderId, 1))[0]).toMatchObject({ status: 'REFUNDED', amountCents: 1000 });
    expect(await t.node.sandbox!.refundedCents(b.paymentId)).toBe(1000);
    // The original payment (on the exchanged-away order) is the one refunded.
    expect((await t.node.ctx.store.getPayment(b.paymentId))?.status).toBe('REFUNDED');
  });

  it('Why 3 through show cancellation: the exchanged order\'s refund reaches the original payment', async () => {
    const from = await show();
    const to = await show();
    const b = await bought(from, { section: 'GA', quantity: 2 });
    const swapped = await exchanged(b, { showId: to, section: 'GA', quantity: 2 });
    const newOrderId = swapped.body.order.orderId as string;
    expect((await admin.request('POST', `/api/v1/admin/shows/${to}/cancel`, { reason: 'storm' })).status).toBe(202);
    expect((await settledRefunds(b.buyer, newOrderId, 1))[0]).toMatchObject({ status: 'REFUNDED', amountCents: 2000 });
    expect(await t.node.sandbox!.refundedCents(b.paymentId)).toBe(2000);
    // The old order was exchanged away: the cancellation of its show has nothing of it to refund.
    expect((await b.buyer.request('GET', `/api/v1/orders/${b.orderId}/refunds`)).body.refunds).toEqual([]);
  });

  it('Why 4: buy 3, refund 1, exchange into 3: a dearer swap by one place (1000 to pay), declined, nothing changed; the 2 left refund 2000', async () => {
    const showId = await show();
    const b = await bought(showId, { section: 'GA', quantity: 3 });
    expect((await refund(b.buyer, b.orderId, { ticketIds: [b.tickets[0]?.ticketId] })).body).toMatchObject({ amountCents: 1000 });
    await settledRefunds(b.buyer, b.orderId, 1);
    // A dearer swap by one place: it waits for the difference (1000); declined, nothing changed.
    const dearerSwap = await b.buyer.request('POST', `/api/v1/orders/${b.orderId}/exchange`, { section: 'GA', quantity: 3 });
    expect({ status: dearerSwap.status, exchange: dearerSwap.body.exchange?.status, differenceCents: dearerSwap.body.exchange?.differenceCents }).toEqual({ status: 202, exchange: 'PENDING', differenceCents: 1000 });
    expect(dearerSwap.body.order).toMatchObject({ status: 'PENDING_PAY', amountCents: 1000 });
    expect((await b.buyer.request('POST', `/api/v1/orders/${dearerSwap.body.order.orderId}/sandbox-pay`, { outcome: 'FAILED' })).status).toBe(202);
    await eventually(async () => ((await b.buyer.request('GET', `/api/v1/orders/${dearerSwap.body.order.orderId}`)).body.status === 'CANCELLED' ? true : undefined));
    const after = (await b.buyer.request('GET', `/api/v1/orders/${b.orderId}`)).body;
    expect(after.tickets.map((k: { status: string }) => k.status).sort()).toEqual(['INVALID', 'VALID', 'VALID']);
    // An even swap of the two left carries 2000 (on PostgreSQL this once failed stock_within_capacity: the
    // units went back to the bucket the refund had already refilled), and refunding it pays back 2000 more: 3000 in all, as paid.
    const swapped = await exchanged(b, { section: 'GA', quantity: 2 });
    expect(swapped.body.order.amountCents).toBe(2000);
    const newOrderId = swapped.body.order.orderId as string;
    expect((await refund(b.buyer, newOrderId, null)).body).toMatchObject({ amountCents: 2000 });
    await settledRefunds(b.buyer, newOrderId, 1);
    expect(await t.node.sandbox!.refundedCents(b.paymentId)).toBe(3000);
  });

  it('a cheaper exchange: the list difference goes back through the source payment once the swap commits; the new order holds the rest', async () => {
    const showId = await show();
    const b = await bought(showId, { section: 'GA', quantity: 1 });
    const swapped = await exchanged(b, { seatIds: ['A-2-1'] }, { 'x-idempotency-key': `x-${++seq}` });
    expect(swapped.body.exchange).toMatchObject({ differenceCents: -620 });
    expect(swapped.body.order).toMatchObject({ amountCents: 380, paymentId: null });
    expect(swapped.body.tickets.map((k: { paidCents: number }) => k.paidCents)).toEqual([380]);
    // Recorded with the swap as a refund of the old order with no tickets, paid by the ordinary refund job.
    expect(swapped.body.refund).toMatchObject({ orderId: b.orderId, amountCents: 620, ticketIds: [], whole: false, reason: 'exchange difference' });
    expect((await settledRefunds(b.buyer, b.orderId, 1))[0]).toMatchObject({ status: 'REFUNDED', amountCents: 620, reason: 'exchange difference' });
    expect(await t.node.sandbox!.refundedCents(b.paymentId)).toBe(620);
    expect((await t.node.ctx.store.getPayment(b.paymentId))?.status).toBe('PARTIALLY_REFUNDED');
    // The rest refunds with the new order: 1000 in all, as paid.
    const newOrderId = swapped.body.order.orderId as string;
    expect((await refund(b.buyer, newOrderId, null)).body).toMatchObject({ amountCents: 380, whole: true });
    await settledRefunds(b.buyer, newOrderId, 1);
    expect(await t.node.sandbox!.refundedCents(b.paymentId)).toBe(1000);
    expect((await t.node.ctx.store.getPayment(b.paymentId))?.status).toBe('REFUNDED');
  });

  it('a cheaper exchange of a discounted order gives back at most the value carried (paid 500 at 50% off; the list difference is 620)', async () => {
    const showId = await show();
    const code = await percentOff(50);
    const b = await bought(showId, { section: 'GA', quantity: 1 }, { discountCode: code });
    expect(b.amountCents).toBe(500);
    const swapped = await exchanged(b, { seatIds: ['A-2-2'] });
    expect(swapped.body.exchange).toMatchObject({ differenceCents: -620 });
    expect(swapped.body.refund).toMatchObject({ amountCents: 500 });
    expect(swapped.body.order).toMatchObject({ amountCents: 0 });
    expect((await settledRefunds(b.buyer, b.orderId, 1))[0]).toMatchObject({ status: 'REFUNDED', amountCents: 500 });
    expect(await t.node.sandbox!.refundedCents(b.paymentId)).toBe(500);
    expect((await t.node.ctx.store.getPayment(b.paymentId))?.status).toBe('REFUNDED');
  });

  it('a partial exchange gives up only the named tickets: the others stay on the old order, which then refunds only what is left', async () => {
    const from = await show();
    const to = await show();
    const b = await bought(from, { section: 'GA', quantity: 3 });
    const given = b.tickets[1]?.ticketId as string;
    const swapped = await exchanged(b, { showId: to, section: 'GA', quantity: 1, ticketIds: [given] });
    expect(swapped.body.exchange).toMatchObject({ oldTicketIds: [given], differenceCents: 0 });
    expect(swapped.body.refund).toBeNull();
    expect(swapped.body.order).toMatchObject({ amountCents: 1000 });
    const old = (await b.buyer.request('GET', `/api/v1/orders/${b.orderId}`)).body;
    expect(old.status).toBe('TICKETED');
    expect(old.tickets.map((k: { ticketId: string; status: string }) => [k.ticketId, k.status])).toEqual(b.tickets.map((k) => [k.ticketId, k.ticketId === given ? 'INVALID' : 'VALID']));
    // A ticket already given up cannot be given again: 409, nothing held or changed.
    const again = await b.buyer.request('POST', `/api/v1/orders/${b.orderId}/exchange`, { showId: to, section: 'GA', quantity: 1, ticketIds: [given] });
    expect({ status: again.status, code: again.body.code }).toEqual({ status: 409, code: 'TICKET_NOT_EXCHANGEABLE' });
    // A second, cheaper, partial exchange of one of the two left: 1000 into a seat at 380 gives back 620.
    const cheaper = await b.buyer.request('POST', `/api/v1/orders/${b.orderId}/exchange`, { seatIds: ['A-1-5'], ticketIds: [b.tickets[2]?.ticketId] });
    expect(cheaper.status, JSON.stringify(cheaper.body)).toBe(201);
    expect(cheaper.body.refund).toMatchObject({ amountCents: 620 });
    await settledRefunds(b.buyer, b.orderId, 1);
    // The whole refund of the old order is the one ticket left (1000), not what the order was charged.
    expect((await refund(b.buyer, b.orderId, null)).body).toMatchObject({ amountCents: 1000, whole: true });
    await settledRefunds(b.buyer, b.orderId, 2);
    expect(await t.node.sandbox!.refundedCents(b.paymentId)).toBe(1620);
    for (const o of [swapped.body.order.orderId as string, cheaper.body.order.orderId as string]) {
      expect((await refund(b.buyer, o, null)).status).toBe(202);
      await settledRefunds(b.buyer, o, 1);
    }
    expect(await t.node.sandbox!.refundedCents(b.paymentId)).toBe(3000);
    expect((await t.node.ctx.store.getPayment(b.paymentId))?.status).toBe('REFUNDED');
  });

  it('a partial refund then an exchange of the rest into cheaper seats: 3000 paid, 1000 refunded, the 2 left (2000) swap for 2 seats (760) and 1240 goes back', async () => {
    const showId = await show();
    const b = await bought(showId, { section: 'GA', quantity: 3 });
    expect((await refund(b.buyer, b.orderId, { ticketIds: [b.tickets[0]?.ticketId] })).body).toMatchObject({ amountCents: 1000 });
    await settledRefunds(b.buyer, b.orderId, 1);
    // The refunded ticket cannot be named.
    const refused = await b.buyer.request('POST', `/api/v1/orders/${b.orderId}/exchange`, { seatIds: ['A-2-3'], ticketIds: [b.tickets[0]?.ticketId] });
    expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 409, code: 'TICKET_NOT_EXCHANGEABLE' });
    const swapped = await exchanged(b, { seatIds: ['A-2-3', 'A-2-4'] });
    expect(swapped.body.exchange).toMatchObject({ differenceCents: -1240 });
    expect(swapped.body.order).toMatchObject({ amountCents: 760 });
    expect(swapped.body.refund).toMatchObject({ amountCents: 1240 });
    await settledRefunds(b.buyer, b.orderId, 2);
    expect(await t.node.sandbox!.refundedCents(b.paymentId)).toBe(2240);
    // The seat the refused exchange held was let go.
    const other = await new ApiClient(t.node.app).signUp(`money${++seq}`);
    expect((await other.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-2-5'] })).status).toBe(201);
    const csv = ((await admin.request('GET', `/api/v1/admin/shows/${showId}/orders.csv`)).body as string).slice(1).trimEnd().split('\r\n');
    const net = csv.slice(1).reduce((sum, line) => sum + Number(line.split(',').at(-1)), 0);
    expect(net).toBe(3000 - 2240);
  });

  /** A dearer exchange begun: 202, the exchange PENDING, the new order PENDING_PAY for the difference, no tickets yet. */
  async function dearer(b: Bought, body: Record<string, unknown>, differenceCents: number) {
    const begun = await b.buyer.request('POST', `/api/v1/orders/${b.orderId}/exchange`, body, { 'x-idempotency-key': `x-${++seq}` });
    expect(begun.status, JSON.stringify(begun.body)).toBe(202);
    expect(begun.body.exchange).toMatchObject({ status: 'PENDING', differenceCents });
    expect(begun.body.order).toMatchObject({ status: 'PENDING_PAY', amountCents: differenceCents });
    expect(begun.body.tickets).toEqual([]);
    const old = (await b.buyer.request('GET', `/api/v1/orders/${b.orderId}`)).body;
    expect(old.tickets.map((k: { status: string }) => k.status)).toEqual(b.tickets.map(() => 'VALID'));
    return { exchangeId: begun.body.exchange.exchangeId as string, orderId: begun.body.order.orderId as string, paymentId: begun.body.order.paymentId as string };
  }

  const orderOf = (client: ApiClient, orderId: string) => client.request('GET', `/api/v1/orders/${orderId}`).then((r) => r.body);

  it('a dearer exchange paid: the difference is charged on its own payment, then the swap commits (old tickets INVALID, new VALID at carried + difference); the audit passes', async () => {
    const showId = await show();
    const b = await bought(showId, { seatIds: ['A-1-1'] });
    const d = await dearer(b, { section: 'GA', quantity: 1 }, 620);
    expect(d.paymentId).not.toBe(b.paymentId);
    expect((await b.buyer.request('POST', `/api/v1/orders/${d.orderId}/sandbox-pay`, { outcome: 'SUCCEEDED' })).status).toBe(202);
    const paid = await eventually(async () => {
      const o = await orderOf(b.buyer, d.orderId);
      return o.status === 'TICKETED' ? o : undefined;
    });
    expect(paid.amountCents).toBe(1000);
    expect(paid.tickets.map((k: { status: string; paidCents: number }) => [k.status, k.paidCents])).toEqual([['VALID', 1000]]);
    expect((await orderOf(b.buyer, b.orderId)).tickets.map((k: { status: string }) => k.status)).toEqual(['INVALID']);
    expect(await t.node.sandbox!.getPaymentStatus(d.paymentId)).toBe('SUCCEEDED');
    expect(await t.node.ctx.store.getPayment(d.paymentId)).toMatchObject({ status: 'SUCCEEDED', amountCents: 620 });
    expect((await t.node.ctx.store.exchangeIntoOrder(d.orderId))?.status).toBe('COMPLETED');
    // The seat given up is free again.
    const other = await new ApiClient(t.node.app).signUp(`money${++seq}`);
    expect((await other.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-1-1'] })).status).toBe(201);
    const report = await auditConfiguredStore({ database: t.node.config.database, redis: t.node.config.redis, auditBoundSeconds: 60 });
    expect({ passed: report.passed, violations: report.violations }).toEqual({ passed: true, violations: [] });
  });

  it('a dearer exchange declined: the old tickets stay VALID, the new hold is released, nothing is charged, the exchange ends ABANDONED', async () => {
    const showId = await show();
    const b = await bought(showId, { seatIds: ['A-1-2'] });
    const d = await dearer(b, { seatIds: ['A-2-1', 'A-2-2'], ticketIds: [b.tickets[0]?.ticketId] }, 380);
    expect((await b.buyer.request('POST', `/api/v1/orders/${d.orderId}/sandbox-pay`, { outcome: 'FAILED' })).status).toBe(202);
    await eventually(async () => ((await orderOf(b.buyer, d.orderId)).status === 'CANCELLED' ? true : undefined));
    expect((await orderOf(b.buyer, b.orderId)).tickets.map((k: { status: string }) => k.status)).toEqual(['VALID']);
    expect(await t.node.sandbox!.getPaymentStatus(d.paymentId)).toBe('FAILED');
    expect(await t.node.sandbox!.refundedCents(b.paymentId)).toBe(0);
    expect((await t.node.ctx.store.exchangeIntoOrder(d.orderId))?.status).toBe('ABANDONED');
    const other = await new ApiClient(t.node.app).signUp(`money${++seq}`);
    expect((await other.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-2-1', 'A-2-2'] })).status).toBe(201);
    // The old order is untouched: it still refunds whole, as paid.
    expect((await refund(b.buyer, b.orderId, null)).body).toMatchObject({ amountCents: 380, whole: true });
  });

  it('a dearer exchange whose old tickets were refunded before the difference was paid: the difference goes back, the new hold is released', async () => {
    const showId = await show();
    const b = await bought(showId, { seatIds: ['A-1-3'] });
    const d = await dearer(b, { seatIds: ['A-2-3', 'A-2-4'] }, 380);
    expect((await refund(b.buyer, b.orderId, null)).status).toBe(202);
    await settledRefunds(b.buyer, b.orderId, 1);
    expect((await b.buyer.request('POST', `/api/v1/orders/${d.orderId}/sandbox-pay`, { outcome: 'SUCCEEDED' })).status).toBe(202);
    await eventually(async () => ((await t.node.sandbox!.refundedCents(d.paymentId)) === 380 ? true : undefined));
    const after = await eventually(async () => {
      const o = await orderOf(b.buyer, d.orderId);
      return o.status === 'REFUNDED' ? o : undefined;
    });
    expect(after.tickets ?? []).toEqual([]);
    expect((await t.node.ctx.store.exchangeIntoOrder(d.orderId))?.status).toBe('ABANDONED');
    const other = await new ApiClient(t.node.app).signUp(`money${++seq}`);
    expect((await other.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-2-3', 'A-2-4'] })).status).toBe(201);
  });

  it('a refund of a dearer-exchanged order pays back through the difference payment and the source payment: the sum is what was paid; orders.csv nets it once', async () => {
    const showId = await show();
    const code = await percentOff(50);
    // Paid 190 for a seat listed 380, exchanged into standing (1000): 620 more, the new order worth 810.
    const b = await bought(showId, { seatIds: ['A-1-4'] }, { discountCode: code });
    expect(b.amountCents).toBe(190);
    const d = await dearer(b, { section: 'GA', quantity: 1 }, 620);
    expect((await b.buyer.request('POST', `/api/v1/orders/${d.orderId}/sandbox-pay`, { outcome: 'SUCCEEDED' })).status).toBe(202);
    const paid = await eventually(async () => {
      const o = await orderOf(b.buyer, d.orderId);
      return o.status === 'TICKETED' ? o : undefined;
    });
    expect(paid.amountCents).toBe(810);
    const csvNet = async () => ((await admin.request('GET', `/api/v1/admin/shows/${showId}/orders.csv`)).body as string).slice(1).trimEnd().split('\r\n')
      .slice(1).reduce((sum, line) => sum + Number(line.split(',').at(-1)), 0);
    expect(await csvNet()).toBe(810);
    expect((await refund(b.buyer, d.orderId, null)).body).toMatchObject({ amountCents: 810, whole: true });
    expect((await settledRefunds(b.buyer, d.orderId, 1))[0]).toMatchObject({ status: 'REFUNDED', amountCents: 810 });
    expect(await t.node.sandbox!.refundedCents(d.paymentId)).toBe(620);
    expect(await t.node.sandbox!.refundedCents(b.paymentId)).toBe(190);
    expect(await csvNet()).toBe(0);
  });

  it('a refund with no payment anywhere on its chain is REFUSED and the tickets are given back: money the provider never took is never recorded as paid back', async () => {
    const from = await show();
    const to = await show();
    const b = await bought(from, { section: 'GA', quantity: 1 });
    const swapped = await exchanged(b, { showId: to, section: 'GA', quantity: 1 });
    const newOrderId = swapped.body.order.orderId as string;
    // The chain broken on purpose: the first order no longer names its payment.
    const sql = await rawSql({ database: t.database } as TestStoreHandle);
    try {
      expect(await sql.run(`UPDATE orders SET payment_id = NULL WHERE order_id = '${b.orderId}'`)).toBe('ok');
    } finally {
      await sql.close();
    }
    expect((await refund(b.buyer, newOrderId, null)).status).toBe(202);
    expect((await settledRefunds(b.buyer, newOrderId, 1))[0]).toMatchObject({ status: 'REFUSED', reason: 'no payment to refund through' });
    expect(await t.node.sandbox!.refundedCents(b.paymentId)).toBe(0);
    const after = (await b.buyer.request('GET', `/api/v1/orders/${newOrderId}`)).body;
    expect(after.tickets.map((k: { status: string }) => k.status)).toEqual(['VALID']);
  });

  it('Why 5: after all of the above (refunds in part and whole, discounts, exchanges, a cancelled show) the audit passes', async () => {
    // One more of each ordinary flow on a show of its own: a partial refund of standing places, and an exchanged-away order kept.
    const showId = await show();
    const b = await bought(showId, { section: 'GA', quantity: 3 });
    expect((await refund(b.buyer, b.orderId, { ticketIds: [b.tickets[0]?.ticketId] })).status).toBe(202);
    await settledRefunds(b.buyer, b.orderId, 1);
    const c = await bought(showId, { section: 'GA', quantity: 2 });
    expect((await c.buyer.request('POST', `/api/v1/orders/${c.orderId}/exchange`, { section: 'GA', quantity: 2 })).status).toBe(201);
    const report = await auditConfiguredStore({ database: t.node.config.database, redis: t.node.config.redis, auditBoundSeconds: 60 });
    expect({ passed: report.passed, violations: report.violations }).toEqual({ passed: true, violations: [] });
  });

  it('orders.csv: gross, refunded and net per order; a sum over the file counts each cent once (an exchanged-away order nets 0, its value is the new order\'s)', async () => {
    const showId = await show();
    const code = await percentOff(20);
    // Charged 608 (gross 760), one ticket refunded (304).
    const a = await bought(showId, { seatIds: ['A-1-1', 'A-1-2'] }, { discountCode: code });
    expect((await refund(a.buyer, a.orderId, { ticketIds: [a.tickets[0]?.ticketId] })).status).toBe(202);
    await settledRefunds(a.buyer, a.orderId, 1);
    // Charged 2000, exchanged whole into a new order carrying 2000.
    const b = await bought(showId, { section: 'GA', quantity: 2 });
    const swapped = await b.buyer.request('POST', `/api/v1/orders/${b.orderId}/exchange`, { section: 'GA', quantity: 2 });
    expect(swapped.status).toBe(201);
    const csv = ((await admin.request('GET', `/api/v1/admin/shows/${showId}/orders.csv`)).body as string).slice(1).trimEnd().split('\r\n');
    const header = (csv[0] ?? '').split(',');
    expect(header.slice(-3)).toEqual(['grossCents', 'refundedCents', 'netCents']);
    const rows = new Map(csv.slice(1).map((line) => {
      const cells = line.split(',');
      return [cells[0] ?? '', { status: cells[2], gross: Number(cells.at(-3)), refunded: Number(cells.at(-2)), net: Number(cells.at(-1)) }];
    }));
    expect(rows.get(a.orderId)).toEqual({ status: 'TICKETED', gross: 760, refunded: 304, net: 304 });
    expect(rows.get(b.orderId)).toEqual({ status: 'TICKETED', gross: 2000, refunded: 0, net: 0 });
    expect(rows.get(swapped.body.order.orderId)).toEqual({ status: 'TICKETED', gross: 0, refunded: 0, net: 2000 });
    // Σ net = what the provider charged minus what it refunded, for this show's orders.
    const charged = 608 + 2000;
    const refundedByProvider = (await t.node.sandbox!.refundedCents(a.paymentId)) + (await t.node.sandbox!.refundedCents(b.paymentId));
    expect([...rows.values()].reduce((sum, r) => sum + r.net, 0)).toBe(charged - refundedByProvider);
  });
});
