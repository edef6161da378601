import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, ApiClient, createShow } from '../support/api-client.js';
import { startTestNode, type TestNode } from '../support/backend.js';
import { HttpBuyer } from '../support/http-buyer.js';

/**
 * Issue 24 item 5: POST /shows/{id}/holds takes X-Idempotency-Key with the orders' semantics. The
 * same key from the same buyer answers the same hold (201, idempotent-replayed: true), never a
 * second one; another body with the key is 422 IDEMPOTENCY_KEY_REUSED; a concurrent duplicate is
 * 409 IDEMPOTENCY_REQUEST_IN_FLIGHT or the same hold. The race runs over real sockets.
 */
let t: TestNode & { baseUrl: string };
let admin: ApiClient;
let showId: string;

beforeAll(async () => {
  t = await startTestNode({ env: { TICKETRUSH_RATE_LIMITS: 'off' } });
  admin = await adminClient(t.node.app);
  showId = await createShow(admin, {
    sections: [{ id: 'A', name: 'Stalls', rows: 5, seatsPerRow: 10, priceCents: 100 }, { id: 'GA', name: 'Standing', kind: 'GENERAL_ADMISSION', capacity: 100, priceCents: 100 }],
    maxSeatsPerUser: 50,
  });
});
afterAll(async () => t.close());

/** What the store says is left of the GA section (not a cache). */
const gaLeft = async (): Promise<number> => {
  const sections = (await t.node.ctx.store.availability(showId)) ?? [];
  return sections.find((s) => s.sectionId === 'GA')?.available ?? Number.NaN;
};

describe('a hold with X-Idempotency-Key', () => {
  it('answers a retry with the same hold, marked replayed, and takes the seats once', async () => {
    const buyer = await new ApiClient(t.node.app).signUp('keyed-1');
    const first = await buyer.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-1-1', 'A-1-2'] }, { 'x-idempotency-key': 'hold-1' });
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await buyer.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-1-1', 'A-1-2'] }, { 'x-idempotency-key': 'hold-1' });
    expect({ status: again.status, holdId: again.body.holdId, replayed: again.headers['idempotent-replayed'] }).toEqual({ status: 201, holdId: first.body.holdId, replayed: 'true' });
    expect((await buyer.request('GET', '/api/v1/me/holds')).body.holds).toHaveLength(1);
    // Answered as the hold is now: released, it says so.
    await buyer.request('DELETE', `/api/v1/holds/${first.body.holdId}`);
    const later = await buyer.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-1-1', 'A-1-2'] }, { 'x-idempotency-key': 'hold-1' });
    expect({ status: later.status, holdId: later.body.holdId, holdStatus: later.body.status }).toEqual({ status: 201, holdId: first.body.holdId, holdStatus: 'RELEASED' });
  });

  it('refuses the same key with another body (422 IDEMPOTENCY_KEY_REUSED), and scopes keys per buyer', async () => {
    const buyer = await new ApiClient(t.node.app).signUp('keyed-2');
    expect((await buyer.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-2-1'] }, { 'x-idempotency-key': 'hold-2' })).status).toBe(201);
    const reused = await buyer.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-2-2'] }, { 'x-idempotency-key': 'hold-2' });
    expect({ status: reused.status, code: reused.body.code }).toEqual({ status: 422, code: 'IDEMPOTENCY_KEY_REUSED' });
    const other = await new ApiClient(t.node.app).signUp('keyed-3');
    const theirs = await other.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-2-2'] }, { 'x-idempotency-key': 'hold-2' });
    expect({ status: theirs.status, replayed: theirs.headers['idempotent-replayed'] }).toEqual({ status: 201, replayed: undefined });
  });

  it('frees the key when the claim is refused, so a retry may still succeed', async () => {
    const taker = await new ApiClient(t.node.app).signUp('keyed-4');
    const waiter = await new ApiClient(t.node.app).signUp('keyed-5');
    const taken = await taker.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-3-1'] });
    const refused = await waiter.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-3-1'] }, { 'x-idempotency-key': 'hold-5' });
    expect(refused.body.code).toBe('SEAT_UNAVAILABLE');
    await taker.request('DELETE', `/api/v1/holds/${taken.body.holdId}`);
    expect((await waiter.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-3-1'] }, { 'x-idempotency-key': 'hold-5' })).status).toBe(201);
  });

  it('validates the key', async () => {
    const buyer = await new ApiClient(t.node.app).signUp('keyed-6');
    expect((await buyer.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-4-1'] }, { 'x-idempotency-key': 'bad key!' })).status).toBe(400);
    expect((await buyer.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-4-1'] }, { 'x-idempotency-key': 'k'.repeat(129) })).status).toBe(400);
  });
});

it('makes exactly one hold of 50 concurrent identical requests over real sockets, taking the stock once', async () => {
  const buyer = await new HttpBuyer(t.baseUrl, 'keyed-racer').signUp();
  const before = await gaLeft();
  const replies = await Promise.all(Array.from({ length: 50 }, () =>
    buyer.call('POST', `/api/v1/shows/${showId}/holds`, { section: 'GA', quantity: 2 }, { 'x-idempotency-key': 'race-1' })));
  const created = replies.filter((r) => r.status === 201);
  const others = replies.filter((r) => r.status !== 201);
  expect(created.length).toBeGreaterThanOrEqual(1);
  expect(new Set(created.map((r) => r.body.holdId)).size).toBe(1);
  expect(new Set(others.map((r) => `${r.status} ${r.body.code}`))).toSatisfy((codes: Set<string>) => [...codes].every((c) => c === '409 IDEMPOTENCY_REQUEST_IN_FLIGHT'));
  expect((await buyer.call('GET', '/api/v1/me/holds')).body.holds).toHaveLength(1);
  expect(await gaLeft()).toBe(before - 2);
  // Once settled, every retry is the same hold.
  const retry = await buyer.call('POST', `/api/v1/shows/${showId}/holds`, { section: 'GA', quantity: 2 }, { 'x-idempotency-key': 'race-1' });
  expect({ status: retry.status, holdId: retry.body.holdId }).toEqual({ status: 201, holdId: created[0]?.body.holdId });
}, 30_000);
