import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buyerPaths, gateTable, type BuyerPath, type GateCheck } from '../../src/app/buyer-gate.js';
import { shedClassOf } from '../../src/http/load-shedding.js';
import { buyingLimitNames } from '../../src/ports/rate-limiter.js';
import { adminClient, ApiClient, createShow, type Reply, type ShowOptions } from '../support/api-client.js';
import { startTestNode, type TestNode } from '../support/backend.js';
import { eventually, sleep } from '../support/wait.js';

/**
 * Issue 33: every path that takes inventory passes one buyer gate. This walks every path × every
 * check of the gate's table (src/app/buyer-gate.ts, docs/architecture.md): each refusal answers
 * its stable code, and the buyer has nothing more held, ordered, queued or offered than before.
 * A path or a check added to the table without a scenario here fails the walk; a path whose gate
 * call is removed answers 201 where a refusal is expected.
 */

/** Per user a handful of requests per minute, so the rate-limit scenario reaches the limit; per address many (every buyer here shares one). */
const perUser = 6;
const limitEnv = Object.fromEntries(buyingLimitNames.flatMap((name) => {
  const key = name.toUpperCase().replace('-', '_');
  return [[`TICKETRUSH_RATE_LIMIT_${key}_PER_USER_PER_MINUTE`, String(perUser)], [`TICKETRUSH_RATE_LIMIT_${key}_PER_IP_PER_MINUTE`, '100000']];
}));

let t: TestNode & { baseUrl: string };
let admin: ApiClient;
let seq = 0;

beforeAll(async () => {
  t = await startTestNode({ env: { ...limitEnv, TICKETRUSH_ADMIT_SWEEP_MS: '100' } });
  admin = await adminClient(t.node.app);
});
afterAll(async () => t.close());

const minute = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();
const buyer = async () => new ApiClient(t.node.app).signUp(`gated${++seq}`);
const upcoming: ShowOptions = { saleOpensInMs: 10 * minute };

/** What the buyer has: every kind of thing a path may take. A refusal changes none of it. */
async function belongings(api: ApiClient): Promise<Record<string, unknown>> {
  const [holds, orders, waitlist, codes] = await Promise.all([
    api.request('GET', '/api/v1/me/holds'), api.request('GET', '/api/v1/me/orders'), api.request('GET', '/api/v1/me/waitlist'), api.request('GET', '/api/v1/me/codes'),
  ]);
  return {
    holds: (holds.body.holds as { holdId: string }[]).map((h) => h.holdId).sort(),
    orders: (orders.body.orders as { orderId: string; status: string }[]).map((o) => `${o.orderId}:${o.status}`).sort(),
    waitlist: (waitlist.body.entries as { entryId: string; status: string }[]).map((e) => `${e.entryId}:${e.status}`).sort(),
    codes: codes.body,
  };
}

const roomOn = async (activityId: string) => {
  const set = await admin.request('PUT', `/api/v1/admin/activities/${activityId}/waiting-room`, { enabled: true, admitPerMinute: 600, admissionSeconds: 600 });
  expect(set.status).toBe(200);
};
const cancel = async (showId: string) => expect((await admin.request('POST', `/api/v1/admin/shows/${showId}/cancel`, { reason: 'gate test' })).status).toBe(202);
const offline = async (activityId: string) => expect((await admin.request('PATCH', `/api/v1/admin/activities/${activityId}`, { status: 'OFFLINE' })).status).toBe(200);
/** Ends a campaign's sale: its end moved to just now (the window stays valid: it started 10 minutes ago). */
const endSale = async (activityId: string) => {
  expect((await admin.request('PATCH', `/api/v1/admin/activities/${activityId}`, { saleEndsAt: iso(Date.now() + 300) })).status).toBe(200);
  await sleep(400);
};
const block = async (api: ApiClient) => {
  const me = await api.request('GET', '/api/v1/me');
  expect((await admin.request('POST', '/api/v1/admin/blocklist', { username: me.body.username, reason: 'gate test' })).status).toBe(201);
};

