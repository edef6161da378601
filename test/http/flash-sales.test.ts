import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, ApiClient } from '../support/api-client.js';
import { startTestNode, type TestNode } from '../support/backend.js';
import { crowd } from '../support/crowd.js';
import type { HttpBuyer, HttpReply } from '../support/http-buyer.js';
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

const minute = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();
const buyer = async () => new ApiClient(t.node.app).signUp(`flash${++seq}`);

interface SaleOptions { start?: number; end?: number; maxPerUser?: number; stock?: number; priceCents?: number }
const saleBody = (o: SaleOptions = {}) => ({
  title: `Flash ${++seq}`,
  description: '限时秒杀',
  saleStartsAt: iso(o.start ?? Date.now() - minute),
  saleEndsAt: iso(o.end ?? Date.now() + 60 * minute),
  maxPerUser: o.maxPerUser ?? 2,
  items: [
    { itemId: 'TEA', name: 'Tea set', priceCents: o.priceCents ?? 1990, originalPriceCents: 5990, stock: o.stock ?? 5 },
    { itemId: 'CUP', name: 'Cup', priceCents: 0, originalPriceCents: 990, stock: 3 },
  ],
});
async function createSale(o: SaleOptions = {}): Promise<string> {
  const created = await admin.request('POST', '/api/v1/admin/flash-sales', saleBody(o));
  expect(created.status).toBe(201);
  return created.body.flashSaleId as string;
}
const order = (api: ApiClient, saleId: string, body: unknown, key = `k${++seq}`) =>
  api.request('POST', `/api/v1/flash-sales/${saleId}/orders`, body, { 'x-idempotency-key': key });

