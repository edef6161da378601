import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openConfiguredStore } from '../../src/compose.js';
import { loadConfig } from '../../src/config.js';
import type { User } from '../../src/domain/index.js';
import { createTokenService } from '../../src/http/auth.js';
import { probeRedis } from '../../src/adapters/redis/probe.js';
import type { ProviderPaymentStatus } from '../../src/ports/payment-provider.js';
import { readAudit } from '../support/audit.js';
import { createTestDatabase, testDatabaseUrl, testStore, type TestDatabase } from '../support/backend.js';
import { startChildServer, type ChildServer } from '../support/child-server.js';
import { HttpBuyer, type HttpReply } from '../support/http-buyer.js';
import { expectSettledAndConsistent } from '../support/invariants.js';
import { queryInSchema } from '../support/postgres.js';
import { eventually, sleep } from '../support/wait.js';

/**
 * Three stateless processes over one PostgreSQL schema (and one Redis, under a prefix of this run,
 * when one answers), started as an operator starts them (docs/operations.md, "Running several
 * processes": the same environment, each its own port and data directory). 300 buyers spread over
 * them, each placing its order on another process than its hold and paying on a third; one
 * process SIGKILLed mid-rush, just after ten buyers left holds on it; the sandbox's callbacks go
 * to TICKETRUSH_PUBLIC_URL, a round-robin relay standing in for the load balancer. Then the audit
 * reads the store's truth (never a process's seat map, which until the change feed lands may not
 * have seen another process's hold): no seat in two tickets, counted stock never below zero,
 * every paid order ticketed, every provider verdict applied, the killed process's holds expired.
 *
 * Hooks the lead fills in once the Redis gate and webhooks land: `midRush` (e.g. FLUSH the run's
 * Redis prefix while buyers shop) and `afterAudit` (Redis agrees with PostgreSQL after repair;
 * every order.paid delivered to a receiver with a valid signature).
 */
interface RushContext {
  readonly database: TestDatabase;
  readonly redis: { readonly url: string; readonly prefix: string } | null;
  readonly servers: readonly ChildServer[];
  readonly showId: string;
}
const hooks: { midRush: ((run: RushContext) => Promise<void>)[]; afterAudit: ((run: RushContext) => Promise<void>)[] } = { midRush: [], afterAudit: [] };

const buyersCount = 300;
const abandonersCount = 10;
/** Seats of the show (the GA section's places come on top). */
const seatsCount = 10 * 15 + 8 * 10;
const gaCapacity = 100;
const jwtSecret = `multi-process-jwt-${randomBytes(16).toString('hex')}`;
const redisUrl = process.env.TICKETRUSH_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

let database: TestDatabase;
let relay: { url: string; backends: string[]; close(): Promise<void> };
let redis: RushContext['redis'] = null;
const servers: ChildServer[] = [];
let showId: string;
let buyers: HttpBuyer[];
let admin: HttpBuyer;

/**
 * The load balancer: forwards each request to the next live backend, trying the others when one
 * refuses the connection (a killed process). Small bodies only (provider callbacks).
 */
async function startRelay(): Promise<typeof relay> {
  const backends: string[] = [];
  let next = 0;
  const forward = (target: string, method: string, path: string, headers: IncomingMessage['headers'], body: Buffer): Promise<{ status: number; headers: IncomingMessage['headers']; body: Buffer }> =>
    new Promise((done, fail) => {
      const out = request(`${target}${path}`, { method, headers: { ...headers, host: new URL(target).host }, timeout: 10_000 }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (c: Buffer) => chunks.push(c));
        response.on('end', () => done({ status: response.statusCode ?? 502, headers: response.headers, body: Buffer.concat(chunks) }));
        response.on('error', fail);
      });
      out.on('error', fail);
      out.on('timeout', () => out.destroy(new Error('relay timeout')));
      out.end(body);
    });
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks);
      for (let tries = 0; tries < backends.length; tries++) {
        const target = backends[next++ % backends.length] as string;
        try {
          const answer = await forward(target, req.method ?? 'GET', req.url ?? '/', req.headers, body);
          res.writeHead(answer.status, answer.headers).end(answer.body);
          return;
        } catch {
          // That backend is gone: the next one.
        }
      }
      res.writeHead(502).end();
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, backends, close: () => new Promise((done) => server.close(() => done())) };
}

