import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { SeatMapCache } from '../../src/app/seat-map-cache.js';
import { saleStats } from '../../src/app/sale-stats.js';
import { adminClient, ApiClient, createShow } from '../support/api-client.js';
import { startTestNode, type TestNode } from '../support/backend.js';
import { postCallback } from '../support/payments.js';
import { eventually } from '../support/wait.js';

let t: TestNode;
let admin: ApiClient;
let seq = 0;
const buyer = async () => new ApiClient(t.node.app).signUp(`org${++seq}`);
const day = 86_400_000;

beforeAll(async () => {
  t = await startTestNode({ listen: false });
  admin = await adminClient(t.node.app);
});
afterAll(async () => t.close());

/** Holds `body` for a new buyer and pays for it, until the order is TICKETED. */
async function buy(showId: string, body: object): Promise<void> {
  const api = await buyer();
  const hold = await api.request('POST', `/api/v1/shows/${showId}/holds`, body);
  expect(hold.status, JSON.stringify(hold.body)).toBe(201);
  const order = (await api.request('POST', '/api/v1/orders', { holdId: hold.body.holdId }, { 'x-idempotency-key': `k-${++seq}` })).body;
  await postCallback(t.node.app, t.node.config.secrets.payment, { paymentId: order.paymentId, orderId: order.orderId, status: 'SUCCEEDED', amountCents: order.amountCents });
  await eventually(async () => ((await api.request('GET', `/api/v1/orders/${order.orderId}`)).body.status === 'TICKETED' ? true : undefined));
}

const mixed = [
  { id: 'A', name: 'Stalls', rows: 2, seatsPerRow: 5, priceCents: 5000 },
  { id: 'Q', name: 'Circle', rows: 2, seatsPerRow: 5, priceCents: 3000, sellBy: 'QUANTITY' as const },
  { id: 'GA', name: 'Standing', kind: 'GENERAL_ADMISSION' as const, capacity: 50, priceCents: 9900 },
];

describe('organizer sale figures count every kind of section (issue 20, defect 2)', () => {
  it('3 Standing places paid: sold 3 and their money, per section and in total; held places and seats apart', async () => {
    const showId = await createShow(admin, { sections: mixed });
    await buy(showId, { section: 'GA', quantity: 3 });
    await buy(showId, { section: 'Q', quantity: 2 });
    await buy(showId, { seatIds: ['A-1-1'] });
    // Held, not paid: one place and one seat.
    await (await buyer()).request('POST', `/api/v1/shows/${showId}/holds`, { section: 'GA', quantity: 1 });
    await (await buyer()).request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-2-1'] });

    const stats = await admin.request('GET', `/api/v1/admin/shows/${showId}/stats`);
    expect(stats.status).toBe(200);
    const { sections, ...total } = stats.body;
    expect(sections).toEqual([
      { id: 'A', name: 'Stalls', kind: 'SEATED', counted: false, priceCents: 5000, capacity: 10, sold: 1, held: 1, available: 8, refundPending: 0, moneyTakenCents: 5000 },
      { id: 'Q', name: 'Circle', kind: 'SEATED', counted: true, priceCents: 3000, capacity: 10, sold: 2, held: 0, available: 8, refundPending: 0, moneyTakenCents: 6000 },
      { id: 'GA', name: 'Standing', kind: 'GENERAL_ADMISSION', counted: true, priceCents: 9900, capacity: 50, sold: 3, held: 1, available: 46, refundPending: 0, moneyTakenCents: 29700 },
    ]);
    expect(total).toMatchObject({ capacity: 70, sold: 6, held: 2, available: 62, moneyTakenCents: 40700, currency: 'CNY' });

    // The figures survive a reload of the read model: the sold counter is stored, not remembered.
    const fresh = new SeatMapCache(t.node.ctx.store, () => Date.now());
    const reloaded = await saleStats({ ...t.node.ctx, seatMaps: fresh }, showId);
    expect(reloaded.sections.map((s) => [s.id, s.sold, s.held, s.available])).toEqual([['A', 1, 1, 8], ['Q', 2, 0, 8], ['GA', 3, 1, 46]]);
  });
});

