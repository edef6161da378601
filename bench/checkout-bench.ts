// `npm run bench`, part `checkout` (issue 37 item 3): whole checkouts — hold → order → the
// provider's signed payment callback → ticketed — by 64 buyers in a client process of their own
// (bench/checkout-client.ts), reported as checkouts per second and p50/p99 per step, and as a
// ratio to a Fastify hello-world POST measured in the same run (interleaved rounds, median round:
// the machine is shared and noisy, only ratios mean much). Backends: SQLite, PostgreSQL and
// PostgreSQL + Redis when they answer (BENCH_STORES picks some). Goal: >= 0.1 of hello-world's
// rate. Payments arrive as `POST /api/v1/payments/callback` signed with the server's payment
// secret, as a real provider's would: no sandbox delay in the figures. 127.0.0.1 only, bounded
// (BENCH_SECONDS per round, at most one show of 80,000 seats per backend).
import autocannon from 'autocannon';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startChildServer, type ChildServer } from '../test/support/child-server.js';
import { createSchema, dropSchema, postgresReachable, uniqueSchemaName } from '../test/support/postgres.js';
import { deleteRedisKeys, redisReachable } from '../test/support/redis.js';
import { call, login } from './api-call.js';
import { runJsonChild } from './json-child.js';
import type { CheckoutJob, CheckoutResult } from './checkout-client.js';
import { treeCpuMs } from './process-cpu.js';

type Backend = 'sqlite' | 'postgres' | 'postgres+redis';
const parts = (process.env.BENCH_PARTS ?? 'checkout').split(',').map((p) => p.trim());
const seconds = Number(process.env.BENCH_SECONDS ?? 6);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 64);
const databaseUrl = process.env.TICKETRUSH_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const redisUrl = process.env.TICKETRUSH_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const admin = { username: 'bench-admin', password: 'bench-admin-password' };
const paymentSecret = 'checkout-bench-payment-secret-0123456789';
const buyers = 64;
const sections = Array.from({ length: 8 }, (_, i) => `S${i + 1}`);
const seatsPerShow = sections.length * 10_000;
const goal = 0.1;

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

const runClient = (job: CheckoutJob): Promise<CheckoutResult> => runJsonChild<CheckoutJob, CheckoutResult>('checkout-client.ts', job, job.warmupSeconds + job.seconds + 60);

async function helloPostRate(url: string): Promise<number> {
  const result = await autocannon({ url: `${url}/hello`, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ seatIds: ['A-1-1'] }), connections, duration: seconds });
  return result.requests.average;
}

async function startServer(backend: Backend, dataDir: string, cleanups: (() => Promise<void>)[]): Promise<ChildServer> {
  let store: Record<string, string> = {};
  if (backend !== 'sqlite') {
    const schema = uniqueSchemaName();
    await createSchema(databaseUrl, schema);
    cleanups.push(() => dropSchema(databaseUrl, schema));
    store = { TICKETRUSH_DATABASE_URL: databaseUrl, TICKETRUSH_DATABASE_SCHEMA: schema };
    if (backend === 'postgres+redis') {
      const prefix = `bench:${schema}:`;
      cleanups.push(async () => { await deleteRedisKeys(redisUrl, prefix); });
      store = { ...store, TICKETRUSH_REDIS_URL: redisUrl, TICKETRUSH_REDIS_PREFIX: prefix };
    }
  }
  const dir = mkdtempSync(join(dataDir, `${backend}-`));
  return startChildServer(['bin/ticketrush.js', 'start'], {
    ...process.env, ...store,
    PORT: '0', HOST: '127.0.0.1', TICKETRUSH_DATA_DIR: dir, TICKETRUSH_DEMO: '0', TICKETRUSH_LOG_LEVEL: 'info',
    TICKETRUSH_ADMIN_USER: admin.username, TICKETRUSH_ADMIN_PASSWORD: admin.password,
    TICKETRUSH_PAYMENT_SECRET: paymentSecret, TICKETRUSH_SCRYPT_COST: '1024',
    // 64 buyers from one address buy thousands of seats each: the bench measures checkouts, not the limits.
    TICKETRUSH_RATE_LIMITS: 'off', TICKETRUSH_MAX_SEATS_PER_USER: '200000',
  }, join(dir, 'ticketrush.log'));
}

