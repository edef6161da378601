import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composeNode, type Node } from '../../src/compose.js';
import { loadConfig } from '../../src/config.js';
import { adminClient, ApiClient } from '../support/api-client.js';
import { startTestNode, testOnPostgres, type TestNode } from '../support/backend.js';
import { within } from '../support/wait.js';

/**
 * Issue 33, Why 6 / What 4: the per-process caches of campaigns follow an organizer's change made
 * on another process, through the change feed. A code pool's window (cached per process for the
 * grab's gate) follows the 'code-pool.changed' row; a flash sale's details (the read model's show,
 * which the buyer gate reads) follow 'show.changed', now written by campaign edits too. Each case
 * first makes the second process cache the ENDED window, then reopens the sale on the first: the
 * second sells again within a second (before, it refused until restart). PostgreSQL only: it is
 * the multi-process backend.
 */
const minute = 60_000;
const iso = (ms: number): string => new Date(ms).toISOString();

describe.runIf(testOnPostgres)('campaign caches across two processes', () => {
  let a: TestNode & { baseUrl: string };
  let b: Node;
  let bDir: string;
  let admin: ApiClient;
  let seq = 0;

  beforeAll(async () => {
    // No per-minute limits: the checks below retry a grab or an order every 20 ms for up to a second.
    a = await startTestNode({ env: { TICKETRUSH_RATE_LIMITS: 'off' } });
    bDir = mkdtempSync(join(tmpdir(), 'ticketrush-campaign-b-'));
    // The same database and schema (and Redis prefix, if any); a data directory of its own.
    b = await composeNode(loadConfig({ PORT: '0', HOST: '127.0.0.1', TICKETRUSH_DEMO: '0', TICKETRUSH_SCRYPT_COST: '1024', ...a.database.env, TICKETRUSH_RATE_LIMITS: 'off', TICKETRUSH_DATA_DIR: bDir }), { logger: false, warmStore: false });
    admin = await adminClient(a.node.app);
  }, 60_000);
  afterAll(async () => {
    await b?.stop();
    await a?.close();
    if (bDir !== undefined) rmSync(bDir, { recursive: true, force: true });
  });

  /** A buyer signed up on A, talking to B (the signing secret is shared through the database). */
  async function buyerOnB(): Promise<ApiClient> {
    const name = `cc${++seq}${Date.now().toString(36)}`;
    await new ApiClient(a.node.app).signUp(name);
    return new ApiClient(b.app).logIn(name, 'password-123');
  }


  const endSale = (activityId: string, at: number) => admin.request('PATCH', `/api/v1/admin/activities/${activityId}`, { saleEndsAt: iso(at) });

  it('a code pool\'s window changed on A: B refuses once it ended and hands out codes again within 1 s of its reopening', async () => {
    const now = Date.now();
    const created = await admin.request('POST', '/api/v1/admin/code-pools', { title: 'Cross codes', description: 'one each', saleStartsAt: iso(now - minute), saleEndsAt: iso(now + 60 * minute) });
    expect(created.status).toBe(201);
    const poolId = created.body.poolId as string;
    expect((await admin.request('POST', `/api/v1/admin/code-pools/${poolId}/codes`, { codes: ['X1', 'X2', 'X3'] })).body).toMatchObject({ imported: 3 });
    const early = await buyerOnB();
    // B caches the open window with a first grab.
    expect((await early.request('POST', `/api/v1/code-pools/${poolId}/grab`)).status).toBe(201);
    // Ended on A: B refuses (its grab's statement checks the stored window even before its cache hears).
    expect((await endSale(poolId, Date.now() - 1_000)).status).toBe(200);
    const late = await buyerOnB();
    const refused = await late.request('POST', `/api/v1/code-pools/${poolId}/grab`);
    expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 422, code: 'SALE_NOT_OPEN' });
    // Reopened on A: B's cached (ended) window is dropped through the feed, and B sells again.
    expect((await endSale(poolId, Date.now() + 60 * minute)).status).toBe(200);
    const took = await within(1_000, async () => expect((await late.request('POST', `/api/v1/code-pools/${poolId}/grab`)).status).toBe(201));
    console.log(`code pool reopened on A: B grabs again after ${took} ms`);
  });

  it('a flash sale ended on A and reopened: B\'s read model (the buyer gate\'s window) takes each change through the feed', async () => {
    const now = Date.now();
    const created = await admin.request('POST', '/api/v1/admin/flash-sales', {
      title: 'Cross flash', description: '限时秒杀', saleStartsAt: iso(now - minute), saleEndsAt: iso(now + 60 * minute), maxPerUser: 2,
      items: [{ itemId: 'TEA', name: 'Tea set', priceCents: 1990, originalPriceCents: 5990, stock: 5 }],
    });
    expect(created.status).toBe(201);
    const saleId = created.body.flashSaleId as string;
    expect((await endSale(saleId, Date.now() - 1_000)).status).toBe(200);
    const buyer = await buyerOnB();
    // A key per try: a refused try's key is not retried.
    let tries = 0;
    const order = () => buyer.request('POST', `/api/v1/flash-sales/${saleId}/orders`, { itemId: 'TEA', quantity: 1 }, { 'x-idempotency-key': `cc-flash-${++tries}` });
    // B loads the sale's show now, ended: its gate refuses.
    const refused = await order();
    expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 422, code: 'SALE_NOT_OPEN' });
    // A new title and a reopened window on A reach B's read model through 'show.changed'.
    expect((await admin.request('PATCH', `/api/v1/admin/activities/${saleId}`, { title: 'Cross flash, extended', saleEndsAt: iso(Date.now() + 60 * minute) })).status).toBe(200);
    const took = await within(1_000, async () => expect((await order()).status).toBe(201));
    expect((await b.ctx.seatMaps.show(saleId))?.title).toBe('Cross flash, extended');
    console.log(`flash sale reopened on A: B orders again after ${took} ms`);
  });
});
