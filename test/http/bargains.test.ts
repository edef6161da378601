import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, ApiClient } from '../support/api-client.js';
import { auditSourceOf, startTestNode, type TestNode } from '../support/backend.js';
import { crowd } from '../support/crowd.js';
import type { HttpBuyer, HttpReply } from '../support/http-buyer.js';
import { postCallback } from '../support/payments.js';
import { expectSettledAndConsistent } from '../support/invariants.js';
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
const user = async () => new ApiClient(t.node.app).signUp(`bargain${++seq}`);

interface BargainOptions { start?: number; end?: number; stock?: number; original?: number; floor?: number; cutMin?: number; cutMax?: number; minCuts?: number }
const bargainBody = (o: BargainOptions = {}) => ({
  title: `Bargain ${++seq}`,
  description: '帮我砍一刀',
  goods: '电热水壶',
  originalPriceCents: o.original ?? 10_000,
  floorPriceCents: o.floor ?? 6_000,
  cutMinCents: o.cutMin ?? 100,
  cutMaxCents: o.cutMax ?? 500,
  minCuts: o.minCuts ?? 3,
  stock: o.stock ?? 5,
  saleStartsAt: iso(o.start ?? Date.now() - minute),
  saleEndsAt: iso(o.end ?? Date.now() + 60 * minute),
});
async function createBargain(o: BargainOptions = {}): Promise<string> {
  const created = await admin.request('POST', '/api/v1/admin/bargains', bargainBody(o));
  expect(created.status).toBe(201);
  return created.body.bargainId as string;
}
const start = (api: ApiClient, bargainId: string) => api.request('POST', `/api/v1/bargains/${bargainId}/start`);
const cut = (api: ApiClient, bargainOrderId: string) => api.request('POST', `/api/v1/bargain-orders/${bargainOrderId}/cuts`);
const order = (api: ApiClient, bargainOrderId: string, key = `k${++seq}`) =>
  api.request('POST', `/api/v1/bargain-orders/${bargainOrderId}/order`, undefined, { 'x-idempotency-key': key });