async function benchBackend(backend: Backend, hello: ChildServer, dataDir: string): Promise<void> {
  const cleanups: (() => Promise<void>)[] = [];
  const server = await startServer(backend, dataDir, cleanups);
  try {
    const adminToken = await login(server.url, admin.username, admin.password);
    const now = Date.now();
    const show = await call(server.url, 'POST', '/api/v1/admin/shows', {
      title: `Checkout bench ${backend}`, venue: 'Bench Arena', city: 'Localhost',
      startsAt: new Date(now + 7 * 86_400_000).toISOString(), saleStartsAt: new Date(now - 60_000).toISOString(), saleEndsAt: new Date(now + 86_400_000).toISOString(),
      seatMap: { sections: sections.map((id) => ({ id, name: `Section ${id}`, rows: 100, seatsPerRow: 100, priceCents: 9900 })) },
    }, adminToken);
    if (show.status !== 201) throw new Error(`create show: ${show.status} ${JSON.stringify(show.json)}`);
    const showId = show.json.showId as string;
    await call(server.url, 'GET', `/api/v1/shows/${showId}/availability`);
    const tokens: string[] = [];
    for (let i = 0; i < buyers; i++) {
      const username = `checkout-buyer-${i}`;
      await call(server.url, 'POST', '/api/v1/auth/register', { username, password: 'bench-password-1' });
      tokens.push(await login(server.url, username, 'bench-password-1'));
    }
    const ratios: number[] = [];
    const results: CheckoutResult[] = [];
    let firstSeat = 0;
    for (let round = 0; round < rounds && firstSeat < seatsPerShow; round++) {
      const helloRate = await helloPostRate(hello.url);
      const cpuBefore = treeCpuMs(server.child.pid);
      const result = await runClient({
        url: server.url, showId, sections, firstSeat, seatsMax: Math.floor(seatsPerShow / rounds), tokens, paymentSecret, connections, warmupSeconds: 1, seconds,
      });
      const serverCpuMs = treeCpuMs(server.child.pid) - cpuBefore;
      firstSeat += Math.floor(seatsPerShow / rounds);
      ratios.push(result.checkoutsPerSecond / Math.max(1, helloRate));
      results.push(result);
      const s = result.steps;
      console.log(`  ${backend} round ${round + 1}: ${result.checkoutsPerSecond} checkouts/s (hello-world POST ${Math.round(helloRate)}/s, ratio ${(result.checkoutsPerSecond / helloRate).toFixed(3)}); `
        + `p50/p99 ms hold ${s.hold.p50Ms}/${s.hold.p99Ms}, order ${s.order.p50Ms}/${s.order.p99Ms}, callback ${s.callback.p50Ms}/${s.callback.p99Ms}, ticketed ${s.ticketed.p50Ms}/${s.ticketed.p99Ms}, whole ${s.checkout.p50Ms}/${s.checkout.p99Ms}; `
        + `server CPU ${Math.round((serverCpuMs * 1000) / Math.max(1, result.seatsUsed))} us/checkout, client CPU ${result.cpuMs} ms`
        + `${Object.keys(result.refusals).length > 0 ? `; refused ${JSON.stringify(result.refusals)}` : ''}${result.errors > 0 ? `; ${result.errors} errors` : ''}`);
    }
    const ratio = median(ratios);
    const best = results[ratios.indexOf(ratio)];
    console.log(`checkout ${backend}: median ${best?.checkoutsPerSecond ?? 0} checkouts/s, ratio ${ratio.toFixed(3)} of hello-world POST (goal >= ${goal})${ratio < goal ? '  below goal' : ''}`);
  } finally {
    await server.stop();
    for (const cleanup of cleanups) await cleanup().catch(() => undefined);
  }
}

if (parts.includes('checkout')) {
  const dataDir = mkdtempSync(join(tmpdir(), 'ticketrush-checkout-bench-'));
  const hello = await startChildServer(['--import', 'tsx', join(import.meta.dirname, 'hello-server.ts')], process.env, join(dataDir, 'hello.log'));
  try {
    const pgUp = (await postgresReachable(databaseUrl)).ok;
    const redisUp = pgUp && (await redisReachable(redisUrl));
    const wanted = (process.env.BENCH_STORES ?? 'sqlite,postgres,postgres+redis').split(',').map((s) => s.trim());
    console.log(`\ncheckout bench: ${buyers} buyers, ${connections} connections, ${rounds} rounds of ${seconds} s per backend (hold → order → signed callback → ticketed)`);
    for (const backend of ['sqlite', 'postgres', 'postgres+redis'] as const) {
      if (!wanted.includes(backend)) continue;
      if (backend !== 'sqlite' && !pgUp) { console.log(`  ${backend}: skipped (no PostgreSQL at ${databaseUrl})`); continue; }
      if (backend === 'postgres+redis' && !redisUp) { console.log(`  ${backend}: skipped (no Redis at ${redisUrl})`); continue; }
      await benchBackend(backend, hello, dataDir);
    }
  } finally {
    await hello.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
