import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, ApiClient, createShow } from '../support/api-client.js';
import { startTestNode, type TestNode } from '../support/backend.js';
import { crowd } from '../support/crowd.js';
import { eventually, sleep } from '../support/wait.js';

let t: TestNode & { baseUrl: string };
let admin: ApiClient;
let seq = 0;
const buyer = async () => new ApiClient(t.node.app).signUp(`disc${++seq}`);
const hour = 3_600_000;
const contact = { name: '王小明', phone: '+86 138-0000-0000', email: 'xm@example.com' };

beforeAll(async () => {
  t = await startTestNode({ env: { TICKETRUSH_RATE_LIMITS: 'off' } });
  admin = await adminClient(t.node.app);
});
afterAll(async () => t?.close());

async function newCode(body: Record<string, unknown>) {
  const code = `C${++seq}X`;
  const reply = await admin.request('POST', '/api/v1/admin/discounts', {
    code, validFrom: new Date(Date.now() - hour).toISOString(), validUntil: new Date(Date.now() + hour).toISOString(), maxUses: 10, perUserMax: 5, ...body,
  });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return code;
}

async function order(api: ApiClient, showId: string, seatIds: string[], extra: Record<string, unknown> = {}) {
  const hold = await api.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds });
  expect(hold.status).toBe(201);
  return api.request('POST', '/api/v1/orders', { holdId: hold.body.holdId, ...extra }, { 'x-idempotency-key': `d-${++seq}` });
}

const usesOf = async (code: string) => ((await admin.request('GET', '/api/v1/admin/discounts?limit=100')).body.discounts as { code: string; uses: number }[]).find((d) => d.code === code)?.uses;