const hold = (api: ApiClient, showId: string, seatIds: string[], token?: string) =>
  api.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds }, token === undefined ? {} : { 'x-admission-token': token });

async function ticketed(api: ApiClient, showId: string, seatIds: string[]): Promise<string> {
  const held = await hold(api, showId, seatIds);
  expect(held.status).toBe(201);
  const order = (await api.request('POST', '/api/v1/orders', { holdId: held.body.holdId }, { 'x-idempotency-key': `o${++seq}` })).body;
  expect((await api.request('POST', `/api/v1/orders/${order.orderId}/sandbox-pay`, { outcome: 'SUCCEEDED' })).status).toBe(202);
  await eventually(async () => ((await api.request('GET', `/api/v1/orders/${order.orderId}`)).body.status === 'TICKETED' ? true : undefined));
  return order.orderId as string;
}

async function flashSale(o: { start?: number; maxPerUser?: number } = {}): Promise<string> {
  const created = await admin.request('POST', '/api/v1/admin/flash-sales', {
    title: `Gate flash ${++seq}`, description: 'gate', saleStartsAt: iso(o.start ?? Date.now() - 10 * minute), saleEndsAt: iso(Date.now() + 60 * minute),
    maxPerUser: o.maxPerUser ?? 2, items: [{ itemId: 'TEA', name: 'Tea', priceCents: 1990, originalPriceCents: 5990, stock: 5 }],
  });
  expect(created.status).toBe(201);
  return created.body.flashSaleId as string;
}
const flashOrder = (api: ApiClient, saleId: string, quantity = 1) =>
  api.request('POST', `/api/v1/flash-sales/${saleId}/orders`, { itemId: 'TEA', quantity }, { 'x-idempotency-key': `f${++seq}` });

async function bargain(o: { start?: number } = {}): Promise<string> {
  const created = await admin.request('POST', '/api/v1/admin/bargains', {
    title: `Gate bargain ${++seq}`, description: 'gate', goods: 'kettle', originalPriceCents: 10_000, floorPriceCents: 6_000, cutMinCents: 100, cutMaxCents: 500,
    minCuts: 1, stock: 5, saleStartsAt: iso(o.start ?? Date.now() - 10 * minute), saleEndsAt: iso(Date.now() + 60 * minute),
  });
  expect(created.status).toBe(201);
  return created.body.bargainId as string;
}
/** A bargain order ready to be ordered (one cut by a friend reaches minCuts). */
async function readyBargainOrder(api: ApiClient, bargainId: string): Promise<string> {
  const started = await api.request('POST', `/api/v1/bargains/${bargainId}/start`);
  expect(started.status).toBe(201);
  const friend = await buyer();
  expect((await friend.request('POST', `/api/v1/bargain-orders/${started.body.bargainOrderId}/cuts`)).status).toBe(201);
  return started.body.bargainOrderId as string;
}

async function codePool(o: { start?: number } = {}): Promise<string> {
  const created = await admin.request('POST', '/api/v1/admin/code-pools', { title: `Gate codes ${++seq}`, saleStartsAt: iso(o.start ?? Date.now() - 10 * minute), saleEndsAt: iso(Date.now() + 60 * minute) });
  expect(created.status).toBe(201);
  const poolId = created.body.poolId as string;
  expect((await admin.request('POST', `/api/v1/admin/code-pools/${poolId}/codes`, { codes: ['G1', 'G2', 'G3'] })).status).toBeLessThan(300);
  return poolId;
}

/**
 * One path's scenario for one check: `arrange` sets the check's refusal up (and returns the
 * buyer and the request that must be refused); `settled` is what else must stay as it was.
 */
interface Case {
  readonly api: ApiClient;
  readonly act: () => Promise<Reply>;
  readonly settled?: () => Promise<void>;
}
type Arrange = (check: GateCheck) => Promise<Case>;

