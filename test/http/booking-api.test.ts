import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, ApiClient, createShow } from '../support/api-client.js';
import { startTestNode, type TestNode } from '../support/backend.js';
import { orderRequestHash } from '../../src/app/orders.js';
import { postCallback } from '../support/payments.js';
import { eventually, sleep } from '../support/wait.js';

let t: TestNode & { baseUrl: string };
let admin: ApiClient;
let seq = 0;
const buyer = async () => new ApiClient(t.node.app).signUp(`buyer${++seq}`);
const seatsOf = async (api: ApiClient, showId: string) =>
  new Map<string, string>(((await api.request('GET', `/api/v1/shows/${showId}/seats`)).body.seats as { seatId: string; status: string }[]).map((s) => [s.seatId, s.status]));

beforeAll(async () => {
  t = await startTestNode();
  admin = await adminClient(t.node.app);
});
afterAll(async () => t.close());

describe('holds', () => {
  it('holds specific seats, prices them, and shows them HELD on the seat map', async () => {
    const showId = await createShow(admin);
    const alice = await buyer();
    const hold = await alice.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-1-1', 'A-1-2'] });
    expect(hold.status).toBe(201);
    expect(hold.body).toMatchObject({ seatIds: ['A-1-1', 'A-1-2'], totalPriceCents: 10000, status: 'ACTIVE' });
    expect(Date.parse(hold.body.expiresAt) - Date.now()).toBeGreaterThan(590_000);
    const seats = await seatsOf(alice, showId);
    expect(seats.get('A-1-1')).toBe('HELD');
    expect(seats.get('A-1-3')).toBe('AVAILABLE');
  });

  it('is all or nothing: one taken seat fails the whole hold with SEAT_UNAVAILABLE and holds none', async () => {
    const showId = await createShow(admin);
    const [alice, bob] = [await buyer(), await buyer()];
    await alice.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-2-5'] });
    const clash = await bob.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-2-4', 'A-2-5', 'A-2-6'] });
    expect(clash.status).toBe(409);
    expect(clash.body.code).toBe('SEAT_UNAVAILABLE');
    const seats = await seatsOf(bob, showId);
    expect([seats.get('A-2-4'), seats.get('A-2-6')]).toEqual(['AVAILABLE', 'AVAILABLE']);
  });

  it('picks N adjacent best-available seats at the front centre', async () => {
    const showId = await createShow(admin);
    const hold = await (await buyer()).request('POST', `/api/v1/shows/${showId}/holds`, { quantity: 3 });
    expect(hold.status).toBe(201);
    expect(hold.body.seatIds).toEqual(['A-1-4', 'A-1-5', 'A-1-6']);
    expect(hold.body.adjacent).toBe(true);
  });

  it('sits nearest a preferred seat, and says when only scattered seats were left', async () => {
    const showId = await createShow(admin, { sections: [{ id: 'A', name: 'Stalls', rows: 2, seatsPerRow: 4, priceCents: 5000 }] });
    const near = await (await buyer()).request('POST', `/api/v1/shows/${showId}/holds`, { quantity: 2, near: { section: 'A', row: 2, number: 4 } });
    expect(near.body.seatIds).toEqual(['A-2-3', 'A-2-4']);
    // Leave free only A-1-1 and A-1-4 plus A-2-1 and A-2-2, then ask for three.
    await (await buyer()).request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-1-2', 'A-1-3'] });
    const together = await (await buyer()).request('POST', `/api/v1/shows/${showId}/holds`, { quantity: 3 });
    expect(together.status).toBe(409);
    expect(together.body.code).toBe('NOT_ENOUGH_SEATS');
    const scattered = await (await buyer()).request('POST', `/api/v1/shows/${showId}/holds`, { quantity: 3, adjacent: false });
    expect(scattered.status).toBe(201);
    expect(scattered.body.adjacent).toBe(false);
    expect(scattered.body.seatIds).toHaveLength(3);
  });

  it('refuses with 422 when the sale is not open, seats are unknown, too many, or the duration is out of bounds', async () => {
    const upcoming = await createShow(admin, { saleOpensInMs: 3_600_000 });
    const showId = await createShow(admin);
    const alice = await buyer();
    const cases: [string, unknown, string][] = [
      [upcoming, { seatIds: ['A-1-1'] }, 'SALE_NOT_OPEN'],
      [showId, { seatIds: ['Z-9-9'] }, 'SEAT_NOT_FOUND'],
      [showId, { seatIds: Array.from({ length: 11 }, (_, i) => `A-3-${i + 1}`) }, 'TOO_MANY_SEATS'],
      [showId, { quantity: 11 }, 'TOO_MANY_SEATS'],
      [showId, { seatIds: ['A-4-1'], holdSeconds: 3000 }, 'INVALID_HOLD_DURATION'],
      [showId, { seatIds: ['A-4-1', 'A-4-1'] }, 'DUPLICATE_SEAT'],
    ];
    for (const [show, body, code] of cases) {
      const reply = await alice.request('POST', `/api/v1/shows/${show}/holds`, body);
      expect({ status: reply.status, code: reply.body.code }).toEqual({ status: 422, code });
    }
  });

  it('lets only the owner release a hold; release frees the seats; a second release is refused as HOLD_NOT_ACTIVE', async () => {
    const showId = await createShow(admin);
    const [alice, bob] = [await buyer(), await buyer()];
    const hold = await alice.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-5-1'] });
    expect((await bob.request('DELETE', `/api/v1/holds/${hold.body.holdId}`)).status).toBe(403);
    const released = await alice.request('DELETE', `/api/v1/holds/${hold.body.holdId}`);
    expect(released.body.status).toBe('RELEASED');
    expect((await seatsOf(alice, showId)).get('A-5-1')).toBe('AVAILABLE');
    const again = await alice.request('DELETE', `/api/v1/holds/${hold.body.holdId}`);
    expect({ status: again.status, code: again.body.code }).toEqual({ status: 409, code: 'HOLD_NOT_ACTIVE' });
  });

  it('extends a hold once for its owner, keeps the seats past the first expiry, then refuses more time', async () => {
    const showId = await createShow(admin);
    const [alice, bob] = [await buyer(), await buyer()];
    const hold = await alice.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-7-1'], holdSeconds: 1 });
    expect((await bob.request('POST', `/api/v1/holds/${hold.body.holdId}/extend`, { seconds: 3 })).status).toBe(403);
    const extended = await alice.request('POST', `/api/v1/holds/${hold.body.holdId}/extend`, { seconds: 3 });
    expect(extended.status).toBe(200);
    expect(extended.body.extensions).toBe(1);
    expect(Date.parse(extended.body.expiresAt) - Date.parse(hold.body.expiresAt)).toBe(3_000);
    const more = await alice.request('POST', `/api/v1/holds/${hold.body.holdId}/extend`, { seconds: 3 });
    expect({ status: more.status, code: more.body.code }).toEqual({ status: 409, code: 'HOLD_EXTENSION_LIMIT' });
    await sleep(1_800);
    expect((await seatsOf(alice, showId)).get('A-7-1')).toBe('HELD');
    await eventually(async () => ((await seatsOf(alice, showId)).get('A-7-1') === 'AVAILABLE' ? true : undefined), 6_000, 'seat freed');
  });

  it('frees an expired hold within 2 seconds with no request touching it', async () => {
    const showId = await createShow(admin);
    const alice = await buyer();
    await alice.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-6-1'], holdSeconds: 1 });
    const expiredAt = Date.now() + 1000;
    await eventually(async () => ((await seatsOf(alice, showId)).get('A-6-1') === 'AVAILABLE' ? true : undefined), 4_000, 'seat freed');
    expect(Date.now() - expiredAt).toBeLessThan(2_000);
  });
});

