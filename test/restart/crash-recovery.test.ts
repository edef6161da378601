import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { signWebhook } from '../../src/lib/webhook-signature.js';
import { createTestDatabase, type TestDatabase } from '../support/backend.js';
import { startChildServer, type ChildServer } from '../support/child-server.js';
import { HttpBuyer } from '../support/http-buyer.js';
import { expectSeatMapMatchesStore, expectSettledAndConsistent } from '../support/invariants.js';
import { eventually, sleep } from '../support/wait.js';

/**
 * The real server as a child process, killed with SIGKILL in the middle of a rush and started
 * again on the same data directory: nothing paid is lost, nothing is sold twice, holds that fell
 * due while it was down are freed at start, and it goes on selling.
 */
const paymentSecret = 'restart-test-payment-secret';
const admin = { username: 'admin', password: 'admin-password-1' };
// The same data directory and, on PostgreSQL, the same schema across the kill and the restart.
let database: TestDatabase;
const env = () => ({
  ...process.env,
  ...database.env,
  PORT: '0',
  HOST: '127.0.0.1',
  TICKETRUSH_DEMO: '0',
  TICKETRUSH_LOG_LEVEL: 'info',
  TICKETRUSH_ADMIN_USER: admin.username,
  TICKETRUSH_ADMIN_PASSWORD: admin.password,
  TICKETRUSH_PAYMENT_SECRET: paymentSecret,
  TICKETRUSH_EXPIRY_SWEEP_MS: '200',
  TICKETRUSH_TICKET_SWEEP_MS: '300',
  TICKETRUSH_SANDBOX_DELAY_MS_MAX: '20',
});
const rows = 10;
const seatsPerRow = 10;
let server: ChildServer | null = null;

const start = async (): Promise<ChildServer> => {
  server = await startChildServer(['bin/ticketrush.js', 'start'], env(), join(database.dataDir, `server-${Date.now()}.log`));
  return server;
};

beforeAll(async () => {
  database = await createTestDatabase({ prefix: 'ticketrush-restart-' });
});
afterAll(async () => {
  await server?.stop();
  await database.drop();
});

interface Booked {
  readonly buyer: HttpBuyer;
  readonly orderId: string;
  readonly paymentId: string;
  readonly amountCents: number;
}

async function book(buyer: HttpBuyer, showId: string, seatIds: string[], holdSeconds = 600): Promise<Booked | null> {
  const hold = await buyer.call('POST', `/api/v1/shows/${showId}/holds`, { seatIds, holdSeconds });
  if (hold.status !== 201) return null;
  const order = await buyer.call('POST', '/api/v1/orders', { holdId: hold.body.holdId }, { 'x-idempotency-key': `k-${hold.body.holdId}` });
  if (order.status !== 201) return null;
  return { buyer, orderId: order.body.orderId, paymentId: order.body.paymentId, amountCents: order.body.amountCents };
}

/** The provider's signed "paid" callback, as any provider would send it. */
async function paid(baseUrl: string, booked: Booked): Promise<number> {
  const raw = JSON.stringify({ paymentId: booked.paymentId, orderId: booked.orderId, status: 'SUCCEEDED', amountCents: booked.amountCents });
  const response = await fetch(`${baseUrl}/api/v1/payments/callback`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-ticketrush-signature': signWebhook(paymentSecret, raw, Math.floor(Date.now() / 1000)) },
    body: raw,
  });
  await response.text();
  return response.status;
}

const ticketsOf = async (booked: Booked) => {
  const order = await booked.buyer.call('GET', `/api/v1/orders/${booked.orderId}`);
  return { status: order.body.status as string, tickets: (order.body.tickets as { ticketId: string; seatId: string }[]).map((t) => `${t.ticketId}:${t.seatId}`).sort() };
};