describe('flash sales', () => {
  it('sells units as an order awaiting payment in one step, paid like a show\'s order, ticketed one ticket per unit and checked in once', async () => {
    const saleId = await createSale();
    const alice = await buyer();
    const placed = await order(alice, saleId, { itemId: 'TEA', quantity: 2 }, 'alice-1');
    expect(placed.status).toBe(201);
    expect(placed.body).toMatchObject({ kind: 'FLASH_SALE', activityId: saleId, showId: null, status: 'PENDING_PAY', amountCents: 3980, lines: [{ kind: 'UNITS', sectionId: 'TEA', quantity: 2 }] });
    expect(typeof placed.body.paymentId).toBe('string');
    expect(Date.parse(placed.body.expiresAt)).toBeGreaterThan(Date.now());
    // The same key again: the same order, replayed.
    const again = await order(alice, saleId, { itemId: 'TEA', quantity: 2 }, 'alice-1');
    expect({ status: again.status, orderId: again.body.orderId, replayed: again.headers['idempotent-replayed'] }).toEqual({ status: 201, orderId: placed.body.orderId, replayed: 'true' });
    // The same key with another body is refused.
    expect((await order(alice, saleId, { itemId: 'TEA', quantity: 1 }, 'alice-1')).body.code).toBe('IDEMPOTENCY_KEY_REUSED');
    const sale = await admin.request('GET', `/api/v1/flash-sales/${saleId}`);
    expect(sale.body.items[0]).toMatchObject({ itemId: 'TEA', stock: 5, available: 3, originalPriceCents: 5990 });

    const paid = await postCallback(t.node.app, t.node.config.secrets.payment, { paymentId: placed.body.paymentId, orderId: placed.body.orderId, status: 'SUCCEEDED', amountCents: 3980 });
    expect(paid.body.outcome).toBe('SOLD');
    const ticketed = await eventually(async () => {
      const got = await alice.request('GET', `/api/v1/orders/${placed.body.orderId}`);
      return got.body.status === 'TICKETED' ? got.body : undefined;
    }, 5_000, 'ticketed');
    expect(ticketed.tickets).toHaveLength(2);
    expect(ticketed.kind).toBe('FLASH_SALE');
    const mine = await alice.request('GET', '/api/v1/me/orders');
    expect(mine.body.orders[0]).toMatchObject({ orderId: placed.body.orderId, kind: 'FLASH_SALE', activityId: saleId });
    // Redeemed once at pick-up through the same check-in.
    const first = await admin.request('POST', '/api/v1/checkin', { qr: ticketed.tickets[0].qr, nonce: 'n1' });
    expect(first.status).toBe(200);
    const second = await admin.request('POST', '/api/v1/checkin', { qr: ticketed.tickets[0].qr, nonce: 'n2' });
    expect({ status: second.status, code: second.body.code }).toEqual({ status: 409, code: 'TICKET_ALREADY_USED' });
    // The activity detail says she took part; anonymous callers get null.
    expect((await alice.request('GET', `/api/v1/activities/${saleId}`)).body).toMatchObject({ kind: 'FLASH_SALE', participated: true, status: 'ON_SALE' });
    expect((await new ApiClient(t.node.app).request('GET', `/api/v1/activities/${saleId}`)).body.participated).toBeNull();
    expect((await (await buyer()).request('GET', `/api/v1/activities/${saleId}`)).body.participated).toBe(false);
  });

  it('pays a zero-price item at once, with no provider call', async () => {
    const saleId = await createSale();
    const bob = await buyer();
    const placed = await order(bob, saleId, { itemId: 'CUP', quantity: 1 });
    expect(placed.status).toBe(201);
    expect(['PAID', 'TICKETED']).toContain(placed.body.status);
    expect(placed.body.amountCents).toBe(0);
    await eventually(async () => ((await bob.request('GET', `/api/v1/orders/${placed.body.orderId}`)).body.status === 'TICKETED' ? true : undefined), 5_000, 'ticketed');
  });

  it('refuses SOLD_OUT, PURCHASE_LIMIT_REACHED, SALE_NOT_OPEN and ACTIVITY_OFFLINE, and unknown sales and items', async () => {
    const saleId = await createSale({ stock: 3, maxPerUser: 2 });
    const [a, b] = [await buyer(), await buyer()];
    expect((await order(a, saleId, { itemId: 'TEA', quantity: 2 })).status).toBe(201);
    const over = await order(a, saleId, { itemId: 'TEA', quantity: 1 });
    expect({ status: over.status, code: over.body.code, details: over.body.details }).toEqual({ status: 409, code: 'PURCHASE_LIMIT_REACHED', details: { limit: 2, claimed: 2, requested: 1 } });
    const out = await order(b, saleId, { itemId: 'TEA', quantity: 2 });
    expect({ status: out.status, code: out.body.code, details: out.body.details }).toEqual({ status: 409, code: 'SOLD_OUT', details: { available: 1 } });
    expect((await order(b, saleId, { itemId: 'NOPE', quantity: 1 })).body.code).toBe('ITEM_NOT_FOUND');
    // The sale's stock is not a show's: no hold through the show routes (no way around offline or the order kind).
    const asShow = await b.request('POST', `/api/v1/shows/${saleId}/holds`, { section: 'TEA', quantity: 1 });
    expect({ status: asShow.status, code: asShow.body.code }).toEqual({ status: 404, code: 'SHOW_NOT_FOUND' });
    expect((await admin.request('PATCH', `/api/v1/admin/shows/${saleId}`, { title: 'Sneaky' })).status).toBe(404);
    expect((await order(b, 'fls_missing', { itemId: 'TEA', quantity: 1 })).status).toBe(404);
    const upcoming = await createSale({ start: Date.now() + 10 * minute, end: Date.now() + 20 * minute });
    const early = await order(b, upcoming, { itemId: 'TEA', quantity: 1 });
    expect({ status: early.status, code: early.body.code }).toEqual({ status: 422, code: 'SALE_NOT_OPEN' });
    const down = await admin.request('PATCH', `/api/v1/admin/activities/${saleId}`, { status: 'OFFLINE' });
    expect(down.body.status).toBe('OFFLINE');
    const off = await order(b, saleId, { itemId: 'TEA', quantity: 1 });
    expect({ status: off.status, code: off.body.code }).toEqual({ status: 409, code: 'ACTIVITY_OFFLINE' });
    expect((await admin.request('PATCH', `/api/v1/admin/activities/${saleId}`, { status: 'ON_SALE', title: 'Back' })).body).toMatchObject({ status: 'ON_SALE', title: 'Back' });
    expect((await order(b, saleId, { itemId: 'TEA', quantity: 1 })).status).toBe(201);
    // Buyers may not create or change sales.
    expect((await b.request('POST', '/api/v1/admin/flash-sales', saleBody())).status).toBe(403);
    expect((await b.request('PATCH', `/api/v1/admin/activities/${saleId}`, { status: 'OFFLINE' })).status).toBe(403);
  });

  it('gives the units of an unpaid order back exactly once when it lapses', async () => {
    const saleId = await createSale({ stock: 1, maxPerUser: 1 });
    const carol = await buyer();
    const placed = await order(carol, saleId, { itemId: 'TEA', quantity: 1 });
    expect(placed.status).toBe(201);
    // Lapse it now through the engine's own expiry (the hold that carries the units).
    const hold = await t.node.ctx.store.getHold(placed.body.holdId);
    const lapsed = await t.node.ctx.store.lapseHold({ holdId: placed.body.holdId, event: 'RELEASE', expectedExpiresAt: hold!.expiresAt, now: Date.now() });
    expect(lapsed.ok).toBe(true);
    const again = await t.node.ctx.store.lapseHold({ holdId: placed.body.holdId, event: 'RELEASE', expectedExpiresAt: hold!.expiresAt, now: Date.now() });
    expect(again.ok).toBe(false);
    expect((await carol.request('GET', `/api/v1/orders/${placed.body.orderId}`)).body.status).toBe('CANCELLED');
    const sale = await admin.request('GET', `/api/v1/flash-sales/${saleId}`);
    expect(sale.body.items[0]).toMatchObject({ available: 1, sold: 0 });
    // Her cap came back too: she can buy the unit again.
    expect((await order(carol, saleId, { itemId: 'TEA', quantity: 1 })).status).toBe(201);
  });

  it('validates new sales: negative or huge prices and stock, a window ending before it starts, a sale price above the original', async () => {
    const bad = async (patch: (b: ReturnType<typeof saleBody>) => unknown) => admin.request('POST', '/api/v1/admin/flash-sales', patch(saleBody()));
    expect((await bad((b) => ({ ...b, items: [{ ...b.items[0], priceCents: -1 }] }))).status).toBe(400);
    expect((await bad((b) => ({ ...b, items: [{ ...b.items[0], stock: 10_000_000 }] }))).status).toBe(400);
    expect((await bad((b) => ({ ...b, items: [{ ...b.items[0], originalPriceCents: 100_000_001 }] }))).status).toBe(400);
    expect((await bad((b) => ({ ...b, items: [] }))).status).toBe(400);
    expect((await bad((b) => ({ ...b, maxPerUser: 0 }))).status).toBe(400);
    const window = await bad((b) => ({ ...b, saleEndsAt: iso(Date.now() - 2 * minute) }));
    expect({ status: window.status, code: window.body.code }).toEqual({ status: 422, code: 'INVALID_FLASH_SALE' });
    const price = await bad((b) => ({ ...b, items: [{ ...b.items[0], priceCents: 9000, originalPriceCents: 100 }] }));
    expect({ status: price.status, code: price.body.code }).toEqual({ status: 422, code: 'INVALID_FLASH_SALE' });
    const dup = await bad((b) => ({ ...b, items: [b.items[0], b.items[0]] }));
    expect({ status: dup.status, code: dup.body.code }).toEqual({ status: 422, code: 'INVALID_FLASH_SALE' });
    const quantity = await order(await buyer(), await createSale(), { itemId: 'TEA', quantity: 11 });
    expect(quantity.status).toBe(400);
    const noKey = await (await buyer()).request('POST', `/api/v1/flash-sales/${await createSale()}/orders`, { itemId: 'TEA', quantity: 1 });
    expect(noKey.status).toBe(400);
  });
});