describe('bargains', () => {
  it('starts, is cut by friends once each, orders at the price reached, is paid, ticketed and checked in like a flash sale\'s order', async () => {
    const bargainId = await createBargain({ minCuts: 2 });
    const alice = await user();
    const started = await start(alice, bargainId);
    expect(started.status).toBe(201);
    expect(started.body).toMatchObject({ currentPriceCents: 10_000, cuts: 0 });
    const boId = started.body.bargainOrderId as string;
    expect(started.body.shareUrl).toContain(boId);
    const again = await start(alice, bargainId);
    expect({ status: again.status, id: again.body.bargainOrderId }).toEqual({ status: 200, id: boId });

    const own = await cut(alice, boId);
    expect({ status: own.status, code: own.body.code }).toEqual({ status: 409, code: 'CANNOT_CUT_OWN' });
    const notYet = await order(alice, boId);
    expect({ status: notYet.status, code: notYet.body.code }).toEqual({ status: 409, code: 'BARGAIN_NOT_READY' });
    const [bob, carol] = [await user(), await user()];
    const c1 = await cut(bob, boId);
    expect(c1.status).toBe(201);
    expect(c1.body.amountCents).toBeGreaterThanOrEqual(100);
    expect(c1.body.amountCents).toBeLessThanOrEqual(500);
    expect(c1.body).toMatchObject({ currentPriceCents: 10_000 - c1.body.amountCents, cuts: 1 });
    const twice = await cut(bob, boId);
    expect({ status: twice.status, code: twice.body.code }).toEqual({ status: 409, code: 'ALREADY_CUT' });
    const c2 = await cut(carol, boId);
    expect(c2.status).toBe(201);
    const price = c2.body.currentPriceCents as number;

    const seen = await new ApiClient(t.node.app).request('GET', `/api/v1/bargain-orders/${boId}`);
    expect(seen.body).toMatchObject({ bargainOrderId: boId, bargainId, status: 'READY', cuts: 2, currentPriceCents: price, floorPriceCents: 6_000, orderId: null });
    expect(seen.body.cutList.map((c: { amountCents: number }) => c.amountCents)).toEqual([c1.body.amountCents, c2.body.amountCents]);
    expect(seen.body.cutList[0].helperName).toMatch(/^bargain/);
    // The share page is public: no account ids, the owner's or the helpers' (issue 33).
    const ids = await Promise.all([alice, bob, carol].map(async (u) => (await u.request('GET', '/api/v1/me')).body.userId as string));
    expect(ids.every((id) => typeof id === 'string' && id.length > 0)).toBe(true);
    for (const id of ids) expect(JSON.stringify(seen.body)).not.toContain(id);
    expect(Object.keys(seen.body)).not.toContain('userId');
    expect(Object.keys(seen.body.cutList[0])).toEqual(['helperName', 'amountCents', 'cutAt']);

    const placed = await order(alice, boId, 'alice-bargain');
    expect(placed.status).toBe(201);
    expect(placed.body).toMatchObject({ kind: 'BARGAIN', activityId: bargainId, showId: null, status: 'PENDING_PAY', amountCents: price, lines: [{ kind: 'UNITS', sectionId: 'GOODS', quantity: 1 }] });
    const replay = await order(alice, boId, 'alice-bargain');
    expect({ status: replay.status, id: replay.body.orderId, replayed: replay.headers['idempotent-replayed'] }).toEqual({ status: 201, id: placed.body.orderId, replayed: 'true' });
    // One order per bargain order: another key answers the same order.
    const other = await order(alice, boId, 'alice-bargain-2');
    expect({ status: other.status, id: other.body.orderId }).toEqual({ status: 201, id: placed.body.orderId });
    expect((await cut(await user(), boId)).body.code).toBe('BARGAIN_CLOSED');
    expect((await admin.request('GET', `/api/v1/bargains/${bargainId}`)).body).toMatchObject({ kind: 'BARGAIN', stock: 5, available: 4, goods: '电热水壶' });

    const paid = await postCallback(t.node.app, t.node.config.secrets.payment, { paymentId: placed.body.paymentId, orderId: placed.body.orderId, status: 'SUCCEEDED', amountCents: price });
    expect(paid.body.outcome).toBe('SOLD');
    const ticketed = await eventually(async () => {
      const got = await alice.request('GET', `/api/v1/orders/${placed.body.orderId}`);
      return got.body.status === 'TICKETED' ? got.body : undefined;
    }, 5_000, 'ticketed');
    expect(ticketed.tickets).toHaveLength(1);
    expect((await admin.request('POST', '/api/v1/checkin', { qr: ticketed.tickets[0].qr, nonce: 'b1' })).status).toBe(200);
    expect((await new ApiClient(t.node.app).request('GET', `/api/v1/bargain-orders/${boId}`)).body).toMatchObject({ status: 'ORDERED', orderId: placed.body.orderId });
    // The catalog lists the bargain, and knows who took part.
    const list = (await admin.request('GET', '/api/v1/activities?limit=100')).body.activities as { activityId: string; kind: string }[];
    expect(list.find((a) => a.activityId === bargainId)?.kind).toBe('BARGAIN');
    expect((await alice.request('GET', `/api/v1/activities/${bargainId}`)).body).toMatchObject({ kind: 'BARGAIN', participated: true, bargain: { floorPriceCents: 6_000 } });
    expect((await bob.request('GET', `/api/v1/activities/${bargainId}`)).body.participated).toBe(false);
    expect(JSON.stringify((await admin.request('GET', '/api/v1/shows?limit=100')).body)).not.toContain(bargainId);
  });

  it('orders at the floor before minCuts, refuses SOLD_OUT, SALE_NOT_OPEN, ACTIVITY_OFFLINE and unknown ids', async () => {
    const bargainId = await createBargain({ stock: 1, original: 1_000, floor: 800, cutMin: 300, cutMax: 300, minCuts: 50 });
    const [a, b] = [await user(), await user()];
    const boA = (await start(a, bargainId)).body.bargainOrderId as string;
    const boB = (await start(b, bargainId)).body.bargainOrderId as string;
    const clamped = await cut(b, boA);
    expect(clamped.body).toEqual({ amountCents: 200, currentPriceCents: 800, cuts: 1 });
    const floor = await cut(await user(), boA);
    expect({ status: floor.status, code: floor.body.code }).toEqual({ status: 409, code: 'FLOOR_REACHED' });
    await cut(a, boB);
    expect((await order(a, boA)).status).toBe(201);
    const out = await order(b, boB);
    expect({ status: out.status, code: out.body.code }).toEqual({ status: 409, code: 'SOLD_OUT' });
    expect((await order(a, boB)).status).toBe(404);
    expect((await cut(a, 'bgo_missing')).status).toBe(404);
    expect((await start(a, 'brg_missing')).status).toBe(404);
    const upcoming = await createBargain({ start: Date.now() + 10 * minute, end: Date.now() + 20 * minute });
    const early = await start(a, upcoming);
    expect({ status: early.status, code: early.body.code }).toEqual({ status: 422, code: 'SALE_NOT_OPEN' });
    const live = await createBargain();
    const boL = (await start(a, live)).body.bargainOrderId as string;
    expect((await admin.request('PATCH', `/api/v1/admin/activities/${live}`, { status: 'OFFLINE' })).body).toMatchObject({ kind: 'BARGAIN', status: 'OFFLINE' });
    const off = await cut(b, boL);
    expect({ status: off.status, code: off.body.code }).toEqual({ status: 409, code: 'ACTIVITY_OFFLINE' });
    expect((await admin.request('PATCH', `/api/v1/admin/activities/${live}`, { status: 'ON_SALE', title: 'Back' })).body).toMatchObject({ status: 'ON_SALE', title: 'Back' });
    expect((await cut(b, boL)).status).toBe(201);
    expect((await b.request('POST', '/api/v1/admin/bargains', bargainBody())).status).toBe(403);
    expect((await new ApiClient(t.node.app).request('POST', `/api/v1/bargains/${live}/start`)).status).toBe(401);
  });

  it('validates new bargains: negative or huge prices and stock, cutMin above cutMax, a floor at or above the original, a window ending before it starts', async () => {
    const bad = async (patch: Record<string, unknown>) => admin.request('POST', '/api/v1/admin/bargains', { ...bargainBody(), ...patch });
    expect((await bad({ originalPriceCents: -1 })).status).toBe(400);
    expect((await bad({ stock: 10_000_000 })).status).toBe(400);
    expect((await bad({ floorPriceCents: 100_000_001 })).status).toBe(400);
    expect((await bad({ minCuts: 0 })).status).toBe(400);
    expect((await bad({ extra: 1 })).status).toBe(400);
    for (const patch of [{ cutMinCents: 600, cutMaxCents: 500 }, { floorPriceCents: 10_000 }, { saleEndsAt: iso(Date.now() - 2 * minute) }]) {
      const r = await bad(patch);
      expect({ status: r.status, code: r.body.code }).toEqual({ status: 422, code: 'INVALID_BARGAIN' });
    }
    const noKey = await (await user()).request('POST', '/api/v1/bargain-orders/bgo_x/order');
    expect(noKey.status).toBe(400);
  });
});

