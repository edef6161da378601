import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, ApiClient, createShow } from '../support/api-client.js';
import { startTestNode, type TestNode } from '../support/backend.js';
import { postCallback } from '../support/payments.js';
import { eventually } from '../support/wait.js';

let t: TestNode & { baseUrl: string };
let admin: ApiClient;
let seq = 0;
const tag = `d${Date.now().toString(36)}`;

beforeAll(async () => {
  t = await startTestNode();
  admin = await adminClient(t.node.app);
});
afterAll(async () => t.close());

async function steward(): Promise<ApiClient> {
  const username = `${tag}steward${++seq}`;
  await new ApiClient(t.node.app).signUp(username);
  await admin.request('PUT', `/api/v1/admin/users/${username}/role`, { role: 'STAFF' });
  return new ApiClient(t.node.app).logIn(username, 'password-123');
}

interface TicketBody { ticketId: string; code: string; qr: string; seatId: string | null; sectionId: string; orderId: string }

/** Buys and tickets what `hold` asks for as `username`: the tickets. */
async function buy(username: string, showId: string, hold: Record<string, unknown>): Promise<TicketBody[]> {
  const buyer = await new ApiClient(t.node.app).signUp(username);
  const held = await buyer.request('POST', `/api/v1/shows/${showId}/holds`, hold);
  const order = (await buyer.request('POST', '/api/v1/orders', { holdId: held.body.holdId }, { 'x-idempotency-key': `k-${++seq}` })).body;
  await postCallback(t.node.app, t.node.config.secrets.payment, { paymentId: order.paymentId, orderId: order.orderId, status: 'SUCCEEDED', amountCents: order.amountCents });
  return eventually(async () => {
    const o = (await buyer.request('GET', `/api/v1/orders/${order.orderId}`)).body;
    return o.status === 'TICKETED' ? (o.tickets as TicketBody[]) : undefined;
  });
}

const sections = [
  { id: 'A', name: 'Stalls', rows: 5, seatsPerRow: 10, priceCents: 5000 },
  { id: 'G', name: 'Standing', kind: 'GENERAL_ADMISSION' as const, capacity: 100, priceCents: 3000 },
];

describe('door desk: the live count and the attendee search', () => {
  it('counts tickets and check-ins of a show, seats and general admission alike, for staff and admins only', async () => {
    const showId = await createShow(admin, { sections });
    const door = await steward();
    const stats = () => door.request('GET', `/api/v1/shows/${showId}/checkin-stats`).then((r) => r.body);
    expect(await stats()).toEqual({ showId, tickets: 0, checkedIn: 0 });
    const seats = await buy(`${tag}ann${++seq}`, showId, { seatIds: ['A-1-1', 'A-1-2'] });
    const places = await buy(`${tag}ben${++seq}`, showId, { section: 'G', quantity: 3 });
    expect(await stats()).toEqual({ showId, tickets: 5, checkedIn: 0 });
    await door.request('POST', '/api/v1/checkin', { qr: seats[0]?.qr });
    await door.request('POST', '/api/v1/checkin', { code: places[0]?.code, showId });
    await door.request('POST', '/api/v1/checkin', { code: places[0]?.code, showId }); // refused: counted once
    expect(await stats()).toEqual({ showId, tickets: 5, checkedIn: 2 });
    expect((await admin.request('GET', `/api/v1/shows/${showId}/checkin-stats`)).status).toBe(200);
    const buyer = await new ApiClient(t.node.app).signUp(`${tag}nosy${++seq}`);
    expect((await buyer.request('GET', `/api/v1/shows/${showId}/checkin-stats`)).status).toBe(403);
    expect((await door.request('GET', '/api/v1/shows/no_such_show/checkin-stats')).body.code).toBe('SHOW_NOT_FOUND');
  });

  it('finds attendees by the start of their name or a ticket\'s exact code, paged, with seats, order and check-in state', async () => {
    const showId = await createShow(admin, { sections });
    const carol = `${tag}Carol${++seq}`;
    const carla = `${tag}carla${++seq}`;
    const carolTickets = await buy(carol, showId, { seatIds: ['A-2-3', 'A-2-4'] });
    const carlaTickets = await buy(carla, showId, { section: 'G', quantity: 1 });
    const dan = `${tag}dan${++seq}`;
    await buy(dan, showId, { seatIds: ['A-3-1'] });
    const door = await steward();
    await door.request('POST', '/api/v1/checkin', { qr: carolTickets[0]?.qr });
    const search = (query: string) => door.request('GET', `/api/v1/admin/shows/${showId}/attendees?${query}`);

    const byName = await search(`q=${encodeURIComponent(`${tag}CAR`)}`);
    expect(byName.status).toBe(200);
    expect(byName.body.attendees.map((a: { username: string; seatId: string | null; checkedIn: boolean }) => [a.username, a.seatId, a.checkedIn]))
      .toEqual([[carla, null, false], [carol, 'A-2-3', true], [carol, 'A-2-4', false]]);
    expect(byName.body.attendees[0]).toMatchObject({ sectionId: 'G', orderId: carlaTickets[0]?.orderId, code: carlaTickets[0]?.code, status: 'VALID', usedAt: null });

    const byCode = await search(`q=${carolTickets[1]?.code.toLowerCase()}`);
    expect(byCode.body.attendees.map((a: { ticketId: string }) => a.ticketId)).toEqual([carolTickets[1]?.ticketId]);

    const pages = await Promise.all([0, 1, 2, 3].map((offset) => search(`q=${tag}&limit=1&offset=${offset}`)));
    expect(pages.map((p) => p.body.attendees[0]?.username ?? null)).toEqual([carla, carol, carol, dan]);
    expect((await search('')).body.attendees).toHaveLength(4);

    // The organizer sees the same list; bounds are 400s; buyers and strangers are refused.
    expect((await admin.request('GET', `/api/v1/admin/shows/${showId}/attendees`)).body.attendees).toHaveLength(4);
    for (const bad of ['limit=0', 'limit=101', 'offset=-1', `q=${'x'.repeat(65)}`, 'other=1']) {
      expect({ bad, code: (await search(bad)).body.code }).toEqual({ bad, code: 'VALIDATION_FAILED' });
    }
    const buyer = await new ApiClient(t.node.app).signUp(`${tag}peek${++seq}`);
    expect((await buyer.request('GET', `/api/v1/admin/shows/${showId}/attendees`)).status).toBe(403);
    expect((await new ApiClient(t.node.app).request('GET', `/api/v1/admin/shows/${showId}/attendees`)).status).toBe(401);
    expect((await door.request('GET', '/api/v1/admin/shows/no_such_show/attendees')).body.code).toBe('SHOW_NOT_FOUND');
  });
});