describe('activity catalog', () => {
  it('lists shows and campaigns together, on sale first, then upcoming, then with include=ended the ended and offline ones, with server countdowns', async () => {
    const now = Date.now();
    const soon = await createSale({ start: now - minute, end: now + 3 * minute });
    const later = await createSale({ start: now + 5 * minute, end: now + 30 * minute });
    const gone = await createSale({ start: now + 1 * minute, end: now + 2 * minute });
    await admin.request('PATCH', `/api/v1/admin/activities/${gone}`, { status: 'OFFLINE' });
    const list = (await admin.request('GET', '/api/v1/activities?limit=100')).body.activities as { activityId: string; kind: string; status: string; secondsToStart: number; secondsToEnd: number }[];
    const ids = list.map((a) => a.activityId);
    expect(ids).toContain(soon);
    expect(ids).toContain(later);
    expect(ids).not.toContain(gone);
    expect(ids.indexOf(soon)).toBeLessThan(ids.indexOf(later));
    const statuses = list.map((a) => a.status);
    expect(statuses.lastIndexOf('ON_SALE')).toBeLessThan(Math.max(0, statuses.indexOf('UPCOMING')) || Infinity);
    const upcoming = list.find((a) => a.activityId === later)!;
    expect(upcoming.status).toBe('UPCOMING');
    expect(upcoming.secondsToStart).toBeGreaterThan(200);
    expect(upcoming.secondsToStart).toBeLessThanOrEqual(300);
    const onSale = list.find((a) => a.activityId === soon)!;
    expect(onSale.secondsToStart).toBe(0);
    expect(onSale.secondsToEnd).toBeGreaterThan(100);
    const all = (await admin.request('GET', '/api/v1/activities?limit=100&include=ended')).body.activities as { activityId: string; status: string }[];
    expect(all.find((a) => a.activityId === gone)?.status).toBe('OFFLINE');
    // Pages keep the order.
    const pageA = (await admin.request('GET', '/api/v1/activities?limit=2&offset=0')).body.activities as { activityId: string }[];
    const pageB = (await admin.request('GET', '/api/v1/activities?limit=2&offset=2')).body.activities as { activityId: string }[];
    expect([...pageA, ...pageB].map((a) => a.activityId)).toEqual(ids.slice(0, 4));
    // A flash sale is not listed as a show.
    const shows = (await admin.request('GET', '/api/v1/shows?limit=100')).body;
    expect(JSON.stringify(shows)).not.toContain(soon);
  });

  it('changes a show through the same route with the show rules, and refuses taking a show offline', async () => {
    const { createShow } = await import('../support/api-client.js');
    const showId = await createShow(admin);
    const renamed = await admin.request('PATCH', `/api/v1/admin/activities/${showId}`, { title: 'Renamed show' });
    expect(renamed.body).toMatchObject({ activityId: showId, kind: 'SHOW', title: 'Renamed show' });
    const offline = await admin.request('PATCH', `/api/v1/admin/activities/${showId}`, { status: 'OFFLINE' });
    expect({ status: offline.status, code: offline.body.code }).toEqual({ status: 409, code: 'CHANGE_NOT_ALLOWED' });
    const past = await admin.request('PATCH', `/api/v1/admin/activities/${showId}`, { saleEndsAt: iso(Date.now() - minute) });
    expect({ status: past.status, code: past.body.code }).toEqual({ status: 409, code: 'CHANGE_NOT_ALLOWED' });
    expect((await admin.request('PATCH', '/api/v1/admin/activities/nothing_here', { title: 'x' })).status).toBe(404);
    expect((await admin.request('GET', '/api/v1/activities/nothing_here')).status).toBe(404);
  });
});

