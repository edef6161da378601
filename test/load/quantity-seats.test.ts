import { afterAll, beforeAll, expect, it } from 'vitest';
import { adminClient, createShow } from '../support/api-client.js';
import { auditSourceOf, startTestNode, type TestNode } from '../support/backend.js';
import { crowd } from '../support/crowd.js';
import { expectSettledAndConsistent } from '../support/invariants.js';
import { eventually } from '../support/wait.js';

/**
 * A seated section sold by QUANTITY (seed 000's way): buyers hold a count, pay, and get their seats
 * when the tickets are issued, nearest the front-centre and side by side where possible. 30 buyers
 * over real sockets, all paying at once: no seat in two tickets, every ticket names a seat.
 */
let t: TestNode & { baseUrl: string };
let showId: string;

beforeAll(async () => {
  t = await startTestNode();
  showId = await createShow(await adminClient(t.node.app), { sections: [{ id: 'Q', name: 'Balcony', rows: 8, seatsPerRow: 10, priceCents: 3000, sellBy: 'QUANTITY' }] });
}, 60_000);
afterAll(async () => t.close());

it('assigns seats at ticketing: one seat per ticket, none twice, together where possible', async () => {
  const buyers = await crowd(t, 30, 'qty');
  const holds = await Promise.all(buyers.map((b) => b.call('POST', `/api/v1/shows/${showId}/holds`, { section: 'Q', quantity: 2 })));
  for (const h of holds) expect({ status: h.status, lines: h.body.lines }).toEqual({ status: 201, lines: [{ kind: 'UNITS', sectionId: 'Q', quantity: 2 }] });
  const availability = await (await fetch(`${t.baseUrl}/api/v1/shows/${showId}/availability`)).json() as { sections: { id: string; available: number }[] };
  expect(availability.sections.find((s) => s.id === 'Q')?.available).toBe(80 - 60);

  const orders = await Promise.all(buyers.map((b, i) => b.call('POST', '/api/v1/orders', { holdId: holds[i]?.body.holdId }, { 'x-idempotency-key': `qty-${i}` })));
  for (const o of orders) expect(o.status).toBe(201);
  await Promise.all(buyers.map((b, i) => b.call('POST', `/api/v1/orders/${orders[i]?.body.orderId}/sandbox-pay`, { outcome: 'SUCCEEDED' })));
  const ticketed = await Promise.all(buyers.map((b, i) => eventually(async () => {
    const view = await b.call('GET', `/api/v1/orders/${orders[i]?.body.orderId}`);
    return view.body.status === 'TICKETED' ? (view.body.tickets as { seatId: string | null; sectionId: string }[]) : undefined;
  }, 20_000, 'tickets issued')));
  const seats = ticketed.flat().map((k) => k.seatId);
  expect(seats.every((s) => typeof s === 'string' && s.startsWith('Q-'))).toBe(true);
  expect(new Set(seats).size).toBe(60);
  const together = ticketed.filter(([a, b]) => {
    const [, ra, na] = (a?.seatId ?? '').split('-').map(Number);
    const [, rb, nb] = (b?.seatId ?? '').split('-').map(Number);
    return ra === rb && Math.abs((na ?? 0) - (nb ?? 0)) === 1;
  });
  expect(together.length).toBeGreaterThanOrEqual(27);
  // Nearest the front: the 60 seats are the front rows (80 seats in 8 rows of 10).
  expect(Math.max(...seats.map((s) => Number((s as string).split('-')[1])))).toBeLessThanOrEqual(7);
  const seatMap = await (await fetch(`${t.baseUrl}/api/v1/shows/${showId}/seats`)).json() as { seats: { seatId: string; status: string }[] };
  expect(seatMap.seats.filter((s) => s.status === 'SOLD').map((s) => s.seatId).sort()).toEqual([...seats].sort());
  await expectSettledAndConsistent(auditSourceOf(t), showId, 80);
}, 90_000);