/** A helper's press of "cut", retried after 503 BUSY as a real client would (a cut is refused, never doubled). */
async function press(b: HttpBuyer, bargainOrderId: string): Promise<HttpReply> {
  for (let attempt = 0; ; attempt++) {
    const reply = await b.call('POST', `/api/v1/bargain-orders/${bargainOrderId}/cuts`);
    if (reply.status !== 503 || attempt >= 20) return reply;
    await new Promise((resolve) => setTimeout(resolve, 50 + Math.random() * 200));
  }
}

describe('code pools in the activity catalog', () => {
  it('lists a code pool as kind CODE_POOL in the catalog order, details it, and says who took part (holds a code)', async () => {
    const now = Date.now();
    const created = await admin.request('POST', '/api/v1/admin/code-pools', { title: `Codes ${++seq}`, saleStartsAt: iso(now - minute), saleEndsAt: iso(now + 2 * minute) });
    const poolId = created.body.poolId as string;
    await admin.request('POST', `/api/v1/admin/code-pools/${poolId}/codes`, { codes: ['C1', 'C2'] });
    const ended = (await admin.request('POST', '/api/v1/admin/code-pools', { title: `Old codes ${++seq}`, saleStartsAt: iso(now - 10 * minute), saleEndsAt: iso(now + 30 * minute) })).body.poolId as string;
    const list = (await admin.request('GET', '/api/v1/activities?limit=100')).body.activities as { activityId: string; kind: string; status: string }[];
    expect(list.find((a) => a.activityId === poolId)).toMatchObject({ kind: 'CODE_POOL', status: 'ON_SALE' });
    // On sale, closing soonest first: the pool closing in 2 minutes before the one closing in 30.
    expect(list.findIndex((a) => a.activityId === poolId)).toBeLessThan(list.findIndex((a) => a.activityId === ended));
    const grabber = await user();
    expect((await grabber.request('GET', `/api/v1/activities/${poolId}`)).body).toMatchObject({ kind: 'CODE_POOL', participated: false });
    expect((await grabber.request('POST', `/api/v1/code-pools/${poolId}/grab`)).status).toBe(201);
    expect((await grabber.request('GET', `/api/v1/activities/${poolId}`)).body).toMatchObject({ kind: 'CODE_POOL', participated: true });

    // The organizer takes it offline through the activities route: no grabs (the grab's statement
    // refuses), the holder still gets their code back, the catalog lists it with the ended ones.
    const down = await admin.request('PATCH', `/api/v1/admin/activities/${poolId}`, { status: 'OFFLINE', title: 'Codes, paused' });
    expect(down.body).toMatchObject({ kind: 'CODE_POOL', status: 'OFFLINE', title: 'Codes, paused' });
    const refused = await (await user()).request('POST', `/api/v1/code-pools/${poolId}/grab`);
    expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 409, code: 'ACTIVITY_OFFLINE' });
    expect((await grabber.request('POST', `/api/v1/code-pools/${poolId}/grab`)).status).toBe(200);
    expect(((await admin.request('GET', '/api/v1/activities?limit=100')).body.activities as { activityId: string }[]).some((a) => a.activityId === poolId)).toBe(false);
    expect(((await admin.request('GET', '/api/v1/activities?limit=100&include=ended')).body.activities as { activityId: string; status: string }[]).find((a) => a.activityId === poolId)?.status).toBe('OFFLINE');
    expect((await admin.request('PATCH', `/api/v1/admin/activities/${poolId}`, { status: 'ON_SALE' })).body.status).toBe('ON_SALE');
    expect((await (await user()).request('POST', `/api/v1/code-pools/${poolId}/grab`)).status).toBe(201);
    const bad = await admin.request('PATCH', `/api/v1/admin/activities/${poolId}`, { saleEndsAt: iso(now - 2 * minute) });
    expect({ status: bad.status, code: bad.body.code }).toEqual({ status: 422, code: 'INVALID_FLASH_SALE' });
  });
});