/** The refusal each check answers (cancelled-offline: a show is cancelled, a campaign offline). */
const expected = (check: GateCheck, campaign: boolean): { status: number; code: string } => {
  switch (check) {
    case 'blocklist': return { status: 403, code: 'BLOCKED' };
    case 'rate-limit': return { status: 429, code: 'RATE_LIMITED' };
    case 'sale-window': return { status: 422, code: 'SALE_NOT_OPEN' };
    case 'cancelled-offline': return campaign ? { status: 409, code: 'ACTIVITY_OFFLINE' } : { status: 409, code: 'SHOW_CANCELLED' };
    case 'admission': return { status: 403, code: 'ADMISSION_REQUIRED' };
    case 'purchase-cap': return { status: 409, code: 'PURCHASE_LIMIT_REACHED' };
  }
};

/** A show set up for the check: its sale not open, cancelled, its room on, or a cap of one seat. */
async function showFor(check: GateCheck): Promise<string> {
  const showId = await createShow(admin, check === 'sale-window' ? upcoming : check === 'purchase-cap' ? { maxSeatsPerUser: 1 } : {});
  if (check === 'cancelled-offline') await cancel(showId);
  if (check === 'admission') await roomOn(showId);
  return showId;
}

/** The edge's checks are the same for every path: block the buyer first, or spend their per-minute limit. */
async function edge(check: GateCheck, api: ApiClient): Promise<void> {
  if (check === 'blocklist') await block(api);
}