/** The environment every process gets: the same for all, but a data directory of its own. */
function processEnv(i: number): NodeJS.ProcessEnv {
  return {
    ...process.env,
    ...database.env,
    TICKETRUSH_DATA_DIR: join(database.dataDir, `process-${i}`),
    PORT: '0',
    HOST: '127.0.0.1',
    TICKETRUSH_DEMO: '0',
    TICKETRUSH_LOG_LEVEL: 'info',
    TICKETRUSH_PUBLIC_URL: relay.url,
    // Given, so this test can sign its buyers' tokens; the payment secret and the ticket signing
    // key are left for the processes to settle through the database.
    TICKETRUSH_JWT_SECRET: jwtSecret,
    TICKETRUSH_RATE_LIMITS: 'off',
    TICKETRUSH_MAX_SEATS_PER_USER: '4',
    TICKETRUSH_EXPIRY_SWEEP_MS: '250',
    TICKETRUSH_TICKET_SWEEP_MS: '500',
    // The killed process's undelivered callbacks are found by reconciliation on the others.
    TICKETRUSH_RECONCILE_MS: '1000',
    TICKETRUSH_RECONCILE_AFTER_MS: '2000',
    TICKETRUSH_SANDBOX_DELAY_MS_MAX: '50',
    ...(redis === null ? {} : { TICKETRUSH_REDIS_URL: redis.url, TICKETRUSH_REDIS_PREFIX: redis.prefix }),
  };
}

beforeAll(async () => {
  if (testStore !== 'postgres') return;
  database = await createTestDatabase({ store: 'postgres', prefix: 'ticketrush-multi-process-' });
  relay = await startRelay();
  if (await probeRedis(redisUrl, 1_000).then(() => true, () => false)) redis = { url: redisUrl, prefix: `mp-${process.pid}-${randomBytes(4).toString('hex')}:` };
  // Accounts through the store port (no password hashing in a rush test); the schema is migrated
  // by this first open, as a deploy's first process would.
  const tokens = createTokenService(jwtSecret, 3600);
  const users: User[] = Array.from({ length: buyersCount + abandonersCount + 1 }, (_, i) => ({
    userId: randomUUID(), username: i === 0 ? 'mp-admin' : `mp${i}`, passwordHash: 'x', role: i === 0 ? 'ADMIN' : 'BUYER', createdAt: Date.now(),
  }));
  const store = await openConfiguredStore(loadConfig({ ...database.env, TICKETRUSH_DEMO: '0' }));
  try {
    for (const user of users) expect((await store.insertUser(user)).ok).toBe(true);
  } finally {
    await store.close();
  }
  // All three at the same moment, as a deploy starts them.
  const started = await Promise.all([0, 1, 2].map((i) => startChildServer(['bin/ticketrush.js', 'start'], processEnv(i), join(database.dataDir, `server-${i}.log`))));
  servers.push(...started);
  relay.backends.push(...started.map((s) => s.url));
  const signed = users.map((u) => HttpBuyer.signedIn((started[0] as ChildServer).url, u.username, tokens.issue(u)));
  admin = signed[0] as HttpBuyer;
  buyers = signed.slice(1);
  const now = Date.now();
  const show = await admin.call('POST', '/api/v1/admin/shows', {
    title: 'Many processes', venue: 'Hall', city: 'Town', startsAt: new Date(now + 7 * 86_400_000).toISOString(),
    saleStartsAt: new Date(now - 60_000).toISOString(), saleEndsAt: new Date(now + 86_400_000).toISOString(),
    seatMap: {
      sections: [
        { id: 'S', name: 'Stalls', rows: 10, seatsPerRow: 15, priceCents: 9000 },
        { id: 'B', name: 'Balcony', rows: 8, seatsPerRow: 10, priceCents: 6000 },
        { id: 'GA', name: 'Standing', kind: 'GENERAL_ADMISSION', capacity: gaCapacity, priceCents: 4000 },
        // The abandoners' own places, so the rush cannot sell them out first.
        { id: 'X', name: 'Boxes', kind: 'GENERAL_ADMISSION', capacity: abandonersCount, priceCents: 20000 },
      ],
    },
  });
  expect(show.status).toBe(201);
  showId = show.body.showId as string;
}, 180_000);

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await relay?.close();
  await database?.drop();
});