describe('show details (description, picture, currency)', () => {
  it('are stored and shown; the currency defaults to TICKETRUSH_CURRENCY and is the payment\'s', async () => {
    const made = await admin.request('POST', '/api/v1/admin/shows', {
      title: 'Jazz', description: 'An evening of standards.', imageUrl: 'https://example.org/jazz.jpg', currency: 'EUR', venue: 'Club', city: 'Paris',
      startsAt: new Date(Date.now() + 10 * day).toISOString(), saleStartsAt: new Date(Date.now() - 60_000).toISOString(), saleEndsAt: new Date(Date.now() + 5 * day).toISOString(),
      seatMap: { sections: [{ id: 'GA', name: 'Floor', kind: 'GENERAL_ADMISSION', capacity: 10, priceCents: 2500 }] },
    });
    expect(made.status).toBe(201);
    const show = (await admin.request('GET', `/api/v1/shows/${made.body.showId}`)).body;
    expect(show).toMatchObject({ description: 'An evening of standards.', imageUrl: 'https://example.org/jazz.jpg', currency: 'EUR' });
    expect((await admin.request('GET', `/api/v1/admin/shows/${made.body.showId}/stats`)).body.currency).toBe('EUR');
    const plain = (await admin.request('GET', `/api/v1/shows/${await createShow(admin)}`)).body;
    expect(plain).toMatchObject({ description: '', imageUrl: null, currency: 'CNY' });
    const listed = (await admin.request('GET', '/api/v1/shows?limit=100')).body.shows.find((s: { showId: string }) => s.showId === made.body.showId);
    expect(listed).toMatchObject({ currency: 'EUR', available: 10 });
  });

  it('TICKETRUSH_CURRENCY is checked at start: any ISO 4217 code, nothing else', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tr-currency-'));
    try {
      expect(loadConfig({ TICKETRUSH_DATA_DIR: dir }).currency).toBe('CNY');
      expect(loadConfig({ TICKETRUSH_DATA_DIR: dir, TICKETRUSH_CURRENCY: 'CHF' }).currency).toBe('CHF');
      expect(() => loadConfig({ TICKETRUSH_DATA_DIR: dir, TICKETRUSH_CURRENCY: 'XYZ' })).toThrow(/TICKETRUSH_CURRENCY/);
      expect(() => loadConfig({ TICKETRUSH_DATA_DIR: dir, TICKETRUSH_CURRENCY: 'eur' })).toThrow(/TICKETRUSH_CURRENCY/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a picture that is not https, an unknown currency, a description too long', async () => {
    const base = {
      title: 'X', venue: 'V', city: 'C', startsAt: new Date(Date.now() + 10 * day).toISOString(), saleStartsAt: new Date(Date.now() - 60_000).toISOString(),
      saleEndsAt: new Date(Date.now() + 5 * day).toISOString(), seatMap: { sections: [{ id: 'GA', name: 'F', kind: 'GENERAL_ADMISSION', capacity: 1, priceCents: 1 }] },
    };
    expect((await admin.request('POST', '/api/v1/admin/shows', { ...base, imageUrl: 'http://example.org/a.jpg' })).status).toBe(400);
    expect((await admin.request('POST', '/api/v1/admin/shows', { ...base, imageUrl: 'https://user:pw@example.org/a.jpg' })).body.code).toBe('INVALID_SHOW_DETAILS');
    expect((await admin.request('POST', '/api/v1/admin/shows', { ...base, currency: 'XYZ' })).body.code).toBe('INVALID_SHOW_DETAILS');
    expect((await admin.request('POST', '/api/v1/admin/shows', { ...base, description: 'x'.repeat(2001) })).status).toBe(400);
  });
});

describe('editing a show (PATCH /admin/shows/{id})', () => {
  it('changes words and times, and the show page, seat-map ETag and catalog see it at once', async () => {
    const showId = await createShow(admin);
    const before = await admin.request('GET', `/api/v1/shows/${showId}/seats?format=compact`);
    const startsAt = new Date(Date.now() + 20 * day).toISOString();
    const edited = await admin.request('PATCH', `/api/v1/admin/shows/${showId}`, { title: 'Renamed', description: 'New words', imageUrl: 'https://example.org/p.png', city: 'Beijing', startsAt });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    expect(edited.body).toMatchObject({ title: 'Renamed', description: 'New words', city: 'Beijing', startsAt });
    expect((await admin.request('GET', `/api/v1/shows/${showId}`)).body).toMatchObject({ title: 'Renamed', city: 'Beijing', imageUrl: 'https://example.org/p.png' });
    const after = await admin.request('GET', `/api/v1/shows/${showId}/seats?format=compact`, undefined, { 'if-none-match': String(before.headers.etag) });
    expect(after.status).toBe(200);
    const listed = (await admin.request('GET', '/api/v1/shows?limit=100')).body.shows.find((s: { showId: string }) => s.showId === showId);
    expect(listed.title).toBe('Renamed');
    // The picture can be taken away again.
    expect((await admin.request('PATCH', `/api/v1/admin/shows/${showId}`, { imageUrl: null })).body.imageUrl).toBeNull();
  });

  it('closing the sale at once moves the show out of sale for the next hold', async () => {
    const showId = await createShow(admin);
    const edited = await admin.request('PATCH', `/api/v1/admin/shows/${showId}`, { saleEndsAt: new Date(Date.now() + 1_000).toISOString() });
    expect(edited.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const hold = await (await buyer()).request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-1-1'] });
    expect(hold.body.code).toBe('SALE_NOT_OPEN');
  });

  it('refuses with 409 CHANGE_NOT_ALLOWED what would break what is sold', async () => {
    const showId = await createShow(admin);
    const patch = (body: object) => admin.request('PATCH', `/api/v1/admin/shows/${showId}`, body);
    const iso = (ms: number) => new Date(Date.now() + ms).toISOString();
    // The sale's end before now.
    expect((await patch({ saleEndsAt: iso(-60_000) })).body).toMatchObject({ code: 'CHANGE_NOT_ALLOWED', details: { field: 'saleEndsAt' } });
    // The show's start before the sale's end (which is 5 days away).
    expect((await patch({ startsAt: iso(2 * day) })).body).toMatchObject({ code: 'CHANGE_NOT_ALLOWED', details: { field: 'startsAt' } });
    // The show's start in the past.
    expect((await patch({ startsAt: iso(-day), saleStartsAt: iso(-3 * day), saleEndsAt: iso(-2 * day) })).body.code).toBe('CHANGE_NOT_ALLOWED');
    // With nothing taken the sale may still be moved to open later...
    expect((await patch({ saleStartsAt: iso(60_000) })).status).toBe(200);
    expect((await patch({ saleStartsAt: iso(-60_000) })).status).toBe(200);
    // ...but not once a seat is held.
    await (await buyer()).request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-1-1'] });
    expect((await patch({ saleStartsAt: iso(60_000) })).body).toMatchObject({ code: 'CHANGE_NOT_ALLOWED', details: { field: 'saleStartsAt' } });
    expect((await patch({ saleStartsAt: iso(60_000) })).status).toBe(409);
    // Creation's rules still hold, in their own words; bad input is a 400; unknown show 404; buyers 403.
    expect((await patch({ saleStartsAt: iso(6 * day) })).body.code).toBe('INVALID_SHOW_TIMES');
    expect((await patch({})).status).toBe(400);
    expect((await patch({ seatMap: { sections: [] } })).status).toBe(400);
    expect((await admin.request('PATCH', '/api/v1/admin/shows/nope', { title: 'x' })).status).toBe(404);
    expect((await (await buyer()).request('PATCH', `/api/v1/admin/shows/${showId}`, { title: 'x' })).status).toBe(403);
  });

  it('two edits at once both apply (neither is lost)', async () => {
    const showId = await createShow(admin);
    const [a, b] = await Promise.all([
      admin.request('PATCH', `/api/v1/admin/shows/${showId}`, { title: 'Both' }),
      admin.request('PATCH', `/api/v1/admin/shows/${showId}`, { city: 'Hangzhou' }),
    ]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect((await admin.request('GET', `/api/v1/shows/${showId}`)).body).toMatchObject({ title: 'Both', city: 'Hangzhou' });
  });
});

describe('users page API (GET /admin/users)', () => {
  it('pages users by name, searches by the start of the name (case ignored), admins only', async () => {
    for (const name of ['zed-alpha', 'Zed-Beta', 'zed-gamma']) await new ApiClient(t.node.app).signUp(name);
    const page = await admin.request('GET', '/api/v1/admin/users?q=ZED-&limit=2');
    expect(page.status).toBe(200);
    expect(page.body.users.map((u: { username: string }) => u.username)).toEqual(['zed-alpha', 'Zed-Beta']);
    expect(page.body.more).toBe(true);
    const next = await admin.request('GET', '/api/v1/admin/users?q=zed-&limit=2&offset=2');
    expect(next.body).toMatchObject({ users: [{ username: 'zed-gamma', role: 'BUYER' }], more: false });
    expect((await admin.request('GET', '/api/v1/admin/users?q=nobody-here')).body.users).toEqual([]);
    expect((await admin.request('GET', '/api/v1/admin/users?limit=1000')).status).toBe(400);
    expect((await admin.request('GET', `/api/v1/admin/users?q=${'x'.repeat(65)}`)).status).toBe(400);
    expect((await (await buyer()).request('GET', '/api/v1/admin/users')).status).toBe(403);
  });
});

// Issue 35: the edit form clears a policy with null; the validator's type coercion read it as 0
// ("until the start") before, so the buyer could still refund or exchange.
it('PATCH /admin/shows/{id} sets a refund or exchange policy, takes it away with null and keeps 0 as 0', async () => {
  const showId = await createShow(admin);
  const patch = async (body: object) => admin.request('PATCH', `/api/v1/admin/shows/${showId}`, body);
  expect((await patch({ refundUntilHoursBefore: 48, exchangeUntilHoursBefore: 24 })).body).toMatchObject({ refundUntilHoursBefore: 48, exchangeUntilHoursBefore: 24 });
  expect((await patch({ exchangeUntilHoursBefore: null })).body).toMatchObject({ refundUntilHoursBefore: 48, exchangeUntilHoursBefore: null });
  expect((await patch({ refundUntilHoursBefore: 0 })).body).toMatchObject({ refundUntilHoursBefore: 0, exchangeUntilHoursBefore: null });
  expect((await admin.request('GET', `/api/v1/shows/${showId}`)).body).toMatchObject({ refundUntilHoursBefore: 0, exchangeUntilHoursBefore: null });
  for (const bad of [{ refundUntilHoursBefore: '5' }, { refundUntilHoursBefore: -1 }, { exchangeUntilHoursBefore: 8761 }, { exchangeUntilHoursBefore: 1.5 }]) {
    const reply = await patch(bad);
    expect({ status: reply.status, code: reply.body.code }, JSON.stringify(bad)).toEqual({ status: 400, code: 'VALIDATION_FAILED' });
  }
});
