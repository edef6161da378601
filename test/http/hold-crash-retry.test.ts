import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Store } from '../../src/ports/engine/index.js';
import { adminClient, ApiClient, createShow } from '../support/api-client.js';
import { startTestNode, type TestNode } from '../support/backend.js';

/**
 * Issue 33, Why 9 / What 7: a keyed hold request whose claim committed and whose process died
 * before it completed the key left an ACTIVE hold and an IN_FLIGHT key. The buyer's retry with the
 * same key, taking the key over after the in-flight bound, was refused NOT_ENOUGH_SEATS by the
 * buyer's own orphan hold. Now the retry finds the hold the dead request made (its id follows from
 * the key's record) and answers with it at once. The death is played by the key's completion
 * failing once (the hold is committed, the key stays IN_FLIGHT, the answer is lost); the clock is
 * moved past the bound instead of waiting. Runs on every store (SQLite, PostgreSQL).
 */
let t: TestNode & { baseUrl: string };
let clockOffsetMs = 0;

beforeAll(async () => {
  t = await startTestNode({ env: { TICKETRUSH_RATE_LIMITS: 'off' }, clock: { now: () => Date.now() + clockOffsetMs } });
});
afterAll(async () => t.close());

it('a retry after the first request died with its process answers the hold that request placed, and takes nothing more', async () => {
  const admin = await adminClient(t.node.app);
  const showId = await createShow(admin, { sections: [{ id: 'GA', name: 'Standing', kind: 'GENERAL_ADMISSION', capacity: 3, priceCents: 500 }, { id: 'A', name: 'Stalls', rows: 1, seatsPerRow: 4, priceCents: 900 }] });
  const buyer = await new ApiClient(t.node.app).signUp('crash-retry-1');
  const hold = (body: object, key: string) => buyer.request('POST', `/api/v1/shows/${showId}/holds`, body, { 'x-idempotency-key': key });

  const store = t.node.ctx.store as { completeKey: Store['completeKey'] };
  const complete = store.completeKey;
  for (const [key, body] of [['crash-ga', { section: 'GA', quantity: 3 }], ['crash-seats', { seatIds: ['A-1-2', 'A-1-3'] }]] as const) {
    // The "process" dies between the committed claim and the key's completion.
    store.completeKey = async () => {
      throw new Error('killed');
    };
    let died: Awaited<ReturnType<typeof hold>> | undefined;
    try {
      died = await hold(body, key);
    } finally {
      store.completeKey = complete;
    }
    expect(died?.status).toBe(500);
    // Still in flight within the bound: the retry is told so.
    expect((await hold(body, key)).body.code).toBe('IDEMPOTENCY_REQUEST_IN_FLIGHT');
    clockOffsetMs += 61_000;
    const retried = await hold(body, key);
    expect({ status: retried.status, replayed: retried.headers['idempotent-replayed'], holdStatus: retried.body.status }).toEqual({ status: 201, replayed: 'true', holdStatus: 'ACTIVE' });
    // The same answer from then on.
    const again = await hold(body, key);
    expect({ status: again.status, holdId: again.body.holdId }).toEqual({ status: 201, holdId: retried.body.holdId });
    if ('seatIds' in body) expect(retried.body.adjacent).toBe(true);
  }
  // One hold per key, and the stock taken once.
  const mine = (await buyer.request('GET', '/api/v1/me/holds')).body.holds as { showId: string }[];
  expect(mine.filter((h) => h.showId === showId)).toHaveLength(2);
  const left = (await t.node.ctx.store.availability(showId))?.find((s) => s.sectionId === 'GA')?.available;
  expect(left).toBe(0);
});