/** A call to process `p`; a refused or cut connection (a killed process) answers status 0. */
async function on(buyer: HttpBuyer, url: string, method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<HttpReply> {
  buyer.reconnect(url);
  try {
    return await buyer.call(method, path, body, headers);
  } catch {
    return { status: 0, body: null };
  }
}

interface Tally {
  readonly statuses: Map<string, number>;
  readonly serverErrors: string[];
  /** Per paid buyer: the processes of its hold, order and payment. */
  readonly journeys: { hold: number; order: number; pay: number }[];
  holdsOnKilled: number;
  /** Orders whose first request died with the killed process, taken over by a retry elsewhere. */
  ordersTakenOver: number;
}

const count = (tally: Tally, what: string, reply: HttpReply): void => {
  const key = `${what} ${reply.status}${reply.body?.code === undefined ? '' : ` ${reply.body.code}`}`;
  tally.statuses.set(key, (tally.statuses.get(key) ?? 0) + 1);
  if (reply.status >= 500 && !(reply.status === 503 && reply.body?.code === 'BUSY')) tally.serverErrors.push(`${key}: ${JSON.stringify(reply.body)}`);
};

/** Processes still alive, other than `not`, starting after `from`. */
const killed = new Set<number>();
function another(from: number, not: number): number {
  for (let step = 1; step <= 3; step++) {
    const p = (from + step) % 3;
    if (p !== not && !killed.has(p)) return p;
  }
  return (not + 1) % 3;
}

/** One buyer: hold on one process, order on another, pay on a third (or the other survivor). */
async function shop(buyer: HttpBuyer, index: number, until: number, tally: Tally): Promise<void> {
  const quantity = 1 + (index % 2);
  const request = index % 4 === 3 ? { section: 'GA', quantity, holdSeconds: 120 } : { quantity, adjacent: false, holdSeconds: 120 };
  let holdOn = index % 3;
  let holdId: string | null = null;
  for (let tries = 0; holdId === null && tries < 30 && performance.now() < until; tries++) {
    if (killed.has(holdOn)) holdOn = another(holdOn, -1);
    const hold = await on(buyer, (servers[holdOn] as ChildServer).url, 'POST', `/api/v1/shows/${showId}/holds`, request);
    count(tally, 'hold', hold);
    if (hold.status === 201) holdId = hold.body.holdId as string;
    else if (hold.status === 409 && hold.body?.code === 'NOT_ENOUGH_SEATS') return;
    else if (hold.status === 0 || hold.status === 503) await sleep(Math.random() * 100);
  }
  if (holdId === null) return;
  if (holdOn === 0) tally.holdsOnKilled++;
  let orderOn = another(holdOn, holdOn);
  let order: HttpReply = { status: 0, body: null };
  let waitedOnDeadRequest = false;
  // As a real client does: the same key until an answer. A request that died with the killed
  // process leaves its key IN_FLIGHT until limits.idempotencyInFlightMsMax, then any process
  // takes it over; the hold (120 s) outlives that.
  const orderDeadline = Date.now() + 100_000;
  while (order.status !== 201 && order.status !== 200 && Date.now() < orderDeadline) {
    if (killed.has(orderOn)) orderOn = another(orderOn, holdOn);
    order = await on(buyer, (servers[orderOn] as ChildServer).url, 'POST', '/api/v1/orders', { holdId }, { 'x-idempotency-key': `mp-${holdId}` });
    count(tally, 'order', order);
    if (order.body?.code === 'IDEMPOTENCY_REQUEST_IN_FLIGHT') {
      waitedOnDeadRequest = true;
      await sleep(1_000 + Math.random() * 1_000);
    } else if (order.status >= 400 && order.status < 500) return;
    else if (order.status !== 201 && order.status !== 200) await sleep(50 + Math.random() * 100);
  }
  if (order.status !== 201 && order.status !== 200) return;
  if (waitedOnDeadRequest) tally.ordersTakenOver++;
  let payOn = another(orderOn, holdOn);
  for (let tries = 0; tries < 30; tries++) {
    if (killed.has(payOn)) payOn = another(payOn, holdOn);
    const pay = await on(buyer, (servers[payOn] as ChildServer).url, 'POST', `/api/v1/orders/${order.body.orderId as string}/sandbox-pay`, { outcome: 'SUCCEEDED' });
    count(tally, 'pay', pay);
    if (pay.status === 202) {
      tally.journeys.push({ hold: holdOn, order: orderOn, pay: payOn });
      return;
    }
    if (pay.status !== 0 && pay.status !== 503) return;
    await sleep(50 + Math.random() * 100);
  }
}

/** The provider's own ledger (the shared table), as the auditor asks a provider. */
const sharedLedger = {
  async getPaymentStatus(paymentId: string): Promise<ProviderPaymentStatus> {
    const { rows } = await queryInSchema<{ status: ProviderPaymentStatus }>(testDatabaseUrl, database.env.TICKETRUSH_DATABASE_SCHEMA ?? '', 'SELECT status FROM sandbox_payments WHERE payment_id = $1', [paymentId]);
    return rows[0]?.status ?? 'UNKNOWN';
  },
};

it.skipIf(testStore !== 'postgres')('300 buyers over three processes, one SIGKILLed mid-rush: nothing sold twice, every paid order ticketed, the dead process\'s holds expire', async () => {
  const tally: Tally = { statuses: new Map(), serverErrors: [], journeys: [], holdsOnKilled: 0, ordersTakenOver: 0 };
  const started = performance.now();
  const until = started + 60_000;
  const rush = Promise.all(buyers.slice(0, buyersCount).map((buyer, index) => shop(buyer, index, until, tally)));
  const run: RushContext = { database, redis, servers, showId };

  // Mid-rush: ten buyers leave short holds on process 0, which is then killed without a word.
  await eventually(async () => (tally.journeys.length >= 20 ? true : undefined), 60_000, '20 buyers paid');
  const abandoned: string[] = [];
  await Promise.all(buyers.slice(buyersCount).map(async (buyer) => {
    for (let tries = 0; tries < 50; tries++) {
      const hold = await on(buyer, (servers[0] as ChildServer).url, 'POST', `/api/v1/shows/${showId}/holds`, { section: 'X', quantity: 1, holdSeconds: 3 });
      if (hold.status === 201) return void abandoned.push(hold.body.holdId as string);
      await sleep(Math.random() * 50);
    }
  }));
  killed.add(0);
  (servers[0] as ChildServer).child.kill('SIGKILL');
  const killedAtPaid = tally.journeys.length;
  for (const hook of hooks.midRush) await hook(run);
  await rush;
  const rushSeconds = (performance.now() - started) / 1000;

  console.log(`multi-process rush: ${buyersCount} buyers over 3 processes in ${rushSeconds.toFixed(1)} s; ${tally.journeys.length} paid (${killedAtPaid} before the kill), ${tally.holdsOnKilled} holds made on the killed process, ${abandoned.length} abandoned on it, ${tally.ordersTakenOver} orders taken over from requests that died with it`);
  console.log([...tally.statuses].sort().map(([k, n]) => `  ${k}: ${n}`).join('\n'));
  expect(tally.serverErrors.slice(0, 5)).toEqual([]);
  expect(abandoned).toHaveLength(abandonersCount);
  expect(tally.journeys.length).toBeGreaterThan(killedAtPaid);
  // Every order was placed on another process than its hold, and paid on another still.
  expect(tally.journeys.filter((j) => j.order === j.hold || j.pay === j.hold)).toEqual([]);

  // The store's truth, once the survivors have expired, reconciled and ticketed what was left.
  const counts = await expectSettledAndConsistent({ database, provider: sharedLedger }, showId, seatsCount, 90_000);
  const audit = await readAudit({ database }, showId);
  const statusOf = new Map(audit.holds.map((h) => [h.holdId, h.status]));
  expect(abandoned.map((id) => statusOf.get(id))).toEqual(abandoned.map(() => 'EXPIRED'));
  const orders: Record<string, number> = {};
  for (const o of audit.orders) orders[o.status] = (orders[o.status] ?? 0) + 1;
  const ga = audit.sections.find((s) => s.sectionId === 'GA');
  console.log(`multi-process audit: seats ${JSON.stringify(counts)}; GA ${gaCapacity - (ga?.available ?? 0)}/${gaCapacity} gone; orders ${JSON.stringify(orders)}; tickets ${audit.tickets.length}`);
  // Every order a buyer followed through is paid and ticketed, those whose first request died
  // with the killed process included: nothing acknowledged was lost.
  expect(orders.TICKETED ?? 0).toBe(tally.journeys.length);
  for (const hook of hooks.afterAudit) await hook(run);
}, 300_000);
