import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, ApiClient, createShow } from '../support/api-client.js';
import { startTestNode, type TestNode } from '../support/backend.js';
import { postCallback } from '../support/payments.js';
import { eventually } from '../support/wait.js';

let t: TestNode;
let admin: ApiClient;
let seq = 0;
const buyer = async () => new ApiClient(t.node.app).signUp(`door${++seq}`);

beforeAll(async () => {
  t = await startTestNode({ listen: false });
  admin = await adminClient(t.node.app);
});
afterAll(async () => t.close());

async function steward(): Promise<ApiClient> {
  const name = `steward${++seq}`;
  await new ApiClient(t.node.app).signUp(name);
  await admin.request('PUT', `/api/v1/admin/users/${name}/role`, { role: 'STAFF' });
  return new ApiClient(t.node.app).logIn(name, 'password-123');
}

async function ticketFor(showId: string, seatId: string): Promise<{ ticketId: string; qr: string }> {
  const api = await buyer();
  const hold = await api.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: [seatId] });
  const order = (await api.request('POST', '/api/v1/orders', { holdId: hold.body.holdId }, { 'x-idempotency-key': `k-${++seq}` })).body;
  await postCallback(t.node.app, t.node.config.secrets.payment, { paymentId: order.paymentId, orderId: order.orderId, status: 'SUCCEEDED', amountCents: order.amountCents });
  const done = await eventually(async () => {
    const o = (await api.request('GET', `/api/v1/orders/${order.orderId}`)).body;
    return o.status === 'TICKETED' ? o : undefined;
  });
  return done.tickets[0];
}

describe('offline door scans (POST /checkin/offline-scans)', () => {
  it('keeps the first upload\'s admission, dated with its scan time, and flags the other gate that admitted the same ticket offline', async () => {
    const showId = await createShow(admin);
    const ticket = await ticketFor(showId, 'A-1-1');
    const [gate1, gate2] = [await steward(), await steward()];
    await new Promise((resolve) => setTimeout(resolve, 30));
    const early = new Date(Date.now() - 20).toISOString();
    const late = new Date(Date.now() - 10).toISOString();
    // Both gates admitted the holder while offline; gate 2 syncs first and keeps the admission (with
    // its own scan time), gate 1's upload is the second use and is flagged.
    const second = await gate2.request('POST', '/api/v1/checkin/offline-scans', { scans: [{ qr: ticket.qr, nonce: 'g2-1', scannedAt: late, gate: 'G2', offlineVerdict: 'ADMITTED' }] });
    expect(second.status).toBe(200);
    expect(second.body.results[0]).toMatchObject({ outcome: 'ADMITTED', seatId: 'A-1-1', flagged: false, usedAt: late });
    const first = await gate1.request('POST', '/api/v1/checkin/offline-scans', { scans: [{ qr: ticket.qr, nonce: 'g1-1', scannedAt: early, gate: 'G1', offlineVerdict: 'ADMITTED' }] });
    expect(first.body.results[0]).toMatchObject({ outcome: 'TICKET_ALREADY_USED', flagged: true, usedAt: late });
    // Uploading the same scan again (a retry after a lost answer) is not a second use.
    const again = await gate2.request('POST', '/api/v1/checkin/offline-scans', { scans: [{ qr: ticket.qr, nonce: 'g2-1', scannedAt: late, gate: 'G2', offlineVerdict: 'ADMITTED' }] });
    expect(again.body.results[0]).toMatchObject({ outcome: 'ALREADY_ADMITTED_SAME_SCAN', flagged: false });
    // Online, the ticket is used.
    const online = await gate1.request('POST', '/api/v1/checkin', { qr: ticket.qr });
    expect(online.body.code).toBe('TICKET_ALREADY_USED');
  });

  it('answers INVALID for a forged code, per scan, and refuses buyers', async () => {
    const gate = await steward();
    const reply = await gate.request('POST', '/api/v1/checkin/offline-scans', { scans: [{ qr: 'TR1.e30.AAAA', nonce: 'x', scannedAt: new Date().toISOString(), offlineVerdict: 'INVALID' }] });
    expect(reply.body.results[0]).toMatchObject({ outcome: 'TICKET_INVALID', flagged: false });
    expect((await (await buyer()).request('POST', '/api/v1/checkin/offline-scans', { scans: [] })).status).toBe(403);
  });

  it('lists revoked tickets of a show for offline doors (none today), 404 for an unknown show', async () => {
    const showId = await createShow(admin);
    const gate = await steward();
    expect((await gate.request('GET', `/api/v1/shows/${showId}/revoked-tickets`)).body).toEqual({ showId, ticketIds: [] });
    expect((await gate.request('GET', '/api/v1/shows/nope/revoked-tickets')).status).toBe(404);
  });
});

describe('organizer sale figures (GET /admin/shows/{id}/stats)', () => {
  it('counts sold, held, available, money taken and holds in the last minute', async () => {
    const showId = await createShow(admin);
    await ticketFor(showId, 'A-1-1');
    await (await buyer()).request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-2-1', 'A-2-2'] });
    const stats = await admin.request('GET', `/api/v1/admin/shows/${showId}/stats`);
    expect(stats.body).toMatchObject({ capacity: 100, sold: 1, held: 2, available: 97, refundPending: 0, moneyTakenCents: 5000, holdsPerMinute: 3 });
    expect((await (await buyer()).request('GET', `/api/v1/admin/shows/${showId}/stats`)).status).toBe(403);
  });
});