const scenarios: Record<BuyerPath, { campaign: boolean; arrange: Arrange }> = {
  'hold': {
    campaign: false,
    arrange: async (check) => {
      const api = await buyer();
      const showId = await showFor(check);
      await edge(check, api);
      return { api, act: () => hold(api, showId, check === 'purchase-cap' ? ['A-1-1', 'A-1-2'] : ['A-1-1']) };
    },
  },
  'order': {
    campaign: false,
    arrange: async (check) => {
      const api = await buyer();
      const showId = await createShow(admin);
      const held = await hold(api, showId, ['A-1-1']);
      expect(held.status).toBe(201);
      if (check === 'admission') await roomOn(showId);
      await edge(check, api);
      return { api, act: () => api.request('POST', '/api/v1/orders', { holdId: held.body.holdId }, { 'x-idempotency-key': `o${++seq}` }) };
    },
  },
  'exchange': {
    campaign: false,
    arrange: async (check) => {
      const api = await buyer();
      const source = await admin.request('POST', '/api/v1/admin/shows', {
        title: 'Exchange from', venue: 'Hall', city: 'City', startsAt: iso(Date.now() + 10 * 86_400_000), saleStartsAt: iso(Date.now() - minute),
        saleEndsAt: iso(Date.now() + 5 * 86_400_000), exchangeUntilHoursBefore: 24,
        seatMap: { sections: [{ id: 'A', name: 'Stalls', rows: 10, seatsPerRow: 10, priceCents: 5000 }] },
      });
      expect(source.status).toBe(201);
      const orderId = await ticketed(api, source.body.showId as string, ['A-1-1', 'A-1-2']);
      const target = await showFor(check);
      await edge(check, api);
      return {
        api,
        act: () => api.request('POST', `/api/v1/orders/${orderId}/exchange`, { showId: target, seatIds: ['A-2-1', 'A-2-2'] }),
        settled: async () => expect((await api.request('GET', `/api/v1/orders/${orderId}`)).body.status).toBe('TICKETED'),
      };
    },
  },
  'waitlist-join': {
    campaign: false,
    arrange: async (check) => {
      const api = await buyer();
      const showId = await showFor(check);
      await edge(check, api);
      // A cap of one seat: a wait for two is beyond it (checked with the request's other bounds).
      const body = { quantity: check === 'purchase-cap' ? 2 : 1 };
      return { api, act: () => api.request('POST', `/api/v1/shows/${showId}/waitlist`, body) };
    },
  },
  'waitlist-offer': {
    campaign: false,
    arrange: async (check) => {
      // One seat, held by someone else; the buyer waits for it; then the check's condition, then the seat comes back.
      const saleClosesInMs = check === 'sale-window' ? 1_500 : undefined;
      const showId = await createShow(admin, {
        sections: [{ id: 'A', name: 'Stalls', rows: 1, seatsPerRow: check === 'purchase-cap' ? 2 : 1, priceCents: 5000 }],
        ...(saleClosesInMs === undefined ? {} : { saleClosesInMs }), ...(check === 'purchase-cap' ? { maxSeatsPerUser: 1 } : {}),
      });
      const api = await buyer();
      if (check === 'purchase-cap') expect((await hold(api, showId, ['A-1-2'])).status).toBe(201);
      const other = await buyer();
      const taken = await hold(other, showId, ['A-1-1']);
      expect(taken.status).toBe(201);
      const joined = await api.request('POST', `/api/v1/shows/${showId}/waitlist`, { quantity: 1 });
      expect({ status: joined.status, state: joined.body.status }).toEqual({ status: 201, state: 'WAITING' });
      if (check === 'admission') await roomOn(showId);
      if (check === 'sale-window') await sleep(1_600);
      return {
        api,
        // The release is the other buyer's request: it succeeds; what must not happen is an offer.
        act: async () => {
          if (check === 'cancelled-offline') await cancel(showId);
          else expect((await other.request('DELETE', `/api/v1/holds/${taken.body.holdId}`)).status).toBe(200);
          await sleep(300);
          const entry = (await api.request('GET', '/api/v1/me/waitlist')).body.entries[0] as { status: string };
          return { status: entry.status === 'OFFERED' ? 201 : 409, body: { code: entry.status === 'OFFERED' ? 'OFFERED' : 'NOT_OFFERED' }, headers: {} } as unknown as Reply;
        },
      };
    },
  },
  'flash-sale-order': {
    campaign: true,
    arrange: async (check) => {
      const api = await buyer();
      const saleId = await flashSale({ ...(check === 'sale-window' ? { start: Date.now() + 10 * minute } : {}), ...(check === 'purchase-cap' ? { maxPerUser: 1 } : {}) });
      if (check === 'cancelled-offline') await offline(saleId);
      if (check === 'admission') await roomOn(saleId);
      await edge(check, api);
      return { api, act: () => flashOrder(api, saleId, check === 'purchase-cap' ? 2 : 1) };
    },
  },
  'bargain-start': {
    campaign: true,
    arrange: async (check) => {
      const api = await buyer();
      const bargainId = await bargain(check === 'sale-window' ? { start: Date.now() + 10 * minute } : {});
      if (check === 'cancelled-offline') await offline(bargainId);
      await edge(check, api);
      return { api, act: () => api.request('POST', `/api/v1/bargains/${bargainId}/start`) };
    },
  },
  'bargain-cut': {
    campaign: true,
    arrange: async (check) => {
      const owner = await buyer();
      const bargainId = await bargain();
      const started = await owner.request('POST', `/api/v1/bargains/${bargainId}/start`);
      expect(started.status).toBe(201);
      const api = await buyer();
      if (check === 'sale-window') await endSale(bargainId);
      if (check === 'cancelled-offline') await offline(bargainId);
      await edge(check, api);
      return {
        api,
        act: () => api.request('POST', `/api/v1/bargain-orders/${started.body.bargainOrderId}/cuts`),
        settled: async () => expect((await owner.request('GET', `/api/v1/bargain-orders/${started.body.bargainOrderId}`)).body.cuts).toBe(0),
      };
    },
  },
  'bargain-order': {
    campaign: true,
    arrange: async (check) => {
      const api = await buyer();
      const bargainId = await bargain();
      const bargainOrderId = await readyBargainOrder(api, bargainId);
      if (check === 'sale-window') await endSale(bargainId);
      if (check === 'cancelled-offline') await offline(bargainId);
      if (check === 'admission') await roomOn(bargainId);
      await edge(check, api);
      return { api, act: () => api.request('POST', `/api/v1/bargain-orders/${bargainOrderId}/order`, undefined, { 'x-idempotency-key': `b${++seq}` }) };
    },
  },
  'code-pool-grab': {
    campaign: true,
    arrange: async (check) => {
      const api = await buyer();
      const poolId = await codePool(check === 'sale-window' ? { start: Date.now() + 10 * minute } : {});
      if (check === 'cancelled-offline') await offline(poolId);
      if (check === 'admission') await roomOn(poolId);
      await edge(check, api);
      return { api, act: () => api.request('POST', `/api/v1/code-pools/${poolId}/grab`) };
    },
  },
  'queue-join': {
    campaign: false,
    arrange: async (check) => {
      const api = await buyer();
      // A line may form before the sale opens: only an ended sale refuses it.
      const showId = await createShow(admin, check === 'sale-window' ? { saleOpensInMs: -10 * minute, saleClosesInMs: 300 } : {});
      await roomOn(showId);
      if (check === 'sale-window') await sleep(400);
      if (check === 'cancelled-offline') await cancel(showId);
      await edge(check, api);
      return { api, act: () => api.request('POST', `/api/v1/activities/${showId}/queue`) };
    },
  },
};