describe('exports of campaigns', () => {
  it("bargains/{id}/orders.csv lists the bargain orders; flash-sales/{id}/orders.csv the sale's orders; buyers get 403, unknown ids 404", async () => {
    const bargainId = await createBargain({ minCuts: 1 });
    const alice = await new ApiClient(t.node.app).signUp(`-bargain${++seq}`);
    const boId = (await start(alice, bargainId)).body.bargainOrderId as string;
    await cut(await user(), boId);
    const placed = await order(alice, boId);
    const idle = await user();
    await start(idle, bargainId);
    const csv = await admin.request('GET', `/api/v1/admin/bargains/${bargainId}/orders.csv`);
    expect(csv.status).toBe(200);
    expect(csv.headers['content-type']).toContain('text/csv');
    const text = csv.body as string;
    expect(text.startsWith('\uFEFF')).toBe(true);
    const rows = text.slice(1).trimEnd().split('\r\n');
    expect(rows[0]).toBe('bargainOrderId,username,currentPriceCents,cuts,orderId,orderStatus,createdAt');
    expect(rows).toHaveLength(3);
    // A name a spreadsheet would run as a formula is escaped.
    expect(rows[1]).toMatch(new RegExp(`^${boId},'-bargain\\d+,\\d+,1,${placed.body.orderId},PENDING_PAY,`));
    expect(rows[2]).toMatch(/,0,,,/);
    expect((await alice.request('GET', `/api/v1/admin/bargains/${bargainId}/orders.csv`)).status).toBe(403);
    expect((await admin.request('GET', '/api/v1/admin/bargains/brg_nope/orders.csv')).status).toBe(404);

    const sale = await admin.request('POST', '/api/v1/admin/flash-sales', {
      title: 'Export sale', saleStartsAt: iso(Date.now() - minute), saleEndsAt: iso(Date.now() + 60 * minute), maxPerUser: 2,
      items: [{ itemId: 'TEA', name: 'Tea', priceCents: 100, originalPriceCents: 200, stock: 5 }],
    });
    const saleId = sale.body.flashSaleId as string;
    const bought = await alice.request('POST', `/api/v1/flash-sales/${saleId}/orders`, { itemId: 'TEA', quantity: 2 }, { 'x-idempotency-key': `fx${++seq}` });
    const saleCsv = (await admin.request('GET', `/api/v1/admin/flash-sales/${saleId}/orders.csv`)).body as string;
    const saleRows = saleCsv.slice(1).trimEnd().split('\r\n');
    expect(saleRows[0]).toBe('orderId,username,status,amountCents,paymentId,createdAt,updatedAt,contactName,contactPhone,contactEmail,discountCode,discountCents,grossCents,refundedCents,netCents');
    // Unpaid: no money taken, so gross, refunded and net are 0 (issue 32).
    expect(saleRows[1]).toMatch(new RegExp(`^${bought.body.orderId},'-bargain\\d+,PENDING_PAY,200,.*,0,0,0$`));
    expect((await alice.request('GET', `/api/v1/admin/flash-sales/${saleId}/orders.csv`)).status).toBe(403);
    expect((await admin.request('GET', '/api/v1/admin/flash-sales/fls_nope/orders.csv')).status).toBe(404);
  });
});