it('survives SIGKILL mid-rush: paid orders kept, nothing sold twice, overdue holds freed on start', async () => {
  let base = (await start()).url;
  const adminBuyer = new HttpBuyer(base, admin.username);
  const login = await adminBuyer.call('POST', '/api/v1/auth/login', admin);
  const now = Date.now();
  const show = await new HttpBuyer(base, 'x').call('POST', '/api/v1/admin/shows', {
    title: 'Crash night', venue: 'Hall', city: 'Town',
    startsAt: new Date(now + 7 * 86_400_000).toISOString(),
    saleStartsAt: new Date(now - 60_000).toISOString(),
    saleEndsAt: new Date(now + 86_400_000).toISOString(),
    seatMap: { sections: [{ id: 'A', name: 'Floor', rows, seatsPerRow, priceCents: 3000 }] },
  }, { authorization: `Bearer ${login.body.token}` });
  expect(show.status).toBe(201);
  const showId = show.body.showId as string;
  const buyers = await Promise.all(Array.from({ length: 60 }, (_, i) => new HttpBuyer(base, `crash${i}`).signUp()));

  // Before the crash: ten orders paid and ticketed (row 1), five short holds that fall due while
  // the server is down (row 2), five orders awaiting payment (row 3).
  const ticketed = (await Promise.all(buyers.slice(0, 10).map((b, i) => book(b, showId, [`A-1-${i + 1}`])))).filter((b): b is Booked => b !== null);
  expect(ticketed).toHaveLength(10);
  for (const b of ticketed) expect(await paid(base, b)).toBe(200);
  const before = new Map<string, string[]>();
  for (const b of ticketed) {
    const view = await eventually(async () => {
      const v = await ticketsOf(b);
      return v.status === 'TICKETED' ? v : undefined;
    }, 10_000, 'tickets issued');
    before.set(b.orderId, view.tickets);
  }
  const shortHolds = await Promise.all(buyers.slice(10, 15).map((b, i) => b.call('POST', `/api/v1/shows/${showId}/holds`, { seatIds: [`A-2-${i + 1}`], holdSeconds: 2 })));
  for (const h of shortHolds) expect(h.status).toBe(201);
  const lastExpiry = Math.max(...shortHolds.map((h) => Date.parse(h.body.expiresAt)));
  const awaiting = (await Promise.all(buyers.slice(15, 20).map((b, i) => book(b, showId, [`A-3-${i + 1}`])))).filter((b): b is Booked => b !== null);
  expect(awaiting).toHaveLength(5);

  // The rush, and the kill in the middle of it. Callbacks answered 200 were acknowledged to the
  // provider: those payments must survive.
  const acknowledged: Booked[] = [];
  let interrupted = 0;
  // Each rush buyer keeps trying random seats in rows 4-10 (A-10-10 is kept for after the crash)
  // until the kill cuts it off: on a fast machine a fixed number of attempts could all be over
  // before the kill, and nothing would be in flight when it lands. Bounded in time all the same.
  const rushUntil = Date.now() + 30_000;
  const rush = buyers.slice(20).map(async (b) => {
    try {
      while (Date.now() < rushUntil) {
        const seat = `A-${4 + Math.floor(Math.random() * 7)}-${1 + Math.floor(Math.random() * 10)}`;
        if (seat === 'A-10-10') continue;
        const booked = await book(b, showId, [seat]);
        if (booked !== null && (await paid(base, booked)) === 200) acknowledged.push(booked);
      }
    } catch {
      interrupted++; // the connection died with the server
    }
  });
  await eventually(async () => (acknowledged.length >= 3 ? true : undefined), 10_000, 'the rush under way');
  const victim = server as ChildServer;
  victim.child.kill('SIGKILL');
  await Promise.all(rush);
  expect(interrupted, 'the kill interrupted buyers in flight').toBeGreaterThan(0);
  await new Promise((resolve) => (victim.child.exitCode !== null || victim.child.signalCode !== null ? resolve(null) : victim.child.once('exit', resolve)));

  // Down until the short holds are overdue, then up again on the same data directory.
  await sleep(Math.max(0, lastExpiry - Date.now() + 200));
  base = (await start()).url;
  const upAt = Date.now();
  for (const b of buyers) b.reconnect(base);
  const seatMap = async () => new Map(((await (await fetch(`${base}/api/v1/shows/${showId}/seats`)).json()) as { seats: { seatId: string; status: string }[] }).seats.map((s) => [s.seatId, s.status]));
  const freed = await seatMap();
  for (let i = 1; i <= 5; i++) expect(freed.get(`A-2-${i}`), `overdue hold on A-2-${i} freed at start`).toBe('AVAILABLE');
  expect(Date.now() - upAt).toBeLessThan(2_000);

  // Nothing paid before the crash is lost: same orders, same tickets, same seats.
  for (const b of ticketed) expect(await ticketsOf(b)).toEqual({ status: 'TICKETED', tickets: before.get(b.orderId) });
  // Every acknowledged payment ends ticketed.
  for (const b of acknowledged) await eventually(async () => ((await ticketsOf(b)).status === 'TICKETED' ? true : undefined), 10_000, 'acknowledged payment ticketed');
  // A payment for an order placed before the crash is still taken after it.
  for (const b of awaiting) expect(await paid(base, b)).toBe(200);
  // And the server goes on selling.
  const fresh = await new HttpBuyer(base, 'after-crash').signUp();
  const late = await book(fresh, showId, ['A-10-10']);
  expect(late).not.toBeNull();
  if (late !== null) expect(await paid(base, late)).toBe(200);

  const counts = await expectSettledAndConsistent({ database }, showId, rows * seatsPerRow);
  expect(counts.SOLD ?? 0).toBeGreaterThanOrEqual(10 + acknowledged.length + awaiting.length + 1);
  await expectSeatMapMatchesStore(base, { database }, showId);
}, 90_000);