/** The edge's rate limit: the path's request again and again until refused (a fresh buyer: only they are counted). */
async function untilLimited(act: () => Promise<Reply>): Promise<Reply> {
  let reply = await act();
  for (let i = 0; i < perUser + 2 && reply.status !== 429; i++) reply = await act();
  return reply;
}

describe('the buyer gate: every path × every check (issue 33)', () => {
  it('sheds every path\'s route under load (the first check, on every route that takes inventory)', () => {
    const routes: Record<Exclude<BuyerPath, 'waitlist-offer'>, string> = {
      'hold': '/api/v1/shows/:showId/holds', 'order': '/api/v1/orders', 'exchange': '/api/v1/orders/:orderId/exchange',
      'waitlist-join': '/api/v1/shows/:showId/waitlist', 'flash-sale-order': '/api/v1/flash-sales/:flashSaleId/orders',
      'bargain-start': '/api/v1/bargains/:bargainId/start', 'bargain-cut': '/api/v1/bargain-orders/:bargainOrderId/cuts',
      'bargain-order': '/api/v1/bargain-orders/:bargainOrderId/order', 'code-pool-grab': '/api/v1/code-pools/:poolId/grab',
      'queue-join': '/api/v1/activities/:activityId/queue',
    };
    for (const path of buyerPaths) {
      if (path === 'waitlist-offer') continue;
      expect({ path, shed: shedClassOf('POST', routes[path]) !== null }).toEqual({ path, shed: true });
    }
  });

  it('has a scenario for every path of the table, and every path names its checks in the gate\'s order', () => {
    expect(Object.keys(scenarios).sort()).toEqual([...buyerPaths].sort());
    const order = ['blocklist', 'rate-limit', 'sale-window', 'cancelled-offline', 'admission', 'purchase-cap'];
    for (const path of buyerPaths) {
      const checks = gateTable[path].map((c) => order.indexOf(c));
      expect(checks, path).toEqual([...checks].sort((a, b) => a - b));
    }
  });

  it('lets an admitted buyer through: an exchange into a show whose room is on, and a waitlist join, with the token (Why 2, Why 3)', async () => {
    const api = await buyer();
    const source = await admin.request('POST', '/api/v1/admin/shows', {
      title: 'Exchange from', venue: 'Hall', city: 'City', startsAt: iso(Date.now() + 10 * 86_400_000), saleStartsAt: iso(Date.now() - minute),
      saleEndsAt: iso(Date.now() + 5 * 86_400_000), exchangeUntilHoursBefore: 24,
      seatMap: { sections: [{ id: 'A', name: 'Stalls', rows: 10, seatsPerRow: 10, priceCents: 5000 }] },
    });
    const orderId = await ticketed(api, source.body.showId as string, ['A-1-1']);
    const target = await createShow(admin);
    await roomOn(target);
    const joined = await api.request('POST', `/api/v1/activities/${target}/queue`);
    const token = await eventually(async () => {
      const r = await api.request('GET', `/api/v1/activities/${target}/queue/${joined.body.queueId}`);
      return r.body.state === 'ADMITTED' ? (r.body.admissionToken as string) : undefined;
    }, 10_000, 'admission');
    const swapped = await api.request('POST', `/api/v1/orders/${orderId}/exchange`, { showId: target, seatIds: ['A-3-3'] }, { 'x-admission-token': token });
    expect(swapped.status).toBe(201);
    expect(swapped.body.exchange).toMatchObject({ newShowId: target });
    // Another buyer's token is not this buyer's admission.
    const other = await buyer();
    const waitOther = await other.request('POST', `/api/v1/shows/${target}/waitlist`, { quantity: 1 }, { 'x-admission-token': token });
    expect({ status: waitOther.status, code: waitOther.body.code }).toEqual({ status: 403, code: 'ADMISSION_INVALID' });
    const waited = await api.request('POST', `/api/v1/shows/${target}/waitlist`, { quantity: 1 }, { 'x-admission-token': token });
    // Admitted: joined; while the room is on nothing is offered, even with seats free (the room hands them out).
    expect({ status: waited.status, state: waited.body.status, holdId: waited.body.holdId }).toEqual({ status: 201, state: 'WAITING', holdId: null });
  });

  for (const path of buyerPaths) {
    for (const check of gateTable[path]) {
      it(`${path} × ${check}: refused with its code, nothing taken`, async () => {
        const scenario = scenarios[path];
        const { api, act, settled } = await scenario.arrange(check);
        const before = await belongings(api);
        const reply = check === 'rate-limit' ? await untilLimited(act) : await act();
        const want = path === 'waitlist-offer' ? { status: 409, code: 'NOT_OFFERED' } : expected(check, scenario.campaign);
        expect({ status: reply.status, code: reply.body.code }).toEqual(want);
        if (check !== 'rate-limit') expect(await belongings(api)).toEqual(before);
        if (check !== 'rate-limit') await settled?.();
      });
    }
  }
});