describe('bargain rush over real sockets', () => {
  it('200 helpers cutting one bargain at once (each twice): never below the floor, one cut per helper, the sum of cuts equals original minus current', async () => {
    const bargainId = await createBargain({ original: 100_000, floor: 60_000, cutMin: 100, cutMax: 500, minCuts: 10 });
    const [initiator] = await crowd(t, 1, `init${++seq}_`);
    const started = await initiator!.call('POST', `/api/v1/bargains/${bargainId}/start`);
    expect(started.status).toBe(201);
    const boId = started.body.bargainOrderId as string;
    const helpers = await crowd(t, 200, `help${++seq}_`);
    const replies = await Promise.all(helpers.flatMap((h) => [press(h, boId), press(h, boId)]));
    const codes = new Map<string, number>();
    for (const r of replies) codes.set(`${r.status} ${r.body.code ?? ''}`, (codes.get(`${r.status} ${r.body.code ?? ''}`) ?? 0) + 1);
    const won = replies.filter((r) => r.status === 201);
    const seen = await initiator!.call('GET', `/api/v1/bargain-orders/${boId}`);
    const cuts = seen.body.cutList as { helperName: string; amountCents: number }[];
    expect(seen.body.currentPriceCents).toBeGreaterThanOrEqual(60_000);
    expect(cuts.reduce((s, c) => s + c.amountCents, 0)).toBe(100_000 - seen.body.currentPriceCents);
    expect(new Set(cuts.map((c) => c.helperName)).size).toBe(cuts.length);
    expect(cuts).toHaveLength(won.length);
    expect(seen.body.cuts).toBe(won.length);
    // Every helper got at most one 201; every other answer is one of the two refusals.
    expect([...codes.keys()].filter((k) => !k.startsWith('201')).every((k) => k === '409 ALREADY_CUT' || k === '409 FLOOR_REACHED')).toBe(true);
    expect(won.length).toBeLessThanOrEqual(200);
    console.log(`bargain rush: ${JSON.stringify(Object.fromEntries(codes))}, price ${seen.body.currentPriceCents}`);
  }, 120_000);

  it('30 ready bargain orders ordering 10 units at once: exactly 10 orders, the rest SOLD_OUT; paid ones ticketed, and the auditor finds the books consistent', async () => {
    const bargainId = await createBargain({ stock: 10, minCuts: 1, cutMin: 100, cutMax: 100 });
    const buyers = await crowd(t, 30, `ord${++seq}_`);
    const [helper] = await crowd(t, 1, `ordh${++seq}_`);
    const ids: string[] = [];
    for (const b of buyers) {
      const started = await b.call('POST', `/api/v1/bargains/${bargainId}/start`);
      ids.push(started.body.bargainOrderId as string);
      expect((await helper!.call('POST', `/api/v1/bargain-orders/${started.body.bargainOrderId}/cuts`)).status).toBe(201);
    }
    const replies = await Promise.all(buyers.map(async (b, i) => {
      for (let attempt = 0; ; attempt++) {
        const reply = await b.call('POST', `/api/v1/bargain-orders/${ids[i]}/order`, undefined, { 'x-idempotency-key': `bo-${i}` });
        if (reply.status !== 503 || attempt >= 20) return reply;
        await new Promise((resolve) => setTimeout(resolve, 50 + Math.random() * 200));
      }
    }));
    const won = replies.filter((r) => r.status === 201);
    expect(won).toHaveLength(10);
    for (const r of replies.filter((x) => x.status !== 201)) expect({ status: r.status, code: r.body.code }).toEqual({ status: 409, code: 'SOLD_OUT' });
    for (const r of won) expect(r.body).toMatchObject({ kind: 'BARGAIN', amountCents: 9_900 });
    // Half of the winners pay; the others' orders stay unpaid (their holds live on).
    for (const r of won.slice(0, 5)) {
      await postCallback(t.node.app, t.node.config.secrets.payment, { paymentId: r.body.paymentId, orderId: r.body.orderId, status: 'SUCCEEDED', amountCents: 9_900 });
    }
    await expectSettledAndConsistent(auditSourceOf(t), bargainId, 0);
    expect((await admin.request('GET', `/api/v1/bargains/${bargainId}`)).body).toMatchObject({ available: 0 });
  }, 120_000);
});
