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
