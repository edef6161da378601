import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createShow } from '../../src/app/catalog.js';
import { composeNode, type Node } from '../../src/compose.js';
import { loadConfig } from '../../src/config.js';
import { startTestNode, testStore, type TestNode } from '../support/backend.js';
import { eventually } from '../support/wait.js';

/**
 * The unknown-show cache (SeatMapCache: a show id found missing is remembered for a second, so a
 * flood of made-up ids costs the store one read a second) across processes: a show created
 * through A, whose id B had just looked up and found missing, is found by B within that second.
 * (The creating process forgets its own misses at once; no other process hears of the creation.)
 */
let a: TestNode;
let b: Node;
beforeAll(async () => {
  if (testStore !== 'postgres') return;
  a = await startTestNode({ listen: false });
  b = await composeNode(loadConfig({ ...a.database.env, TICKETRUSH_DEMO: '0', PORT: '0' }), { logger: false, webRoot: null });
});
afterAll(async () => {
  await b?.stop();
  await a?.close();
});

describe.skipIf(testStore !== 'postgres')('a show created on another process', () => {
  it('is found by a process that had found its id missing, within the cache\'s second', async () => {
    const showId = a.node.ctx.ids.newId('show');
    expect((await b.app.inject({ method: 'GET', url: `/api/v1/shows/${showId}` })).statusCode).toBe(404);
    const now = Date.now();
    await createShow(a.node.ctx, {
      title: 'Elsewhere', venue: 'Hall', city: 'Town', startsAt: now + 7 * 86_400_000, saleStartsAt: now - 60_000, saleEndsAt: now + 86_400_000,
      maxSeatsPerUser: null, seatMap: { sections: [{ id: 'A', name: 'A', kind: 'SEATED', rows: 2, seatsPerRow: 5, priceCents: 1000, sellBy: 'SEAT', accessible: [] }] },
    }, showId);
    const created = Date.now();
    await eventually(async () => ((await b.app.inject({ method: 'GET', url: `/api/v1/shows/${showId}` })).statusCode === 200 ? true : undefined), 3_000, 'B finds the show');
    expect(Date.now() - created).toBeLessThan(1_500);
  });
});
