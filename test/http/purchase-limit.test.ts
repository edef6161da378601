import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, ApiClient, createShow } from '../support/api-client.js';
import { auditSourceOf, startTestNode, type TestNode } from '../support/backend.js';
import { readAudit } from '../support/audit.js';
import { HttpBuyer } from '../support/http-buyer.js';
import { postCallback } from '../support/payments.js';
import { eventually } from '../support/wait.js';

/** The configured default for shows that set no limit of their own. */
const defaultLimit = 6;
let t: TestNode & { baseUrl: string };
let admin: ApiClient;
let seq = 0;

beforeAll(async () => {
  // One buyer sends 100 holds at once here: the per-show seat limit is under test, not the per-minute rate limit.
  t = await startTestNode({ env: { TICKETRUSH_MAX_SEATS_PER_USER: String(defaultLimit), TICKETRUSH_RATE_LIMIT_HOLD_PER_USER_PER_MINUTE: '10000' } });
  admin = await adminClient(t.node.app);
});
afterAll(async () => t.close());

const buyer = async () => new ApiClient(t.node.app).signUp(`limited${++seq}`);
const hold = (api: ApiClient, showId: string, seatIds: string[], holdSeconds?: number) =>
  api.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds, ...(holdSeconds === undefined ? {} : { holdSeconds }) });

describe('per-buyer seat limit per show', () => {
  it('lets 100 parallel holds by one buyer over real sockets take exactly the limit, and refuses the rest with 409 PURCHASE_LIMIT_REACHED', async () => {
    const showId = await createShow(admin, { maxSeatsPerUser: 5 });
    const rusher = await new HttpBuyer(t.baseUrl, `rusher${++seq}`).signUp();
    const seatIds = Array.from({ length: 100 }, (_, i) => `A-${Math.floor(i / 10) + 1}-${(i % 10) + 1}`);
    const replies = await Promise.all(seatIds.map((seat) => rusher.call('POST', `/api/v1/shows/${showId}/holds`, { seatIds: [seat] })));
    const held = replies.filter((r) => r.status === 201);
    const refused = replies.filter((r) => r.status !== 201);
    expect(held).toHaveLength(5);
    for (const r of refused) {
      expect({ status: r.status, code: r.body.code }).toEqual({ status: 409, code: 'PURCHASE_LIMIT_REACHED' });
      expect(r.body.details).toMatchObject({ limit: 5, claimed: 5, requested: 1 });
    }
    const audit = await readAudit(auditSourceOf(t), showId);
    expect(audit.seats.filter((s) => s.status === 'HELD')).toHaveLength(5);
  });

  it('counts seats in active holds and paid orders, not in released or expired holds', async () => {
    const showId = await createShow(admin, { maxSeatsPerUser: 3 });
    const alice = await buyer();
    // Two seats bought: a CONFIRMED hold with a paid order.
    const bought = await hold(alice, showId, ['A-1-1', 'A-1-2']);
    const order = (await alice.request('POST', '/api/v1/orders', { holdId: bought.body.holdId }, { 'x-idempotency-key': `buy-${seq}` })).body;
    const paid = await postCallback(t.node.app, t.node.config.secrets.payment, { paymentId: order.paymentId, orderId: order.orderId, status: 'SUCCEEDED', amountCents: order.amountCents });
    expect(paid.body.outcome).toBe('SOLD');
    // One seat held: the limit of 3 is reached.
    const third = await hold(alice, showId, ['A-2-1']);
    expect(third.status).toBe(201);
    const fourth = await hold(alice, showId, ['A-2-2']);
    expect({ status: fourth.status, code: fourth.body.code, details: fourth.body.details }).toEqual({
      status: 409, code: 'PURCHASE_LIMIT_REACHED', details: { limit: 3, claimed: 3, requested: 1 },
    });
    // A released hold gives its seat back to the count.
    expect((await alice.request('DELETE', `/api/v1/holds/${third.body.holdId}`)).status).toBe(200);
    const short = await hold(alice, showId, ['A-2-3'], 1);
    expect(short.status).toBe(201);
    expect((await hold(alice, showId, ['A-2-4'])).body.code).toBe('PURCHASE_LIMIT_REACHED');
    // So does an expired one.
    await eventually(async () => ((await t.node.ctx.store.getHold(short.body.holdId))?.status === 'EXPIRED' ? true : undefined), 4_000, 'hold expired');
    expect((await hold(alice, showId, ['A-2-4'])).status).toBe(201);
    // Another buyer has a limit of their own.
    expect((await hold(await buyer(), showId, ['A-3-1', 'A-3-2', 'A-3-3'])).status).toBe(201);
  });

  it('counts best-available picks too', async () => {
    const showId = await createShow(admin, { maxSeatsPerUser: 2 });
    const bob = await buyer();
    expect((await bob.request('POST', `/api/v1/shows/${showId}/holds`, { quantity: 2 })).status).toBe(201);
    const more = await bob.request('POST', `/api/v1/shows/${showId}/holds`, { quantity: 1 });
    expect({ status: more.status, code: more.body.code }).toEqual({ status: 409, code: 'PURCHASE_LIMIT_REACHED' });
  });

  it('takes maxSeatsPerUser from 1 up to the capacity, defaults it from the configuration, and shows it', async () => {
    const small = [{ id: 'A', name: 'Box', rows: 1, seatsPerRow: 4, priceCents: 9000 }];
    const tooMany = await admin.request('POST', '/api/v1/admin/shows', showBody(small, 5));
    expect({ status: tooMany.status, code: tooMany.body.code }).toEqual({ status: 422, code: 'INVALID_PURCHASE_LIMIT' });
    for (const bad of [0, 2.5]) {
      const reply = await admin.request('POST', '/api/v1/admin/shows', showBody(small, bad));
      expect({ bad, status: reply.status, code: reply.body.code }).toEqual({ bad, status: 400, code: 'VALIDATION_FAILED' });
    }
    const created = await admin.request('POST', '/api/v1/admin/shows', showBody(small, 4));
    expect(created.body).toMatchObject({ capacity: 4, maxSeatsPerUser: 4 });
    expect((await admin.request('GET', `/api/v1/shows/${created.body.showId}`)).body.maxSeatsPerUser).toBe(4);

    const byDefault = await createShow(admin);
    expect((await admin.request('GET', `/api/v1/shows/${byDefault}`)).body.maxSeatsPerUser).toBe(defaultLimit);
    const smallByDefault = await createShow(admin, { sections: [{ ...small[0] as (typeof small)[0], seatsPerRow: 3 }] });
    expect((await admin.request('GET', `/api/v1/shows/${smallByDefault}`)).body.maxSeatsPerUser).toBe(3);
    const listed = (await admin.request('GET', '/api/v1/shows?limit=100')).body.shows as { showId: string; maxSeatsPerUser: number }[];
    expect(listed.find((s) => s.showId === byDefault)?.maxSeatsPerUser).toBe(defaultLimit);
  });
});

function showBody(sections: unknown[], maxSeatsPerUser: unknown) {
  const now = Date.now();
  return {
    title: 'Limited', venue: 'Hall', city: 'Town',
    startsAt: new Date(now + 10 * 86_400_000).toISOString(),
    saleStartsAt: new Date(now - 60_000).toISOString(),
    saleEndsAt: new Date(now + 86_400_000).toISOString(),
    seatMap: { sections },
    maxSeatsPerUser,
  };
}