describe('seat map', () => {
  it('answers 304 to a matching If-None-Match and changes its ETag when a seat changes', async () => {
    const showId = await createShow(admin);
    const alice = await buyer();
    const first = await alice.request('GET', `/api/v1/shows/${showId}/seats`);
    const etag = String(first.headers.etag);
    expect((await alice.request('GET', `/api/v1/shows/${showId}/seats`, undefined, { 'if-none-match': etag })).status).toBe(304);
    await alice.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-1-1'] });
    const after = await alice.request('GET', `/api/v1/shows/${showId}/seats`, undefined, { 'if-none-match': etag });
    expect(after.status).toBe(200);
    expect(after.body.version).toBeGreaterThan(first.body.version);
    const compact = await alice.request('GET', `/api/v1/shows/${showId}/seats?format=compact`);
    expect(compact.body.statuses).toHaveLength(100);
    expect(compact.body.statuses[0]).toBe('H');
  });
});

describe('orders and idempotency', () => {
  async function held(api: ApiClient, seatIds = ['A-1-1']) {
    const showId = await createShow(admin);
    const hold = await api.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds });
    return { showId, holdId: hold.body.holdId as string };
  }

  it('creates one order per key: the same key replays the same order', async () => {
    const alice = await buyer();
    const { holdId } = await held(alice, ['A-1-1', 'A-1-2']);
    const first = await alice.request('POST', '/api/v1/orders', { holdId }, { 'x-idempotency-key': 'k-1' });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ status: 'PENDING_PAY', amountCents: 10000 });
    expect(first.body.paymentId).toMatch(/^pay_/);
    const again = await alice.request('POST', '/api/v1/orders', { holdId }, { 'x-idempotency-key': 'k-1' });
    expect(again.body.orderId).toBe(first.body.orderId);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect((await alice.request('GET', '/api/v1/me/orders')).body.orders).toHaveLength(1);
  });

  it('refuses a missing key (400), a reused key with another body (422), a second order on the hold (409)', async () => {
    const alice = await buyer();
    const { holdId } = await held(alice);
    const { holdId: otherHold } = await held(alice);
    expect((await alice.request('POST', '/api/v1/orders', { holdId })).status).toBe(400);
    await alice.request('POST', '/api/v1/orders', { holdId }, { 'x-idempotency-key': 'k-2' });
    const reused = await alice.request('POST', '/api/v1/orders', { holdId: otherHold }, { 'x-idempotency-key': 'k-2' });
    expect({ status: reused.status, code: reused.body.code }).toEqual({ status: 422, code: 'IDEMPOTENCY_KEY_REUSED' });
    const second = await alice.request('POST', '/api/v1/orders', { holdId }, { 'x-idempotency-key': 'k-3' });
    expect({ status: second.status, code: second.body.code }).toEqual({ status: 409, code: 'HOLD_ALREADY_ORDERED' });
  });

  it('answers 409 in-flight, never a second order, to concurrent requests with one key', async () => {
    const alice = await buyer();
    const { holdId } = await held(alice);
    const replies = await Promise.all(
      Array.from({ length: 8 }, () => alice.request('POST', '/api/v1/orders', { holdId }, { 'x-idempotency-key': 'same' })),
    );
    const created = replies.filter((r) => r.status === 201);
    expect(new Set(created.map((r) => r.body.orderId)).size).toBe(1);
    for (const r of replies.filter((x) => x.status !== 201)) expect(r.body.code).toBe('IDEMPOTENCY_REQUEST_IN_FLIGHT');
  });

  it('rides out a provider outage: the same key retried after a 502 places one order, a new key is not locked out', async () => {
    const sandbox = t.node.sandbox;
    if (sandbox === null) throw new Error('the sandbox provider is off');
    const alice = await buyer();
    const { holdId } = await held(alice);
    const { holdId: otherHold } = await held(alice);
    sandbox.setAvailable(false);
    let down;
    let downToo;
    try {
      down = await alice.request('POST', '/api/v1/orders', { holdId }, { 'x-idempotency-key': 'outage-1' });
      downToo = await alice.request('POST', '/api/v1/orders', { holdId: otherHold }, { 'x-idempotency-key': 'outage-2' });
    } finally {
      sandbox.setAvailable(true);
    }
    expect({ status: down.status, code: down.body.code }).toEqual({ status: 502, code: 'PAYMENT_PROVIDER_UNAVAILABLE' });
    expect(downToo.status).toBe(502);

    const retried = await alice.request('POST', '/api/v1/orders', { holdId }, { 'x-idempotency-key': 'outage-1' });
    expect(retried.status).toBe(201);
    expect(retried.body.status).toBe('PENDING_PAY');
    const replay = await alice.request('POST', '/api/v1/orders', { holdId }, { 'x-idempotency-key': 'outage-1' });
    expect(replay.body.orderId).toBe(retried.body.orderId);
    const freshKey = await alice.request('POST', '/api/v1/orders', { holdId: otherHold }, { 'x-idempotency-key': 'outage-3' });
    expect(freshKey.status).toBe(201);

    const orders = (await alice.request('GET', '/api/v1/me/orders')).body.orders as { orderId: string; status: string }[];
    expect(orders.filter((o) => o.status === 'PENDING_PAY').map((o) => o.orderId).sort()).toEqual([retried.body.orderId, freshKey.body.orderId].sort());
  });

  it('lets a retry take over a key whose first request died in flight, but not one still running', async () => {
    const username = `buyer${++seq}`;
    const alice = await new ApiClient(t.node.app).signUp(username);
    const { holdId } = await held(alice);
    const userId = (await t.node.ctx.store.findUserByUsername(username))?.userId as string;
    const requestHash = orderRequestHash(holdId);
    // What a process killed between accepting the key and answering leaves behind.
    const leftBehind = (key: string, ageMs: number) => t.node.ctx.store.beginKey(({
      scope: `order:${userId}`, key, requestHash, state: 'IN_FLIGHT', outcome: null, responseBody: null, createdAt: Date.now() - ageMs,
    }));
    await leftBehind('crashed', 61_000);
    await leftBehind('running', 1_000);
    const running = await alice.request('POST', '/api/v1/orders', { holdId }, { 'x-idempotency-key': 'running' });
    expect({ status: running.status, code: running.body.code }).toEqual({ status: 409, code: 'IDEMPOTENCY_REQUEST_IN_FLIGHT' });
    const takenOver = await alice.request('POST', '/api/v1/orders', { holdId }, { 'x-idempotency-key': 'crashed' });
    expect(takenOver.status).toBe(201);
  });

  it("refuses someone else's hold (403) and an expired one (409)", async () => {
    const [alice, bob] = [await buyer(), await buyer()];
    const { holdId } = await held(alice);
    const stolen = await bob.request('POST', '/api/v1/orders', { holdId }, { 'x-idempotency-key': 'b-1' });
    expect({ status: stolen.status, code: stolen.body.code }).toEqual({ status: 403, code: 'HOLD_NOT_OWNED' });
    const showId = await createShow(admin);
    const shortHold = await alice.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-1-1'], holdSeconds: 1 });
    await sleep(1_100);
    const late = await alice.request('POST', '/api/v1/orders', { holdId: shortHold.body.holdId }, { 'x-idempotency-key': 'a-late' });
    expect({ status: late.status, code: late.body.code }).toEqual({ status: 409, code: 'HOLD_EXPIRED' });
  });

  it("hides another buyer's order (404) but shows it to an admin", async () => {
    const [alice, bob] = [await buyer(), await buyer()];
    const { holdId } = await held(alice);
    const order = await alice.request('POST', '/api/v1/orders', { holdId }, { 'x-idempotency-key': 'v-1' });
    expect((await bob.request('GET', `/api/v1/orders/${order.body.orderId}`)).status).toBe(404);
    expect((await admin.request('GET', `/api/v1/orders/${order.body.orderId}`)).status).toBe(200);

    // An admin whose role is withdrawn loses the view at once, whatever the token says.
    const deputy = await buyer();
    const deputyName = ((await deputy.request('GET', '/api/v1/me')).body as { username: string }).username;
    expect((await admin.request('PUT', `/api/v1/admin/users/${deputyName}/role`, { role: 'ADMIN' })).status).toBe(200);
    const promoted = await deputy.logIn(deputyName, 'password-123');
    expect((await promoted.request('GET', `/api/v1/orders/${order.body.orderId}`)).status).toBe(200);
    expect((await admin.request('PUT', `/api/v1/admin/users/${deputyName}/role`, { role: 'BUYER' })).status).toBe(200);
    expect((await promoted.request('GET', `/api/v1/orders/${order.body.orderId}`)).status).toBe(404);
    expect((await promoted.request('GET', '/api/v1/me')).body.role).toBe('BUYER');
  });
});