describe('discount codes', () => {
  it('prices an order with a percentage or an amount off, counts the use, and never goes below zero', async () => {
    const showId = await createShow(admin);
    const tenPercent = await newCode({ percentOff: 10 });
    const alice = await buyer();
    const pct = await order(alice, showId, ['A-1-1', 'A-1-2'], { discountCode: tenPercent.toLowerCase() });
    expect(pct.status, JSON.stringify(pct.body)).toBe(201);
    expect(pct.body).toMatchObject({ amountCents: 9000, discount: { code: tenPercent, discountCents: 1000 } });
    expect(await usesOf(tenPercent)).toBe(1);
    const big = await newCode({ amountOffCents: 999_999 });
    const free = await order(alice, showId, ['A-1-3'], { discountCode: big });
    expect(free.status).toBe(201);
    // The whole price off: 0, and paid at once with no provider.
    expect(free.body).toMatchObject({ amountCents: 0, discount: { code: big, discountCents: 5000 } });
    await eventually(async () => (['PAID', 'TICKETED'].includes((await alice.request('GET', `/api/v1/orders/${free.body.orderId}`)).body.status) ? true : undefined));
  });

  it('refuses unknown, expired, used-up, not-for-this-show and per-user-exhausted codes, each with its own 409', async () => {
    const [showId, otherShow] = [await createShow(admin), await createShow(admin)];
    const alice = await buyer();
    const codeOf = async (extra: Record<string, unknown>) => newCode({ percentOff: 50, ...extra });
    const expired = await codeOf({ validFrom: new Date(Date.now() - 2 * hour).toISOString(), validUntil: new Date(Date.now() - hour).toISOString() });
    const elsewhere = await codeOf({ showIds: [otherShow] });
    const once = await codeOf({ maxUses: 1 });
    const mineOnce = await codeOf({ perUserMax: 1 });
    const refusal = async (discountCode: string, seat: string) => {
      const reply = await order(alice, showId, [seat], { discountCode });
      return { status: reply.status, code: reply.body.code };
    };
    expect(await refusal('NOSUCHCODE', 'A-2-1')).toEqual({ status: 409, code: 'DISCOUNT_UNKNOWN' });
    expect(await refusal(expired, 'A-2-2')).toEqual({ status: 409, code: 'DISCOUNT_EXPIRED' });
    expect(await refusal(elsewhere, 'A-2-3')).toEqual({ status: 409, code: 'DISCOUNT_NOT_FOR_SHOW' });
    expect((await order(alice, showId, ['A-2-4'], { discountCode: once })).status).toBe(201);
    expect(await refusal(once, 'A-2-5')).toEqual({ status: 409, code: 'DISCOUNT_USED_UP' });
    expect((await order(alice, showId, ['A-2-6'], { discountCode: mineOnce })).status).toBe(201);
    expect(await refusal(mineOnce, 'A-2-7')).toEqual({ status: 409, code: 'DISCOUNT_PER_USER_LIMIT' });
    // Someone else may still use it.
    expect((await order(await buyer(), showId, ['A-2-8'], { discountCode: mineOnce })).status).toBe(201);
    // Nothing was taken by the refusals: the seat of a refused order is still held by its hold, no order opened.
    expect(await usesOf(once)).toBe(1);
  });

  it('gives the use back when an unpaid order is cancelled, once', async () => {
    const showId = await createShow(admin);
    const code = await newCode({ percentOff: 20, maxUses: 1 });
    const alice = await buyer();
    const placed = await order(alice, showId, ['A-3-1'], { discountCode: code });
    expect(await usesOf(code)).toBe(1);
    expect((await alice.request('POST', `/api/v1/orders/${placed.body.orderId}/cancel`)).status).toBe(200);
    await eventually(async () => ((await usesOf(code)) === 0 ? true : undefined), 5_000, 'use given back');
    expect((await t.node.ctx.store.returnDiscountUse({ orderId: placed.body.orderId, now: Date.now() })).returned).toBe(false);
    expect(await usesOf(code)).toBe(0);
    expect((await order(await buyer(), showId, ['A-3-2'], { discountCode: code })).status).toBe(201);
  });

  it('gives the use back when the order is refunded whole (issue 25), and not for a partial refund', async () => {
    const showId = await createShow(admin);
    const code = await newCode({ percentOff: 10, maxUses: 1 });
    const alice = await buyer();
    const placed = await order(alice, showId, ['A-4-1', 'A-4-2'], { discountCode: code });
    expect(placed.status).toBe(201);
    expect((await alice.request('POST', `/api/v1/orders/${placed.body.orderId}/sandbox-pay`, { outcome: 'SUCCEEDED' })).status).toBe(202);
    const tickets = await eventually(async () => {
      const o = (await alice.request('GET', `/api/v1/orders/${placed.body.orderId}`)).body;
      return o.status === 'TICKETED' ? (o.tickets as { ticketId: string }[]) : undefined;
    });
    const refundOf = (body: unknown, key: string) => admin.request('POST', `/api/v1/orders/${placed.body.orderId}/refund`, body, { 'x-idempotency-key': key });
    // Part of the order: the use stays held.
    expect((await refundOf({ ticketIds: [tickets[0]?.ticketId] }, 'part')).status).toBe(202);
    await eventually(async () => ((await alice.request('GET', `/api/v1/orders/${placed.body.orderId}/refunds`)).body.refunds[0]?.status === 'REFUNDED' ? true : undefined));
    await sleep(1_000); // the relay (every 250 ms) has handed the refund.completed row to the sink by now
    expect(await usesOf(code)).toBe(1);
    // The rest: the order is REFUNDED and the use comes back, once.
    expect((await refundOf(null, 'rest')).status).toBe(202);
    await eventually(async () => ((await usesOf(code)) === 0 ? true : undefined), 5_000, 'use given back after the whole refund');
    expect((await order(await buyer(), showId, ['A-4-3'], { discountCode: code })).status).toBe(201);
  });

  it('manages codes: validation 4xx, duplicates 409, disable, buyers forbidden', async () => {
    const bad = await admin.request('POST', '/api/v1/admin/discounts', { code: 'BOTHKINDS', percentOff: 10, amountOffCents: 100, validFrom: new Date().toISOString(), validUntil: new Date(Date.now() + hour).toISOString(), maxUses: 1, perUserMax: 1 });
    expect({ status: bad.status, code: bad.body.code }).toEqual({ status: 422, code: 'INVALID_DISCOUNT' });
    const tooBig = await admin.request('POST', '/api/v1/admin/discounts', { code: 'PCT', percentOff: 101, validFrom: new Date().toISOString(), validUntil: new Date(Date.now() + hour).toISOString(), maxUses: 1, perUserMax: 1 });
    expect(tooBig.status).toBe(400);
    const code = await newCode({ percentOff: 10 });
    const again = await admin.request('POST', '/api/v1/admin/discounts', { code, percentOff: 5, validFrom: new Date().toISOString(), validUntil: new Date(Date.now() + hour).toISOString(), maxUses: 1, perUserMax: 1 });
    expect({ status: again.status, code: again.body.code }).toEqual({ status: 409, code: 'DISCOUNT_CODE_TAKEN' });
    const disabled = await admin.request('POST', `/api/v1/admin/discounts/${code}/disable`);
    expect(disabled.body.status).toBe('DISABLED');
    expect((await admin.request('POST', '/api/v1/admin/discounts/NOPE-NOPE/disable')).body.code).toBe('DISCOUNT_NOT_FOUND');
    const showId = await createShow(admin);
    const refused = await order(await buyer(), showId, ['A-4-1'], { discountCode: code });
    expect(refused.body.code).toBe('DISCOUNT_UNKNOWN');
    expect((await (await buyer()).request('GET', '/api/v1/admin/discounts')).status).toBe(403);
  });

  it('stores the order contact, shows it to the organizer and refuses a bad one with 400', async () => {
    const showId = await createShow(admin);
    const alice = await buyer();
    const placed = await order(alice, showId, ['A-5-1'], { contact });
    expect(placed.status).toBe(201);
    expect((await admin.request('GET', `/api/v1/orders/${placed.body.orderId}`)).body.contact).toEqual(contact);
    const csv = (await admin.request('GET', `/api/v1/admin/shows/${showId}/orders.csv`)).body as string;
    expect(csv.split('\r\n').find((line) => line.startsWith(placed.body.orderId))).toContain(`${contact.name},'${contact.phone},${contact.email},,0`);
    // (A leading + is a formula to a spreadsheet: the export escapes it.)
    const badEmail = await order(alice, showId, ['A-5-2'], { contact: { ...contact, email: 'not-an-email' } });
    expect({ status: badEmail.status, code: badEmail.body.code }).toEqual({ status: 400, code: 'INVALID_CONTACT' });
    const tooLong = await order(alice, showId, ['A-5-3'], { contact: { ...contact, name: 'x'.repeat(101) } });
    expect(tooLong.status).toBe(400);
    const extra = await order(alice, showId, ['A-5-4'], { contact: { ...contact, fax: '1' } });
    expect(extra.status).toBe(400);
  });

  it('100 buyers racing over real sockets for the last use: exactly one gets it', async () => {
    const showId = await createShow(admin, { sections: [{ id: 'A', name: 'Stalls', rows: 20, seatsPerRow: 10, priceCents: 5000 }] });
    const code = await newCode({ percentOff: 50, maxUses: 1, perUserMax: 1 });
    const buyers = await crowd(t, 100, `race${++seq}`);
    const holds = await Promise.all(buyers.map((b, i) => b.call('POST', `/api/v1/shows/${showId}/holds`, { seatIds: [`A-${Math.floor(i / 10) + 1}-${(i % 10) + 1}`] })));
    const answers = await Promise.all(buyers.map((b, i) => b.call('POST', '/api/v1/orders', { holdId: holds[i]?.body.holdId, discountCode: code }, { 'x-idempotency-key': `race-${i}` })));
    const statuses = answers.map((a) => (a.status === 201 ? 'WON' : a.body.code as string));
    expect(statuses.filter((s) => s === 'WON')).toHaveLength(1);
    expect(statuses.filter((s) => s === 'DISCOUNT_USED_UP')).toHaveLength(99);
    expect(await usesOf(code)).toBe(1);
  }, 60_000);
});
