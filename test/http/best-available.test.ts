import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, ApiClient, createShow } from '../support/api-client.js';
import { startTestNode, type TestNode } from '../support/backend.js';

/**
 * Best-available over HTTP, on every backend (issue 13, item 6): the filters a buyer can give
 * (section, accessible seats, a point to sit near), the orphan rule, and the answer's `adjacent`.
 */
let t: TestNode & { baseUrl: string };
let admin: ApiClient;
let seq = 0;

beforeAll(async () => {
  t = await startTestNode();
  admin = await adminClient(t.node.app);
});
afterAll(async () => t.close());

const buyer = async () => new ApiClient(t.node.app).signUp(`chooser${++seq}`);
const best = (api: ApiClient, showId: string, body: Record<string, unknown>) => api.request('POST', `/api/v1/shows/${showId}/holds`, body);

describe('best-available over HTTP', () => {
  it('gives accessible seats when asked, marks them in the seat map, and refuses when too few are left', async () => {
    const showId = await createShow(admin, {
      sections: [{ id: 'A', name: 'Stalls', rows: 4, seatsPerRow: 6, priceCents: 5000, accessible: [{ row: 4, number: 1 }, { row: 4, number: 2 }, { row: 4, number: 3 }] }],
    });
    const map = await admin.request('GET', `/api/v1/shows/${showId}/seats`);
    const marked = (map.body.seats as { seatId: string; accessible: boolean }[]).filter((s) => s.accessible).map((s) => s.seatId);
    expect(marked.sort()).toEqual(['A-4-1', 'A-4-2', 'A-4-3']);

    const first = await best(await buyer(), showId, { quantity: 2, accessible: 2 });
    expect(first.status).toBe(201);
    // The front rows are nearer, but only row 4 has accessible seats.
    expect(first.body.seatIds.every((id: string) => marked.includes(id))).toBe(true);
    expect(first.body.adjacent).toBe(true);

    // One accessible seat is left: a party needing two is refused, one needing one is served.
    const refused = await best(await buyer(), showId, { quantity: 2, accessible: 2 });
    expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 409, code: 'NOT_ENOUGH_SEATS' });
    const single = await best(await buyer(), showId, { quantity: 2, accessible: 1 });
    expect(single.status).toBe(201);
    expect(single.body.seatIds.filter((id: string) => marked.includes(id))).toHaveLength(1);
  });

  it('never strands a single seat when another choice exists, keeps to the section asked for, and sits near the seat named', async () => {
    const showId = await createShow(admin, {
      sections: [
        { id: 'A', name: 'Stalls', rows: 1, seatsPerRow: 5, priceCents: 5000 },
        { id: 'B', name: 'Circle', rows: 3, seatsPerRow: 8, priceCents: 3000 },
      ],
    });
    // Row A-1 has 5 seats: the centred pairs (2-3, 3-4) would leave a seat alone; the edge pairs do
    // not. The map draws A (5 wide) centred over B (8 wide) at x = 1, so the stage's middle (x = 4)
    // is nearer 4-5 than 1-2.
    const pair = await best(await buyer(), showId, { quantity: 2, section: 'A' });
    expect(pair.status).toBe(201);
    expect(pair.body).toMatchObject({ seatIds: ['A-1-4', 'A-1-5'], adjacent: true });
    // Then 1-3 is a block of three: a pair there strands one seat, but nothing better is left in A.
    const next = await best(await buyer(), showId, { quantity: 2, section: 'A' });
    expect(next.body.seatIds.every((id: string) => id.startsWith('A-1-'))).toBe(true);

    const circle = await best(await buyer(), showId, { quantity: 3, section: 'B' });
    expect(circle.status).toBe(201);
    expect(circle.body.seatIds.every((id: string) => id.startsWith('B-1-'))).toBe(true);
    const back = await best(await buyer(), showId, { quantity: 2, section: 'B', near: { section: 'B', row: 3, number: 8 } });
    expect(back.body).toMatchObject({ seatIds: ['B-3-7', 'B-3-8'], adjacent: true });
  });

  it('ranks seats by their distance to the stage as the show\'s geometry draws it: the stalls\' second row before the balcony\'s first', async () => {
    // The demo show's map: the stalls in front, the balcony behind.
    const showId = await createShow(admin, {
      sections: [
        { id: 'A', name: 'Stalls', rows: 10, seatsPerRow: 20, priceCents: 12800 },
        { id: 'B', name: 'Balcony', rows: 5, seatsPerRow: 16, priceCents: 6800 },
      ],
    });
    const show = await admin.request('GET', `/api/v1/shows/${showId}`);
    expect(show.body.geometry).toEqual({
      cols: 20, rows: 21, stage: { x: 4, y: 0, width: 12 },
      sections: [{ id: 'A', x: 0, y: 2 }, { id: 'B', x: 2, y: 16 }],
    });
    const first = await best(await buyer(), showId, { quantity: 2 });
    expect(first.body.seatIds).toEqual(['A-1-10', 'A-1-11']);
    // The whole front row of the stalls goes: the next pair is the second row's centre.
    const front = Array.from({ length: 20 }, (_, i) => `A-1-${i + 1}`).filter((id) => !first.body.seatIds.includes(id));
    for (let i = 0; i < front.length; i += 6) expect((await (await buyer()).request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: front.slice(i, i + 6) })).status).toBe(201);
    const next = await best(await buyer(), showId, { quantity: 2 });
    expect(next.body.seatIds).toEqual(['A-2-10', 'A-2-11']);
    // Asked for the balcony, the balcony's front centre.
    const balcony = await best(await buyer(), showId, { quantity: 2, section: 'B' });
    expect(balcony.body.seatIds).toEqual(['B-1-8', 'B-1-9']);
  });

  it('says the seats are not together when only scattered seats are left and the buyer allows them; refuses them otherwise', async () => {
    const showId = await createShow(admin, { sections: [{ id: 'A', name: 'Stalls', rows: 2, seatsPerRow: 3, priceCents: 5000 }] });
    const taker = await buyer();
    // Leave one free seat in each row: no pair side by side anywhere.
    expect((await taker.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-1-1', 'A-1-2', 'A-2-2', 'A-2-3'] })).status).toBe(201);
    const together = await best(await buyer(), showId, { quantity: 2 });
    expect({ status: together.status, code: together.body.code }).toEqual({ status: 409, code: 'NOT_ENOUGH_SEATS' });
    const apart = await best(await buyer(), showId, { quantity: 2, adjacent: false });
    expect(apart.status).toBe(201);
    expect(apart.body).toMatchObject({ adjacent: false });
    expect([...apart.body.seatIds].sort()).toEqual(['A-1-3', 'A-2-1']);
  });
});
