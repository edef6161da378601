import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, ApiClient, createShow } from '../support/api-client.js';
import { startTestNode, type TestNode } from '../support/backend.js';
import { eventually, sleep } from '../support/wait.js';

/**
 * Issue 20, defects 1 and 11: a buyer's live holds can be read back (a page resumes them after a
 * reload), and a buyer can cancel an unpaid order, releasing its seats at once; paying a paid order
 * again says the order is paid.
 */
let t: TestNode & { baseUrl: string };
let admin: ApiClient;
let seq = 0;
const buyer = async () => new ApiClient(t.node.app).signUp(`holder${++seq}`);
const seatStatus = async (api: ApiClient, showId: string, seatId: string) =>
  ((await api.request('GET', `/api/v1/shows/${showId}/seats`)).body.seats as { seatId: string; status: string }[]).find((s) => s.seatId === seatId)?.status;
const gaLeft = async (api: ApiClient, showId: string) =>
  ((await api.request('GET', `/api/v1/shows/${showId}/availability`)).body.sections as { id: string; available: number }[]).find((s) => s.id === 'GA')?.available;

beforeAll(async () => {
  t = await startTestNode();
  admin = await adminClient(t.node.app);
});
afterAll(async () => t.close());

async function orderOn(api: ApiClient, showId: string, body: object) {
  const hold = await api.request('POST', `/api/v1/shows/${showId}/holds`, body);
  expect(hold.status).toBe(201);
  const order = await api.request('POST', '/api/v1/orders', { holdId: hold.body.holdId }, { 'x-idempotency-key': `k-${++seq}` });
  expect(order.status).toBe(201);
  return { hold: hold.body, order: order.body };
}

describe('GET /me/holds', () => {
  it("lists the caller's active holds with show, lines, price, expiry and extension terms; nobody else's, nothing released", async () => {
    const showId = await createShow(admin, { sections: [{ id: 'A', name: 'Stalls', rows: 3, seatsPerRow: 10, priceCents: 5000 }, { id: 'GA', name: 'Standing', kind: 'GENERAL_ADMISSION', capacity: 20, priceCents: 9900 }] });
    const [alice, bob] = [await buyer(), await buyer()];
    expect((await alice.request('GET', '/api/v1/me/holds')).body).toEqual({ holds: [] });
    const seats = await alice.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-2-4', 'A-2-5'], holdSeconds: 300 });
    const places = await alice.request('POST', `/api/v1/shows/${showId}/holds`, { section: 'GA', quantity: 3, holdSeconds: 120 });
    const gone = await alice.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-3-1'] });
    expect((await alice.request('DELETE', `/api/v1/holds/${gone.body.holdId}`)).status).toBe(200);
    await bob.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-1-1'] });

    const mine = await alice.request('GET', '/api/v1/me/holds');
    expect(mine.status).toBe(200);
    expect(mine.body.holds.map((h: { holdId: string }) => h.holdId)).toEqual([places.body.holdId, seats.body.holdId]);
    const [ga, seated] = mine.body.holds;
    expect(ga).toMatchObject({
      showId, status: 'ACTIVE', seatIds: [], lines: [{ kind: 'UNITS', sectionId: 'GA', quantity: 3 }], totalPriceCents: 29_700,
      expiresAt: places.body.expiresAt, extensions: 0, extensionsMax: t.node.ctx.policy.holdExtensionsMax,
      show: { showId, title: expect.any(String), venue: expect.any(String), city: expect.any(String), startsAt: expect.any(String) },
    });
    expect(Date.parse(ga.latestExpiresAt) - Date.parse(ga.expiresAt)).toBe(t.node.ctx.policy.holdLifeSecondsMax * 1000 - 120_000);
    expect(seated).toMatchObject({ seatIds: ['A-2-4', 'A-2-5'], totalPriceCents: 10_000 });
    // The hold answers carry the same terms, so a page can offer "more time" straight away.
    expect(seats.body).toMatchObject({ extensionsMax: ga.extensionsMax, latestExpiresAt: seated.latestExpiresAt });
    expect((await bob.request('GET', '/api/v1/me/holds')).body.holds).toHaveLength(1);
  });

  it('leaves out a hold the moment it is due, before any sweep', async () => {
    const showId = await createShow(admin);
    const alice = await buyer();
    await alice.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-1-1'], holdSeconds: 1 });
    expect((await alice.request('GET', '/api/v1/me/holds')).body.holds).toHaveLength(1);
    await sleep(1_050);
    expect((await alice.request('GET', '/api/v1/me/holds')).body.holds).toEqual([]);
  });

  it('pages with a bounded limit, and needs a signed-in buyer', async () => {
    const showId = await createShow(admin);
    const alice = await buyer();
    for (let i = 1; i <= 3; i++) await alice.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: [`A-4-${i}`], holdSeconds: 100 + i });
    const page = (q: string) => alice.request('GET', `/api/v1/me/holds${q}`);
    expect((await page('?limit=2')).body.holds.map((h: { seatIds: string[] }) => h.seatIds[0])).toEqual(['A-4-1', 'A-4-2']);
    expect((await page('?limit=2&offset=2')).body.holds.map((h: { seatIds: string[] }) => h.seatIds[0])).toEqual(['A-4-3']);
    for (const bad of ['?limit=21', '?limit=0', '?offset=-1']) expect((await page(bad)).status, bad).toBe(400);
    expect((await alice.as(null).request('GET', '/api/v1/me/holds')).status).toBe(401);
  });
});