/**
 * A buyer's press of "buy" as a real client makes it: 503 BUSY (a bounded pool full under the
 * rush) is retried after a pause with the same idempotency key, so a retry never buys twice.
 */
async function press(b: HttpBuyer, saleId: string, key: string): Promise<HttpReply> {
  for (let attempt = 0; ; attempt++) {
    const reply = await b.call('POST', `/api/v1/flash-sales/${saleId}/orders`, { itemId: 'TEA', quantity: 1 }, { 'x-idempotency-key': key });
    if (reply.status !== 503 || attempt >= 20) return reply;
    await new Promise((resolve) => setTimeout(resolve, 50 + Math.random() * 200));
  }
}

describe('flash-sale rush over real sockets', () => {
  it('500 buyers on 100 units: exactly 100 sold, never below zero; one buyer\'s 50 parallel calls hold the per-user limit', async () => {
    const saleId = await createSale({ stock: 100, maxPerUser: 1 });
    const buyers = await crowd(t, 500, `rush${++seq}_`);
    const replies = await Promise.all(buyers.map((b, i) => press(b, saleId, `rush-${i}`)));
    const won = replies.filter((r) => r.status === 201);
    const codes = new Map<string, number>();
    for (const r of replies) if (r.status !== 201) codes.set(`${r.status} ${r.body.code}`, (codes.get(`${r.status} ${r.body.code}`) ?? 0) + 1);
    expect(won).toHaveLength(100);
    expect([...codes.keys()]).toEqual(['409 SOLD_OUT']);
    const sale = await admin.request('GET', `/api/v1/flash-sales/${saleId}`);
    expect(sale.body.items[0]).toMatchObject({ available: 0 });

    const limited = await createSale({ stock: 100, maxPerUser: 3 });
    const [one] = await crowd(t, 1, `solo${++seq}_`);
    const mine = await Promise.all(Array.from({ length: 50 }, (_, i) => press(one!, limited, `solo-${i}`)));
    expect(mine.filter((r) => r.status === 201)).toHaveLength(3);
    for (const r of mine.filter((x) => x.status !== 201)) expect({ status: r.status, code: r.body.code }).toEqual({ status: 409, code: 'PURCHASE_LIMIT_REACHED' });
    const after = await admin.request('GET', `/api/v1/flash-sales/${limited}`);
    expect(after.body.items[0]).toMatchObject({ available: 97 });
  }, 120_000);
});
