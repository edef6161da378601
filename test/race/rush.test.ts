import { afterAll, beforeAll, expect, it } from 'vitest';
import { adminClient, createShow } from '../support/api-client.js';
import { auditSourceOf, startTestNode, type TestNode } from '../support/backend.js';
import { HttpBuyer } from '../support/http-buyer.js';
import { expectSeatMapMatchesStore, expectSettledAndConsistent } from '../support/invariants.js';
import { sleep } from '../support/wait.js';

/**
 * 300 buyers race for a 100-seat show over real HTTP. Each holds 1-4 random seats and then
 * behaves like a real crowd: most order and pay, some pay twice, some let the hold expire and pay
 * late, some pay with a failing card, some release. Whatever the interleaving, no seat is sold twice.
 */
const buyersCount = 300;
const rows = 10;
const seatsPerRow = 10;
const capacity = rows * seatsPerRow;

let t: TestNode & { baseUrl: string };
let showId: string;
let buyers: HttpBuyer[];

beforeAll(async () => {
  t = await startTestNode({ env: { TICKETRUSH_SANDBOX_DUPLICATE_RATE: '0.5', TICKETRUSH_RECONCILE_MS: '500', TICKETRUSH_RECONCILE_AFTER_MS: '1000' } });
  showId = await createShow(await adminClient(t.node.app), { sections: [{ id: 'A', name: 'Floor', rows, seatsPerRow, priceCents: 2500 }] });
  buyers = [];
  for (let i = 0; i < buyersCount; i += 50) {
    buyers.push(...(await Promise.all(Array.from({ length: 50 }, (_, j) => new HttpBuyer(t.baseUrl, `racer${i + j}`).signUp()))));
  }
}, 120_000);
afterAll(async () => t.close());

type Behaviour = 'pay' | 'pay-twice' | 'expire-then-pay' | 'fail' | 'release' | 'abandon';
const behaviours: Behaviour[] = ['pay', 'pay', 'pay', 'pay-twice', 'expire-then-pay', 'fail', 'release', 'abandon'];

function randomSeats(): string[] {
  const count = 1 + Math.floor(Math.random() * 4);
  const seats = new Set<string>();
  while (seats.size < count) seats.add(`A-${1 + Math.floor(Math.random() * rows)}-${1 + Math.floor(Math.random() * seatsPerRow)}`);
  return [...seats];
}

async function shop(buyer: HttpBuyer, index: number): Promise<string> {
  const behaviour = behaviours[index % behaviours.length] as Behaviour;
  const holdSeconds = behaviour === 'expire-then-pay' || behaviour === 'abandon' ? 1 : 60;
  const hold = await buyer.call('POST', `/api/v1/shows/${showId}/holds`, { seatIds: randomSeats(), holdSeconds });
  if (hold.status !== 201) {
    // A rush on PostgreSQL may also answer 503 BUSY (a lock wait past its bound): a refusal to
    // wait, never a 500, and nothing was taken.
    if (hold.status === 503) {
      expect(hold.body.code).toBe('BUSY');
      return 'busy';
    }
    expect({ status: hold.status, code: hold.body.code }).toEqual({ status: 409, code: 'SEAT_UNAVAILABLE' });
    return 'lost-the-race';
  }
  if (behaviour === 'release') {
    expect((await buyer.call('DELETE', `/api/v1/holds/${hold.body.holdId}`)).status).toBe(200);
    return behaviour;
  }
  const order = await buyer.call('POST', '/api/v1/orders', { holdId: hold.body.holdId }, { 'x-idempotency-key': `race-${index}` });
  if (order.status !== 201) {
    // Only a one-second hold may lapse before its order: anything else is a defect, not a lost race.
    expect({ status: order.status, code: order.body.code, holdSeconds }).toEqual({ status: 409, code: 'HOLD_EXPIRED', holdSeconds: 1 });
    return 'hold-lapsed';
  }
  if (behaviour === 'abandon') return behaviour;
  if (behaviour === 'expire-then-pay') {
    await sleep(1_600);
    // We refuse the lapsed hold's order; the card holder pays at the provider anyway, late.
    const refused = await buyer.call('POST', `/api/v1/orders/${order.body.orderId}/sandbox-pay`, {});
    expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 409, code: 'HOLD_EXPIRED' });
    await t.node.sandbox?.simulate(order.body.paymentId as string, 'SUCCEEDED');
    return behaviour;
  }
  const outcome = behaviour === 'fail' ? 'FAILED' : 'SUCCEEDED';
  const pay = () => buyer.call('POST', `/api/v1/orders/${order.body.orderId}/sandbox-pay`, { outcome });
  const payments = behaviour === 'pay-twice' ? await Promise.all([pay(), pay()]) : [await pay()];
  for (const p of payments) expect(p.status).toBe(202);
  return behaviour;
}

it('never sells a seat twice, and every paid order ends TICKETED or refunded', async () => {
  const outcomes = await Promise.all(buyers.map((b, i) => shop(b, i)));
  expect(outcomes.filter((o) => o === 'lost-the-race').length).toBeGreaterThan(0);

  const counts = await expectSettledAndConsistent(auditSourceOf(t), showId, capacity);
  expect(counts.SOLD ?? 0).toBeGreaterThan(0);
  await expectSeatMapMatchesStore(t.baseUrl, auditSourceOf(t), showId);
}, 120_000);