describe('strictly typed bodies (issue 33, Why 10)', () => {
  it('refuses a body value of the wrong JSON type (no "2" for 2, no scalar for a list, no null for a number), nothing held; querystrings keep their conversion', async () => {
    const api = await buyer();
    const showId = await createShow(admin);
    const saleId = await flashSale();
    const cases: ['POST', string, unknown][] = [
      ['POST', `/api/v1/shows/${showId}/holds`, { quantity: '2' }],
      ['POST', `/api/v1/shows/${showId}/holds`, { seatIds: 'A-1-1' }],
      ['POST', `/api/v1/shows/${showId}/holds`, { quantity: 2, holdSeconds: '300' }],
      ['POST', `/api/v1/shows/${showId}/holds`, { quantity: 2, adjacent: 'true' }],
      ['POST', `/api/v1/shows/${showId}/holds`, { quantity: null }],
      ['POST', `/api/v1/shows/${showId}/waitlist`, { quantity: '1' }],
    ];
    for (const [method, url, body] of cases) {
      const reply = await api.request(method, url, body);
      expect({ body, status: reply.status, code: reply.body.code }).toEqual({ body, status: 400, code: 'VALIDATION_FAILED' });
    }
    const flash = await api.request('POST', `/api/v1/flash-sales/${saleId}/orders`, { itemId: 'TEA', quantity: '1' }, { 'x-idempotency-key': `s${++seq}` });
    expect({ status: flash.status, code: flash.body.code }).toEqual({ status: 400, code: 'VALIDATION_FAILED' });
    expect(await belongings(api)).toMatchObject({ holds: [], orders: [], waitlist: [] });
    // The same values, typed: accepted.
    expect((await api.request('POST', `/api/v1/shows/${showId}/holds`, { quantity: 2, adjacent: true, holdSeconds: 300 })).status).toBe(201);
    // A querystring arrives as text: ?limit=5 is still read as 5.
    const listed = await api.request('GET', '/api/v1/me/holds?limit=5');
    expect({ status: listed.status, holds: listed.body.holds.length }).toEqual({ status: 200, holds: 1 });
  });
});