describe('POST /orders/{orderId}/cancel', () => {
  it('cancels an unpaid order and releases its seats at once; a second cancel is ORDER_NOT_CANCELLABLE', async () => {
    const showId = await createShow(admin);
    const alice = await buyer();
    const { hold, order } = await orderOn(alice, showId, { seatIds: ['A-1-3', 'A-1-4'] });
    expect(order.status).toBe('PENDING_PAY');
    const due = await alice.request('GET', `/api/v1/orders/${order.orderId}`);
    expect(due.body.paymentDueAt).toBe(hold.expiresAt);
    const cancelled = await alice.request('POST', `/api/v1/orders/${order.orderId}/cancel`);
    expect({ status: cancelled.status, orderStatus: cancelled.body.status }).toEqual({ status: 200, orderStatus: 'CANCELLED' });
    expect(await t.node.ctx.store.getHold(hold.holdId)).toMatchObject({ status: 'RELEASED' });
    expect([await seatStatus(alice, showId, 'A-1-3'), await seatStatus(alice, showId, 'A-1-4')]).toEqual(['AVAILABLE', 'AVAILABLE']);
    expect((await alice.request('GET', '/api/v1/me/holds')).body.holds).toEqual([]);
    expect((await alice.request('GET', `/api/v1/orders/${order.orderId}`)).body).toMatchObject({ status: 'CANCELLED', paymentDueAt: null });
    const again = await alice.request('POST', `/api/v1/orders/${order.orderId}/cancel`);
    expect({ status: again.status, code: again.body.code, was: again.body.details?.status }).toEqual({ status: 409, code: 'ORDER_NOT_CANCELLABLE', was: 'CANCELLED' });
    // Someone else may take the seats straight away.
    expect((await (await buyer()).request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-1-3'] })).status).toBe(201);
  });

  it('gives places of a counted section back, and the buyer may hold again up to the limit', async () => {
    const showId = await createShow(admin, { sections: [{ id: 'GA', name: 'Standing', kind: 'GENERAL_ADMISSION', capacity: 10, priceCents: 9900 }] });
    const alice = await buyer();
    const { order } = await orderOn(alice, showId, { section: 'GA', quantity: 10 });
    expect(await gaLeft(alice, showId)).toBe(0);
    expect((await alice.request('POST', `/api/v1/orders/${order.orderId}/cancel`)).status).toBe(200);
    expect(await gaLeft(alice, showId)).toBe(10);
    expect((await alice.request('POST', `/api/v1/shows/${showId}/holds`, { section: 'GA', quantity: 10 })).status).toBe(201);
  });

  it("is the owner's alone: someone else's order is ORDER_NOT_FOUND and stays as it was", async () => {
    const showId = await createShow(admin);
    const [alice, mallory] = [await buyer(), await buyer()];
    const { order } = await orderOn(alice, showId, { seatIds: ['A-2-2'] });
    const probe = await mallory.request('POST', `/api/v1/orders/${order.orderId}/cancel`);
    expect({ status: probe.status, code: probe.body.code }).toEqual({ status: 404, code: 'ORDER_NOT_FOUND' });
    expect((await alice.request('GET', `/api/v1/orders/${order.orderId}`)).body.status).toBe('PENDING_PAY');
    expect((await mallory.request('POST', '/api/v1/orders/order_nope/cancel')).body.code).toBe('ORDER_NOT_FOUND');
    expect((await alice.as(null).request('POST', `/api/v1/orders/${order.orderId}/cancel`)).status).toBe(401);
  });

  it('refuses a paid order with ORDER_ALREADY_PAID, and so does a second sandbox payment', async () => {
    const showId = await createShow(admin);
    const alice = await buyer();
    const { order } = await orderOn(alice, showId, { seatIds: ['A-3-3'] });
    expect((await alice.request('POST', `/api/v1/orders/${order.orderId}/sandbox-pay`, { outcome: 'SUCCEEDED' })).status).toBe(202);
    const paid = await eventually(async () => {
      const o = (await alice.request('GET', `/api/v1/orders/${order.orderId}`)).body;
      return o.status === 'TICKETED' ? o : undefined;
    });
    expect(paid.paymentDueAt).toBeNull();
    const cancel = await alice.request('POST', `/api/v1/orders/${order.orderId}/cancel`);
    expect({ status: cancel.status, code: cancel.body.code }).toEqual({ status: 409, code: 'ORDER_ALREADY_PAID' });
    const payAgain = await alice.request('POST', `/api/v1/orders/${order.orderId}/sandbox-pay`, { outcome: 'SUCCEEDED' });
    expect({ status: payAgain.status, code: payAgain.body.code, was: payAgain.body.details?.status }).toEqual({ status: 409, code: 'ORDER_ALREADY_PAID', was: 'TICKETED' });
    expect(await seatStatus(alice, showId, 'A-3-3')).toBe('SOLD');
  });
});
