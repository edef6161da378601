import { afterAll, beforeAll, expect, it } from 'vitest';
import { adminClient, ApiClient, createShow } from '../support/api-client.js';
import { startTestNode, type TestNode } from '../support/backend.js';

let t: TestNode & { baseUrl: string };
let admin: ApiClient;

beforeAll(async () => {
  t = await startTestNode();
  admin = await adminClient(t.node.app);
});
afterAll(async () => t.close());

const hour = 3_600_000;
const day = 24 * hour;

it('keeps the catalog order across pages: on sale first, then upcoming, then ended, each in time order', async () => {
  // Created so that an order by sale start (or by creation) puts the ended shows first.
  const ids = {
    endedLongAgo: await createShow(admin, { saleOpensInMs: -9 * day, saleClosesInMs: -5 * day }),
    endedLately: await createShow(admin, { saleOpensInMs: -8 * day, saleClosesInMs: -1 * day }),
    onSaleClosingLater: await createShow(admin, { saleOpensInMs: -7 * day, saleClosesInMs: 3 * day }),
    onSaleClosingSoon: await createShow(admin, { saleOpensInMs: -hour, saleClosesInMs: 2 * hour }),
    upcomingLater: await createShow(admin, { saleOpensInMs: 2 * day, saleClosesInMs: 3 * day }),
    upcomingSoon: await createShow(admin, { saleOpensInMs: hour, saleClosesInMs: 3 * day }),
  };
  const names = new Map(Object.entries(ids).map(([name, id]) => [id, name]));
  const pages: { name: string | undefined; status: string }[][] = [];
  for (let offset = 0; offset < 8; offset += 2) {
    const reply = await new ApiClient(t.node.app).request('GET', `/api/v1/shows?limit=2&offset=${offset}`);
    expect(reply.status).toBe(200);
    pages.push((reply.body.shows as { showId: string; status: string }[]).map((s) => ({ name: names.get(s.showId), status: s.status })));
  }
  expect(pages).toEqual([
    [{ name: 'onSaleClosingSoon', status: 'ON_SALE' }, { name: 'onSaleClosingLater', status: 'ON_SALE' }],
    [{ name: 'upcomingSoon', status: 'UPCOMING' }, { name: 'upcomingLater', status: 'UPCOMING' }],
    [{ name: 'endedLately', status: 'ENDED' }, { name: 'endedLongAgo', status: 'ENDED' }],
    [],
  ]);
});

// Issue 35 items 2 and 14: the activity catalog says what GET /shows and the home page say.
it('GET /activities calls a cancelled show CANCELLED with its reason, and a show with nothing left SOLD_OUT; cancelling is audited', async () => {
  const cancelled = await createShow(admin, { sections: [{ id: 'A', name: 'Stalls', rows: 1, seatsPerRow: 2, priceCents: 5000 }] });
  const soldOut = await createShow(admin, { sections: [{ id: 'A', name: 'Stalls', rows: 1, seatsPerRow: 2, priceCents: 5000 }] });
  const buyer = await new ApiClient(t.node.app).signUp(`lister${Date.now()}`);
  expect((await buyer.request('POST', `/api/v1/shows/${soldOut}/holds`, { seatIds: ['A-1-1', 'A-1-2'] })).status).toBe(201);
  expect((await admin.request('POST', `/api/v1/admin/shows/${cancelled}/cancel`, { reason: 'The band is ill' })).status).toBe(202);

  const shows = (await buyer.request('GET', '/api/v1/shows?limit=100')).body.shows as { showId: string; cancelled: boolean; cancelReason: string | null; available: number | null }[];
  expect(shows.find((s) => s.showId === cancelled)).toMatchObject({ cancelled: true, cancelReason: 'The band is ill' });
  expect(shows.find((s) => s.showId === soldOut)).toMatchObject({ cancelled: false, available: 0 });
  const activities = (await buyer.request('GET', '/api/v1/activities?limit=100')).body.activities as { activityId: string }[];
  expect(activities.find((a) => a.activityId === cancelled)).toMatchObject({ status: 'CANCELLED', cancelReason: 'The band is ill', secondsToEnd: 0 });
  expect(activities.find((a) => a.activityId === soldOut)).toMatchObject({ status: 'SOLD_OUT', cancelReason: null });
  expect((await buyer.request('GET', `/api/v1/activities/${cancelled}`)).body).toMatchObject({ status: 'CANCELLED', cancelReason: 'The band is ill' });
  expect((await buyer.request('GET', `/api/v1/activities/${soldOut}`)).body).toMatchObject({ status: 'SOLD_OUT' });

  // One entry, by the admin who cancelled, with the reason.
  const audit = await admin.request('GET', `/api/v1/admin/audit-log?entityId=${cancelled}`);
  const entries = (audit.body.entries as { action: string }[]).filter((e) => e.action === 'show.cancelled');
  expect(entries).toHaveLength(1);
  expect(entries[0]).toMatchObject({ entityType: 'show', showId: cancelled, actorRole: 'ADMIN', after: { cancelled: true, reason: 'The band is ill' } });
});
