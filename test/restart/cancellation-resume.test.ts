import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, testStore, type TestDatabase } from '../support/backend.js';
import { startChildServer, type ChildServer } from '../support/child-server.js';
import { HttpBuyer } from '../support/http-buyer.js';
import { eventually } from '../support/wait.js';

/**
 * Issue 25: a show's cancellation cut short by SIGKILL half-way through its refunds is resumed by
 * the next process on the same database (its show-cancellations sweep), and every paid order is
 * refunded exactly once: one refund row per order, and the provider (the sandbox ledger, which
 * outlives the process) gave back each payment's amount once.
 */
const admin = { username: 'admin', password: 'admin-password-1' };
const orders = 24;
let database: TestDatabase;
const servers: ChildServer[] = [];
const logDir = mkdtempSync(join(tmpdir(), 'ticketrush-cancel-logs-'));

const env = (extra: Record<string, string>): NodeJS.ProcessEnv => ({
  ...process.env,
  ...database.env,
  PORT: '0',
  HOST: '127.0.0.1',
  TICKETRUSH_DEMO: '0',
  TICKETRUSH_LOG_LEVEL: 'info',
  TICKETRUSH_ADMIN_USER: admin.username,
  TICKETRUSH_ADMIN_PASSWORD: admin.password,
  TICKETRUSH_JWT_SECRET: 'cancel-resume-test-jwt-secret-0123456789',
  TICKETRUSH_PAYMENT_SECRET: 'cancel-resume-test-payment-secret',
  TICKETRUSH_SANDBOX_DELAY_MS_MAX: '0',
  TICKETRUSH_SANDBOX_DUPLICATE_RATE: '0',
  TICKETRUSH_TICKET_SWEEP_MS: '200',
  ...extra,
});

async function spawn(extra: Record<string, string> = {}): Promise<ChildServer> {
  const server = await startChildServer(['bin/ticketrush.js', 'start'], env(extra), join(logDir, `start-${Date.now()}.log`));
  servers.push(server);
  return server;
}

/** What the provider gave back per payment, read from the sandbox's own ledger. */
async function providerRefunds(): Promise<Map<string, { cents: number; refunds: number }>> {
  const rows: { payment_id: string; cents: number | string; n: number | string }[] = [];
  const sql = 'SELECT payment_id, sum(amount_cents) AS cents, count(*) AS n FROM sandbox_refunds GROUP BY payment_id';
  if (database.store === 'sqlite') {
    const db = new Database(join(database.dataDir, 'sandbox-provider.db'), { readonly: true });
    rows.push(...(db.prepare(sql).all() as typeof rows));
    db.close();
  } else {
    const client = new pg.Client({ connectionString: database.env.TICKETRUSH_DATABASE_URL });
    await client.connect();
    await client.query(`SET search_path TO ${database.env.TICKETRUSH_DATABASE_SCHEMA}`);
    rows.push(...(await client.query(sql)).rows);
    await client.end();
  }
  return new Map(rows.map((r) => [r.payment_id, { cents: Number(r.cents), refunds: Number(r.n) }]));
}

beforeAll(async () => {
  database = await createTestDatabase({ prefix: 'ticketrush-cancel-' });
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});
afterAll(async () => {
  await database?.drop();
  if (!process.env.TICKETRUSH_TEST_KEEP) rmSync(logDir, { recursive: true, force: true });
});

describe(`a show cancellation killed half-way (${testStore})`, () => {
  it('is resumed by the next process: every paid order refunded exactly once', async () => {
    const a = await spawn();
    const token = (await new HttpBuyer(a.url, admin.username).call('POST', '/api/v1/auth/login', admin)).body.token as string;
    const auth = { authorization: `Bearer ${token}` };
    const now = Date.now();
    const show = await new HttpBuyer(a.url, 'x').call('POST', '/api/v1/admin/shows', {
      title: 'Cancelled', venue: 'Hall', city: 'Town', maxSeatsPerUser: orders,
      startsAt: new Date(now + 7 * 86_400_000).toISOString(), saleStartsAt: new Date(now - 60_000).toISOString(), saleEndsAt: new Date(now + 86_400_000).toISOString(),
      seatMap: { sections: [{ id: 'A', name: 'Floor', rows: 5, seatsPerRow: 10, priceCents: 3000 }] },
    }, auth);
    expect(show.status).toBe(201);
    const showId = show.body.showId as string;
    const buyer = await new HttpBuyer(a.url, `canceller${now}`).signUp();
    const orderIds: string[] = [];
    for (let i = 0; i < orders; i++) {
      const hold = await buyer.call('POST', `/api/v1/shows/${showId}/holds`, { seatIds: [`A-${Math.floor(i / 10) + 1}-${(i % 10) + 1}`] });
      const order = await buyer.call('POST', '/api/v1/orders', { holdId: hold.body.holdId }, { 'x-idempotency-key': `c-${i}` });
      expect((await buyer.call('POST', `/api/v1/orders/${order.body.orderId}/sandbox-pay`, { outcome: 'SUCCEEDED' })).status).toBe(202);
      orderIds.push(order.body.orderId as string);
    }
    const amounts = new Map<string, { paymentId: string; amountCents: number }>();
    await eventually(async () => {
      for (const orderId of orderIds) {
        const o = (await buyer.call('GET', `/api/v1/orders/${orderId}`)).body;
        if (o.status !== 'TICKETED') return undefined;
        amounts.set(orderId, { paymentId: o.paymentId, amountCents: o.amountCents });
      }
      return true;
    }, 30_000, 'every order ticketed');

    const cancelled = await new HttpBuyer(a.url, 'x').call('POST', `/api/v1/admin/shows/${showId}/cancel`, { reason: 'storm' }, auth);
    expect(cancelled.status).toBe(202);
    // Killed half-way: as soon as the provider has made the first refunds.
    const deadline = Date.now() + 20_000;
    while ((await providerRefunds()).size < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 2));
    a.child.kill('SIGKILL');
    await new Promise((resolve) => a.child.once('exit', resolve));
    const before = await providerRefunds();
    console.info(`cancellation killed with ${before.size} of ${orders} orders refunded at the provider`);
    expect(before.size).toBeLessThan(orders);

    // The next process on the same database resumes it (its sweep runs every 200 ms).
    const b = await spawn({ TICKETRUSH_RECONCILE_MS: '200', TICKETRUSH_RECONCILE_AFTER_MS: '0' });
    const token2 = (await new HttpBuyer(b.url, admin.username).call('POST', '/api/v1/auth/login', admin)).body.token as string;
    const started = Date.now();
    const progress = await eventually(async () => {
      const p = await new HttpBuyer(b.url, 'x').call('GET', `/api/v1/admin/shows/${showId}/cancellation`, undefined, { authorization: `Bearer ${token2}` });
      return p.body.done === true ? p.body : undefined;
    }, 30_000, 'cancellation done');
    console.info(`resumed and finished ${Date.now() - started} ms after the restart`);
    expect(progress.ordersByStatus).toEqual({ REFUNDED: orders });
    expect(progress.refundsByStatus).toEqual({ REFUNDED: orders });
    const given = await providerRefunds();
    for (const [orderId, { paymentId, amountCents }] of amounts) expect(given.get(paymentId), `order ${orderId}`).toEqual({ cents: amountCents, refunds: 1 });
    expect(given.size).toBe(orders);
    // Sales stopped for good.
    const late = await new HttpBuyer(b.url, `late${now}`).signUp();
    expect((await late.call('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-5-10'] })).body.code).toBe('SHOW_CANCELLED');
  }, 120_000);
});
