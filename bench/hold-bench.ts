// `npm run bench`: hold throughput and latency over real HTTP at 64 connections, reported as a
// ratio against a Fastify hello-world measured in the same run (this machine is noisy, so only
// ratios mean much; the two are measured back to back in interleaved rounds and the median round
// is reported). Targets (issue 2): hold throughput >= 50% of hello-world POST, p99 < 50 ms.
// Scenarios (issue 13), on each backend: holds of uncontended explicit seats; best-available holds
// under a herd (every request asks for the 2 best seats, so everyone wants the front rows); GA
// holds of one place on one counted section (the hot row). Backends: SQLite, and PostgreSQL when it
// answers at TICKETRUSH_TEST_DATABASE_URL (a fresh schema, dropped after); BENCH_STORES=sqlite or
// BENCH_STORES=postgres picks one. BENCH_SECONDS / BENCH_ROUNDS shorten a smoke run.
// Issue 14: the server's worst event-loop pause while a 100,000-seat show is created, first read
// and a third sold (monitorEventLoopDelay, through /metrics), and reads of that show (a 304, the
// compact availability) against a hello-world GET.
// Issue 22, 8(a) (BENCH_PARTS=soldout): a rush on a SOLD-OUT counted section over PostgreSQL +
// Redis (the gate of seed 003 in front): how many of the attempts reach PostgreSQL (table scans
// of the server's schema, pg_stat_user_tables, calibrated by the claims that sold it out; target
// < 1%), and the rate against a hello-world GET (target >= 0.5).
// Everything runs on 127.0.0.1, for a fixed duration; servers are child processes.
import autocannon, { type Options, type Result } from 'autocannon';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startChildServer, type ChildServer } from '../test/support/child-server.js';
import pg from 'pg';
import { createSchema, dropSchema, postgresReachable, uniqueSchemaName } from '../test/support/postgres.js';
import { measureColdHerds } from './cold-herd.js';
import { deleteRedisKeys } from '../test/support/redis.js';
import { treeCpuMs } from './process-cpu.js';
import { call, login } from './api-call.js';

const databaseUrl = process.env.TICKETRUSH_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
type Backend = 'sqlite' | 'postgres' | 'postgres+redis';
const redisUrl = process.env.TICKETRUSH_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const redisPrefixes: string[] = [];

const seconds = Number(process.env.BENCH_SECONDS ?? 6);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 64);
const warmupSeconds = 2;
/**
 * BENCH_PARTS=holds,stalls,reads,soldout,cold (all by default) runs only some parts, for a quick look at one.
 * cold: issue 22 item 8(c), the 500-buyer herd on a freshly started server (bench/cold-herd.ts).
 * soldout: issue 22 item 8(a), a rush on a sold-out section over PostgreSQL (+ Redis).
 * workers: issue 22 item 8(b), named-seat holds on `start --workers 2` over PostgreSQL + Redis
 * against one process on PostgreSQL alone.
 * ab (not in the default set): with BENCH_BASELINE_DIR or BENCH_BASELINE_ENV, a baseline's embedded hold against this build.
 */
const parts = new Set((process.env.BENCH_PARTS ?? 'holds,stalls,reads,soldout,cold,workers').split(',').map((p) => p.trim()));
const buyerCount = 64;
/** Fresh servers per backend for the cold-start herd (BENCH_COLD_ROUNDS). */
const coldRounds = Number(process.env.BENCH_COLD_ROUNDS ?? 3);
const admin = { username: 'bench-admin', password: 'bench-admin-password' };

interface Figures {
  readonly name: string;
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly non2xx: number;
  readonly errors: number;
  readonly total: number;
  /** CPU the server (process tree) used per request in the measured seconds, when asked (part ab/workers). */
  readonly cpuUsPerRequest?: number;
}

const children: ChildServer[] = [];
const dataDir = mkdtempSync(join(tmpdir(), 'ticketrush-bench-'));
const schemas: string[] = [];

async function measure(name: string, options: Options, serverPid?: number): Promise<Figures> {
  const cpuBefore = treeCpuMs(serverPid);
  const result: Result = await autocannon({ ...options, connections, duration: seconds });
  const cpuUsPerRequest = ((treeCpuMs(serverPid) - cpuBefore) * 1000) / Math.max(1, result.requests.total);
  const figures = {
    name,
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    total: result.requests.total,
    ...(serverPid === undefined ? {} : { cpuUsPerRequest }),
  };
  const cpu = figures.cpuUsPerRequest === undefined ? '' : `, server CPU ${Math.round(figures.cpuUsPerRequest)} us/request`;
  process.stdout.write(`  ${name}: ${Math.round(figures.requestsPerSecond)} req/s, p99 ${figures.p99Ms} ms${cpu}\n`);
  return figures;
}

type BenchSection = { id: string; rows: number; seatsPerRow: number } | { id: string; kind: 'GENERAL_ADMISSION'; capacity: number };

async function createShow(base: string, token: string, title: string, sections: BenchSection[]): Promise<string> {
  const now = Date.now();
  const reply = await call(base, 'POST', '/api/v1/admin/shows', {
    title,
    venue: 'Bench Arena',
    city: 'Localhost',
    startsAt: new Date(now + 7 * 86_400_000).toISOString(),
    saleStartsAt: new Date(now - 60_000).toISOString(),
    saleEndsAt: new Date(now + 86_400_000).toISOString(),
    seatMap: { sections: sections.map((s) => ({ ...s, name: `Section ${s.id}`, priceCents: 9900 })) },
  }, token);
  if (reply.status !== 201) throw new Error(`create show: ${reply.status} ${JSON.stringify(reply.json)}`);
  return reply.json.showId as string;
}

async function startTicketRush(backend: Backend, startArgs: readonly string[] = [], bin = 'bin/ticketrush.js', env: Record<string, string> = {}): Promise<ChildServer> {
  // BENCH_CPU_PROF=dir writes a V8 CPU profile of the TicketRush process there, to see where time goes.
  const profile = process.env.BENCH_CPU_PROF === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_CPU_PROF];
  const dir = mkdtempSync(join(dataDir, `${backend}-`));
  mkdirSync(dir, { recursive: true });
  let store: Record<string, string> = {};
  if (backend !== 'sqlite') {
    const schema = uniqueSchemaName();
    await createSchema(databaseUrl, schema);
    schemas.push(schema);
    store = { TICKETRUSH_DATABASE_URL: databaseUrl, TICKETRUSH_DATABASE_SCHEMA: schema };
    if (backend === 'postgres+redis') {
      const prefix = `bench:${schema}:`;
      redisPrefixes.push(prefix);
      store = { ...store, TICKETRUSH_REDIS_URL: redisUrl, TICKETRUSH_REDIS_PREFIX: prefix };
    }
  }
  return startChildServer([...profile, bin, 'start', ...startArgs], {
    ...process.env,
    ...store,
    PORT: '0',
    HOST: '127.0.0.1',
    TICKETRUSH_DATA_DIR: dir,
    TICKETRUSH_DEMO: '0',
    TICKETRUSH_LOG_LEVEL: 'info',
    TICKETRUSH_ADMIN_USER: admin.username,
    TICKETRUSH_ADMIN_PASSWORD: admin.password,
    // The bench's few buyers take thousands of seats each: it measures the hold path, not the per-buyer limit.
    TICKETRUSH_MAX_SEATS_PER_USER: '200000',
    // Nor the buying limits (issue 24): at their maximum they are still counted on every hold, so
    // the limiter's cost is in the figures, but its 64 buyers from one address are never refused.
    TICKETRUSH_RATE_LIMIT_HOLD_PER_USER_PER_MINUTE: '1000000',
    TICKETRUSH_RATE_LIMIT_HOLD_PER_IP_PER_MINUTE: '1000000',
    TICKETRUSH_RATE_LIMIT_CAMPAIGN_ORDER_PER_USER_PER_MINUTE: '1000000',
    TICKETRUSH_RATE_LIMIT_CAMPAIGN_ORDER_PER_IP_PER_MINUTE: '1000000',
    TICKETRUSH_RATE_LIMIT_ORDER_PER_USER_PER_MINUTE: '1000000',
    TICKETRUSH_RATE_LIMIT_ORDER_PER_IP_PER_MINUTE: '1000000',
    ...env,
  }, join(dir, 'ticketrush.log'));
}

/** The seat ids of sections of 100 rows x 100 seats, in the seat map's order. */
function seatIdsOf(sectionIds: readonly string[]): string[] {
  const seatIds: string[] = [];
  for (const id of sectionIds) for (let row = 1; row <= 100; row++) for (let n = 1; n <= 100; n++) seatIds.push(`${id}-${row}-${n}`);
  return seatIds;
}

/** A show of `seatsCount` seats (sections of 100 x 100) and its seat ids, for holds nobody else asks for. */
async function rushShow(base: string, token: string, title: string, sectionsCount: number): Promise<{ showId: string; seatIds: string[] }> {
  const sectionIds = Array.from({ length: sectionsCount }, (_, i) => `S${i + 1}`);
  const showId = await createShow(base, token, title, sectionIds.map((id) => ({ id, rows: 100, seatsPerRow: 100 })));
  const seatIds = seatIdsOf(sectionIds);
  // Loaded into the seat-map read model before anything is measured, as a sale's first visitors do.
  await call(base, 'GET', `/api/v1/shows/${showId}/availability`);
  return { showId, seatIds };
}

/** Holds every third seat of a rush show, 10 seats a hold, buyers taking turns (the show then compresses like a real sale). */
async function holdThird(base: string, show: { showId: string; seatIds: string[] }, tokens: readonly string[]): Promise<void> {
  const third = show.seatIds.filter((_, i) => i % 3 === 0);
  const batches = Array.from({ length: Math.ceil(third.length / 10) }, (_, b) => third.slice(b * 10, b * 10 + 10));
  for (let i = 0; i < batches.length; i += 32) {
    await Promise.all(batches.slice(i, i + 32).map((seatIds, k) => call(base, 'POST', `/api/v1/shows/${show.showId}/holds`, { seatIds, holdSeconds: 900 }, tokens[(i + k) % tokens.length])));
  }
}

function holdRequests(base: string, showId: string, seatIds: readonly string[], tokens: readonly string[]): Options {
  return holdBodies(base, showId, tokens, (i) => ({ seatIds: [seatIds[i % seatIds.length]] }));
}

/** POST holds with the body `bodyOf(i)` for the i-th request, buyers taking turns. */
function holdBodies(base: string, showId: string, tokens: readonly string[], bodyOf: (i: number) => unknown): Options {
  let next = 0;
  return {
    url: base,
    requests: [{
      method: 'POST',
      path: `/api/v1/shows/${showId}/holds`,
      setupRequest: (request) => {
        const i = next++;
        return {
          ...request,
          headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens[i % tokens.length] ?? ''}` },
          body: JSON.stringify(bodyOf(i)),
        };
      },
    }],
  };
}

interface Scenario {
  readonly name: string;
  /** A fresh show for one measured round, and the requests against it. */
  prepare(base: string, adminToken: string, tokens: readonly string[], round: number): Promise<Options>;
}

const allScenarios: readonly Scenario[] = [
  {
    name: 'POST hold (explicit seat)',
    async prepare(base, adminToken, tokens, round) {
      // 100,000 fresh seats a round: every measured hold takes a seat nobody else asked for.
      const show = await rushShow(base, adminToken, `Bench rush ${round}`, 10);
      return holdRequests(base, show.showId, show.seatIds, tokens);
    },
  },
  {
    name: 'POST hold (2 best-available, herd)',
    async prepare(base, adminToken, tokens, round) {
      // Every request asks for the 2 best seats of one 100,000-seat show: all want the front rows.
      const { showId } = await rushShow(base, adminToken, `Bench herd ${round}`, 10);
      return holdBodies(base, showId, tokens, () => ({ quantity: 2, section: 'S1' }));
    },
  },
  {
    // Issue 23: the buyer's one step (units + order awaiting payment, one store operation, then the
    // sandbox provider), every request on the same item. The per-buyer limit is the most a sale
    // allows (100): 64 buyers take at most 6,400 units a round, so refusals (non-2xx) past that
    // rate say the bench, not the store, ran out.
    name: 'POST flash-sale order (1 unit, one hot item)',
    async prepare(base, adminToken, tokens, round) {
      const now = Date.now();
      const created = await call(base, 'POST', '/api/v1/admin/flash-sales', {
        title: `Bench flash ${round}`, saleStartsAt: new Date(now - 60_000).toISOString(), saleEndsAt: new Date(now + 86_400_000).toISOString(), maxPerUser: 100,
        items: [{ itemId: 'HOT', name: 'Hot item', priceCents: 990, originalPriceCents: 9900, stock: 1_000_000 }],
      }, adminToken);
      if (created.status !== 201) throw new Error(`create flash sale: ${created.status} ${JSON.stringify(created.json)}`);
      const saleId = created.json.flashSaleId as string;
      let next = 0;
      return {
        url: base,
        requests: [{
          method: 'POST',
          path: `/api/v1/flash-sales/${saleId}/orders`,
          setupRequest: (request) => {
            const i = next++;
            return {
              ...request,
              headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens[i % tokens.length] ?? ''}`, 'x-idempotency-key': `bench-${round}-${i}` },
              body: JSON.stringify({ itemId: 'HOT', quantity: 1 }),
            };
          },
        }],
      };
    },
  },
  {
    name: 'POST hold (1 GA place, one section)',
    async prepare(base, adminToken, tokens, round) {
      const showId = await createShow(base, adminToken, `Bench GA ${round}`, [{ id: 'GA', kind: 'GENERAL_ADMISSION', capacity: 200_000 }]);
      await call(base, 'GET', `/api/v1/shows/${showId}/availability`);
      return holdBodies(base, showId, tokens, () => ({ section: 'GA', quantity: 1 }));
    },
  },
];

/** BENCH_SCENARIOS=flash,GA (all by default) runs only the scenarios whose names contain one of these words. */
const scenarioFilter = process.env.BENCH_SCENARIOS?.split(',').map((w) => w.trim().toLowerCase()).filter((w) => w !== '') ?? [];
const scenarios = scenarioFilter.length === 0 ? allScenarios : allScenarios.filter((s) => scenarioFilter.some((w) => s.name.toLowerCase().includes(w)));

async function selectedBackends(): Promise<Backend[]> {
  const asked = process.env.BENCH_STORES?.split(',').map((s) => s.trim()).filter((s): s is Backend => s === 'sqlite' || s === 'postgres' || s === 'postgres+redis');
  const reachable = await postgresReachable(databaseUrl);
  if (!reachable.ok) process.stdout.write(`PostgreSQL not reachable at ${databaseUrl} (${reachable.reason}): benching SQLite only\n`);
  // PostgreSQL + Redis (the gate in front) is benched for the sold-out rush part.
  const defaults: Backend[] = parts.has('soldout') ? ['sqlite', 'postgres', 'postgres+redis'] : ['sqlite', 'postgres'];
  return (asked ?? defaults).filter((b) => b === 'sqlite' || reachable.ok);
}

/**
 * The longest event-loop pause of the server (its `nodejs_eventloop_lag_max_seconds`, which
 * prom-client takes from `monitorEventLoopDelay` and resets at every scrape) while `work` runs:
 * one scrape before to start a fresh window, the work, one scrape after.
 */
async function worstPauseMs(base: string, work: () => Promise<void>): Promise<number> {
  const lagMax = async (): Promise<number> => {
    const text = await fetch(`${base}/metrics`).then((r) => r.text());
    const line = text.split('\n').find((l) => l.startsWith('nodejs_eventloop_lag_max_seconds'));
    return Number(line?.split(' ')[1] ?? Number.NaN) * 1000;
  };
  await lagMax();
  await work();
  return lagMax();
}

/**
 * Issue 14, item 1: the server's worst pause while a 100,000-seat show is created, its map and
 * availability are read for the first time, and a third of its seats change (3,334 holds of 10
 * seats, 32 at a time), each with `/healthz` answered in between. Target: no pause over 50 ms.
 */
async function measureStalls(base: string, adminToken: string, tokens: readonly string[]): Promise<Record<string, number>> {
  const sectionIds = Array.from({ length: 10 }, (_, i) => `S${i + 1}`);
  let showId = '';
  const figures: Record<string, number> = {};
  figures['create a 100,000-seat show'] = await worstPauseMs(base, async () => {
    showId = await createShow(base, adminToken, 'Bench stalls', sectionIds.map((id) => ({ id, rows: 100, seatsPerRow: 100 })));
  });
  figures['first availability read'] = await worstPauseMs(base, async () => {
    await call(base, 'GET', `/api/v1/shows/${showId}/availability`);
  });
  figures['first full seat map read (11 MB)'] = await worstPauseMs(base, async () => {
    await fetch(`${base}/api/v1/shows/${showId}/seats`).then((r) => r.arrayBuffer());
  });
  const seatIds = seatIdsOf(sectionIds);
  figures['30% of the seats held (3,334 holds), map re-read'] = await worstPauseMs(base, async () => {
    await holdThird(base, { showId, seatIds }, tokens);
    await fetch(`${base}/api/v1/shows/${showId}/seats`).then((r) => r.arrayBuffer());
  });
  for (const [step, ms] of Object.entries(figures)) process.stdout.write(`  worst event-loop pause, ${step}: ${ms.toFixed(1)} ms\n`);
  return figures;
}

/** Index and sequential scans of every table of the server's schema so far (PostgreSQL's own counters). */
async function schemaScans(schema: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    // Backends publish their counters when idle, within PGSTAT_IDLE_INTERVAL (10 s): wait it out.
    await new Promise((resolve) => setTimeout(resolve, 11_000));
    const reply = await client.query<{ scans: string }>('SELECT COALESCE(SUM(COALESCE(seq_scan, 0) + COALESCE(idx_scan, 0)), 0) AS scans FROM pg_stat_user_tables WHERE schemaname = $1', [schema]);
    return Number(reply.rows[0]?.scans ?? 0);
  } finally {
    await client.end();
  }
}

/**
 * Issue 22, 8(a): a standing section is sold out through the API (those claims calibrate what one
 * claim costs PostgreSQL in table scans), then a rush of one-place holds on it is measured against
 * a hello-world GET, interleaved by round. Every attempt must be refused (409) by the Redis gate:
 * the scans PostgreSQL counted meanwhile, in claims, over the attempts is the share that reached it.
 */
async function measureSoldOut(base: string, adminToken: string, tokens: readonly string[], helloGetUrl: string, schema: string): Promise<Record<string, number>> {
  const capacity = 200;
  const showId = await createShow(base, adminToken, 'Bench sold out', [{ id: 'GA', kind: 'GENERAL_ADMISSION', capacity }]);
  // The first claim finds the gate not built and rebuilds it; the claims that sell out go through it.
  const first = await call(base, 'POST', `/api/v1/shows/${showId}/holds`, { section: 'GA', quantity: 1, holdSeconds: 900 }, tokens[0]);
  if (first.status !== 201) throw new Error(`sold-out bench: first hold ${first.status}`);
  await new Promise((resolve) => setTimeout(resolve, 200));
  const before = await schemaScans(schema);
  const sellingClaims = capacity - 1;
  for (let i = 0; i < sellingClaims; i++) {
    const reply = await call(base, 'POST', `/api/v1/shows/${showId}/holds`, { section: 'GA', quantity: 1, holdSeconds: 900 }, tokens[i % tokens.length]);
    if (reply.status !== 201) throw new Error(`sold-out bench: selling hold ${i}: ${reply.status} ${JSON.stringify(reply.json)}`);
  }
  const sold = await schemaScans(schema);
  const scansPerClaim = (sold - before) / sellingClaims;
  const ratios: number[] = [];
  let attempts = 0;
  let refused = 0;
  for (let round = 1; round <= rounds; round++) {
    const helloGet = await measure(`round ${round}: hello-world GET (baseline)`, { url: helloGetUrl });
    const rush = await measure(`round ${round}: POST hold on a sold-out section`, holdBodies(base, showId, tokens, () => ({ section: 'GA', quantity: 1 })));
    ratios.push(rush.requestsPerSecond / helloGet.requestsPerSecond);
    attempts += rush.total;
    refused += rush.non2xx;
  }
  const after = await schemaScans(schema);
  const reachedShare = scansPerClaim > 0 ? (after - sold) / scansPerClaim / Math.max(1, attempts) : Number.NaN;
  process.stdout.write(`  sold-out rush: ${attempts} attempts, ${refused} refused; PostgreSQL table scans: ${sold - before} for ${sellingClaims} selling claims (${scansPerClaim.toFixed(1)} a claim), ${after - sold} during the rush = ${(reachedShare * 100).toFixed(3)}% of attempts\n`);
  return { ratioToHelloGet: median(ratios), attempts, refused, scansPerClaim, rushScans: after - sold, reachedShare };
}

/** Logs the admin and `buyerCount` fresh buyers in, and warms the server's JIT with named-seat holds. */
async function buyersAndWarmUp(base: string): Promise<{ adminToken: string; tokens: string[] }> {
  const adminToken = await login(base, admin.username, admin.password);
  const tokens: string[] = [];
  for (let i = 0; i < buyerCount; i++) {
    const username = `bench-buyer-${i}`;
    await call(base, 'POST', '/api/v1/auth/register', { username, password: 'bench-password-1' });
    tokens.push(await login(base, username, 'bench-password-1'));
  }
  // Warm the JIT once; then each round measures the baseline and each scenario back to back, so
  // they see the same machine, and the median round's ratio is reported.
  const warmup = await rushShow(base, adminToken, 'Bench warm-up', 5);
  await autocannon({ ...holdRequests(base, warmup.showId, warmup.seatIds, tokens), connections, duration: warmupSeconds });
  return { adminToken, tokens };
}

interface AlternatingFigures {
  readonly ratios: number[];
  readonly ratio: number;
  readonly p99Ms: number;
  readonly non2xx: number;
  /** Server CPU per hold over the hello-world's CPU per request, per round (steadier than req/s on a busy machine). */
  readonly cpuRatios: number[];
  readonly holdCpuUs: number[];
}

interface Setup {
  readonly name: string;
  readonly backend: Backend;
  readonly args?: readonly string[];
  /** Another build's bin/ticketrush.js (BENCH_BASELINE_DIR), for a before/after in one run. */
  readonly bin?: string;
  /** Settings of this server only (BENCH_BASELINE_ENV), e.g. to see what a setting costs. */
  readonly env?: Record<string, string>;
}

/**
 * Named-seat holds (one fresh seat a request) on each of `setups`, each as a ratio to the
 * hello-world POST measured just before it. Every server runs for the whole part and the rounds
 * alternate A/B/A/B, so all see the same (shared, noisy) machine; the ranges are reported.
 */
async function measureAlternating(setups: readonly Setup[], helloPostOptions: Options, rows: Figures[], helloPid: number | undefined): Promise<Record<string, AlternatingFigures>> {
  const servers: { name: string; base: string; pid: number | undefined; adminToken: string; tokens: string[] }[] = [];
  for (const setup of setups) {
    const server = await startTicketRush(setup.backend, setup.args, setup.bin, setup.env);
    children.push(server);
    // With --workers a first request may land on a worker still starting: the warm-up (thousands
    // of holds spread over the workers by node:cluster) runs before anything is measured.
    servers.push({ name: setup.name, base: server.url, pid: server.child.pid, ...(await buyersAndWarmUp(server.url)) });
  }
  const byName = new Map<string, { ratio: number; cpuRatio: number; hold: Figures }[]>();
  for (let round = 1; round <= rounds; round++) {
    for (const server of servers) {
      const show = await rushShow(server.base, server.adminToken, `Bench alternating ${round}`, 10);
      const helloPost = await measure(`round ${round}: hello-world POST (baseline)`, helloPostOptions, helloPid);
      const hold = await measure(`round ${round}: ${server.name}: POST hold (explicit seat)`, holdRequests(server.base, show.showId, show.seatIds, server.tokens), server.pid);
      rows.push(helloPost, hold);
      if (hold.non2xx > 0 || hold.errors > 0) process.stdout.write(`  note: ${hold.non2xx} non-2xx, ${hold.errors} errors\n`);
      const cpuRatio = (helloPost.cpuUsPerRequest ?? Number.NaN) / (hold.cpuUsPerRequest ?? Number.NaN);
      byName.set(server.name, [...(byName.get(server.name) ?? []), { ratio: hold.requestsPerSecond / helloPost.requestsPerSecond, cpuRatio, hold }]);
    }
  }
  return Object.fromEntries([...byName].map(([name, r]) => [name, {
    ratios: r.map((x) => x.ratio),
    ratio: median(r.map((x) => x.ratio)),
    p99Ms: median(r.map((x) => x.hold.p99Ms)),
    non2xx: r.reduce((sum, x) => sum + x.hold.non2xx + x.hold.errors, 0),
    cpuRatios: r.map((x) => x.cpuRatio),
    holdCpuUs: r.map((x) => x.hold.cpuUsPerRequest ?? Number.NaN),
  }]));
}

/** Issue 22, 8(b): `start --workers 2` over PostgreSQL + Redis against one process on PostgreSQL alone. */
const workerSetups: readonly Setup[] = [
  { name: 'PostgreSQL, one process', backend: 'postgres' },
  { name: 'PostgreSQL + Redis, --workers 2', backend: 'postgres+redis', args: ['--workers', '2'] },
];

/**
 * BENCH_PARTS=ab: the embedded store's named-seat hold on a baseline against this build,
 * alternating, to measure a change before/after in the same run. The baseline is another build
 * (BENCH_BASELINE_DIR: a directory with bin/ and dist/ of another commit, node_modules beside
 * them), or this build with other settings (BENCH_BASELINE_ENV=KEY=value,KEY=value), or both.
 */
function abSetups(baselineDir: string | undefined, baselineEnv: string | undefined): readonly Setup[] {
  const env = Object.fromEntries((baselineEnv ?? '').split(',').filter((kv) => kv.includes('=')).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
  return [
    { name: `SQLite, baseline (${[baselineDir ?? 'this build', baselineEnv ?? ''].filter((x) => x !== '').join(', ')})`, backend: 'sqlite', env, ...(baselineDir === undefined ? {} : { bin: join(baselineDir, 'bin/ticketrush.js') }) },
    { name: 'SQLite, this build', backend: 'sqlite' },
  ];
}


const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

async function main(): Promise<void> {
  process.stdout.write(`TicketRush bench: ${connections} connections, ${rounds} interleaved rounds of ${seconds} s per scenario (+${warmupSeconds} s warm-up)\n`);
  const hello = await startChildServer(['--import', 'tsx', 'bench/hello-server.ts'], process.env, join(dataDir, 'hello.log'));
  children.push(hello);
  const helloPostOptions: Options = { url: `${hello.url}/hello`, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ seatIds: ['A-1-1'] }) };
  await autocannon({ ...helloPostOptions, connections, duration: warmupSeconds });
  const rows: Figures[] = [];
  const summary: Record<string, Record<string, { ratios: number[]; ratio: number; p99Ms: number }>> = {};
  const extra: Record<string, number> = {};
  const stalls: Record<string, Record<string, number>> = {};
  let cold: Awaited<ReturnType<typeof measureColdHerds>> = {};
  const soldOut: Record<string, Record<string, number>> = {};

  // Only the parts that run per backend start one server per backend (workers and cold start their own).
  const perBackend = ['holds', 'stalls', 'reads', 'soldout'].some((part) => parts.has(part));
  for (const backend of perBackend ? await selectedBackends() : []) {
    process.stdout.write(`\n== ${backend} ==\n`);
    const server = await startTicketRush(backend);
    children.push(server);
    const base = server.url;
    const { adminToken, tokens } = await buyersAndWarmUp(base);
    const perScenario = new Map<string, { hello: Figures; hold: Figures; ratio: number }[]>();
    for (let round = 1; round <= (parts.has('holds') ? rounds : 0); round++) {
      for (const scenario of scenarios) {
        const options = await scenario.prepare(base, adminToken, tokens, round);
        const helloPost = await measure(`${backend} round ${round}: hello-world POST (baseline)`, helloPostOptions);
        const hold = await measure(`${backend} round ${round}: ${scenario.name}`, options);
        rows.push(helloPost, hold);
        perScenario.set(scenario.name, [...(perScenario.get(scenario.name) ?? []), { hello: helloPost, hold, ratio: hold.requestsPerSecond / helloPost.requestsPerSecond }]);
        if (hold.non2xx > 0 || hold.errors > 0) process.stdout.write(`  note: ${hold.non2xx} non-2xx, ${hold.errors} errors\n`);
      }
    }
    // On PostgreSQL alone the same rush is refused by the process's in-memory read model: the comparison.
    if (backend !== 'sqlite' && parts.has('soldout')) soldOut[backend] = await measureSoldOut(base, adminToken, tokens, `${hello.url}/hello`, schemas[schemas.length - 1] as string);
    summary[backend] = Object.fromEntries([...perScenario].map(([name, r]) => [name, { ratios: r.map((x) => x.ratio), ratio: median(r.map((x) => x.ratio)), p99Ms: median(r.map((x) => x.hold.p99Ms)) }]));
    if (parts.has('stalls')) stalls[backend] = await measureStalls(base, adminToken, tokens);
    if (backend === 'sqlite' && parts.has('reads')) {
      // Issue 14: reads of the seeds' hot show (100,000 seats, a third of it held) against a
      // hello-world GET, interleaved by round: a revalidation that answers 304, and the compact
      // availability (bitmap, brotli) that a client reads instead of the 11 MB map.
      const big = await rushShow(base, adminToken, 'Bench 100k reads', 10);
      await holdThird(base, big, tokens);
      const mapEtag = (await fetch(`${base}/api/v1/shows/${big.showId}/seats`).then(async (r) => { await r.arrayBuffer(); return r.headers.get('etag'); })) ?? '';
      const reads: Record<string, { url: string; headers?: Record<string, string> }> = {
        'GET seat map 304 (100,000 seats, If-None-Match)': { url: `${base}/api/v1/shows/${big.showId}/seats`, headers: { 'if-none-match': mapEtag } },
        'GET availability (100,000 seats, br)': { url: `${base}/api/v1/shows/${big.showId}/availability`, headers: { 'accept-encoding': 'br' } },
      };
      const readRatios: Record<string, number[]> = {};
      for (let round = 1; round <= rounds; round++) {
        for (const [name, options] of Object.entries(reads)) {
          const helloGet = await measure(`round ${round}: hello-world GET (baseline)`, { url: `${hello.url}/hello` });
          const read = await measure(`round ${round}: ${name}`, options);
          rows.push(helloGet, read);
          (readRatios[name] ??= []).push(read.requestsPerSecond / helloGet.requestsPerSecond);
        }
      }
      for (const [name, ratios] of Object.entries(readRatios)) extra[name] = median(ratios);
    }
    await server.stop();
  }

  if (parts.has('cold')) {
    // Fresh servers of their own (one per round), after the others have stopped.
    process.stdout.write(`\n== cold start: ${coldRounds} fresh servers per backend ==\n`);
    cold = await measureColdHerds((await selectedBackends()).filter((b): b is 'sqlite' | 'postgres' => b === 'sqlite' || b === 'postgres'), coldRounds);
  }

  const alternating: Record<string, AlternatingFigures> = {};
  if (parts.has('workers') && (await postgresReachable(databaseUrl)).ok) {
    process.stdout.write('\n== workers: --workers 2 on PostgreSQL + Redis against one process on PostgreSQL ==\n');
    Object.assign(alternating, await measureAlternating(workerSetups, helloPostOptions, rows, hello.child.pid));
  }
  const baselineDir = process.env.BENCH_BASELINE_DIR;
  const baselineEnv = process.env.BENCH_BASELINE_ENV;
  if (parts.has('ab') && (baselineDir !== undefined || baselineEnv !== undefined)) {
    process.stdout.write('\n== ab: the embedded hold, a baseline against this build ==\n');
    Object.assign(alternating, await measureAlternating(abSetups(baselineDir, baselineEnv), helloPostOptions, rows, hello.child.pid));
  }

  process.stdout.write('\n| scenario | req/s | p50 ms | p99 ms | non-2xx | errors |\n|---|---:|---:|---:|---:|---:|\n');
  for (const f of rows) process.stdout.write(`| ${f.name} | ${Math.round(f.requestsPerSecond)} | ${f.p50Ms} | ${f.p99Ms} | ${f.non2xx} | ${f.errors} |\n`);
  process.stdout.write('\n| backend | scenario | / hello-world POST (median round) | rounds | p99 ms |\n|---|---|---:|---|---:|\n');
  for (const [backend, byScenario] of Object.entries(summary)) {
    for (const [name, s] of Object.entries(byScenario)) {
      process.stdout.write(`| ${backend} | ${name} | ${(s.ratio * 100).toFixed(1)}% | ${s.ratios.map((r) => `${(r * 100).toFixed(1)}%`).join(', ')} | ${s.p99Ms} |\n`);
    }
  }
  const explicit = summary.sqlite?.['POST hold (explicit seat)'];
  if (explicit !== undefined) {
    process.stdout.write(`\nembedded hold / hello-world POST: ${(explicit.ratio * 100).toFixed(1)}% (target >= 50%: ${explicit.ratio >= 0.5 ? 'PASS' : 'FAIL'}), p99 ${explicit.p99Ms} ms (target < 50 ms: ${explicit.p99Ms < 50 ? 'PASS' : 'FAIL'})\n`);
  }
  for (const [name, w] of Object.entries(alternating)) {
    process.stdout.write(`named-seat hold, ${name} / hello-world POST: median ${(w.ratio * 100).toFixed(1)}%, range ${(Math.min(...w.ratios) * 100).toFixed(1)}-${(Math.max(...w.ratios) * 100).toFixed(1)}% (rounds ${w.ratios.map((r) => `${(r * 100).toFixed(1)}%`).join(', ')}), p99 ${w.p99Ms} ms, ${w.non2xx} non-2xx/errors; server CPU per hold ${w.holdCpuUs.map((us) => Math.round(us)).join(', ')} us = hello-world's CPU per request x ${w.cpuRatios.map((c) => (1 / c).toFixed(1)).join(', ')} (median ratio ${(median(w.cpuRatios) * 100).toFixed(1)}%)\n`);
  }
  for (const [name, ratio] of Object.entries(extra)) {
    const target = name.includes('304') ? ` (target >= 80%: ${ratio >= 0.8 ? 'PASS' : 'FAIL'})` : '';
    process.stdout.write(`${name} / hello-world GET (median round): ${(ratio * 100).toFixed(1)}%${target}\n`);
  }

  for (const [backend, figures] of Object.entries(soldOut)) {
    const share = figures.reachedShare ?? Number.NaN;
    const ratio = figures.ratioToHelloGet ?? Number.NaN;
    process.stdout.write(`sold-out rush on ${backend}: ${((share) * 100).toFixed(3)}% of ${figures.attempts} attempts reached PostgreSQL (target < 1%: ${share < 0.01 ? 'PASS' : 'FAIL'}); / hello-world GET (median round): ${(ratio * 100).toFixed(1)}% (target >= 50%: ${ratio >= 0.5 ? 'PASS' : 'FAIL'})\n`);
  }
  for (const [backend, steps] of Object.entries(stalls)) {
    for (const [step, ms] of Object.entries(steps)) process.stdout.write(`${backend}: worst event-loop pause, ${step}: ${ms.toFixed(1)} ms (target <= 50 ms: ${ms <= 50 ? 'PASS' : 'FAIL'})\n`);
  }

  for (const [backend, r] of Object.entries(cold)) {
    process.stdout.write(`${backend}: cold-start herd p99 / /healthz herd p99 (median of ${r.rounds.length} fresh servers): ${r.ratio.toFixed(2)} (target <= 3: ${r.ratio <= 3 ? 'PASS' : 'FAIL'}); rounds: ${r.rounds.map((f) => `${f.holdsP99Ms.toFixed(0)}/${f.healthzP99Ms.toFixed(0)} ms`).join(', ')}\n`);
  }

  mkdirSync('bench/results', { recursive: true });
  writeFileSync('bench/results/latest.json', `${JSON.stringify({
    measuredAt: new Date().toISOString(),
    node: process.version,
    connections,
    seconds,
    rounds,
    scenarios: rows,
    ratiosToHelloPost: summary,
    ...extra,
    worstEventLoopPauseMs: stalls,
    coldStartHerd: cold,
    soldOutRush: soldOut,
    alternatingHolds: alternating,
    targets: { coldHerdToHealthzP99RatioMax: 3, holdToHelloRatioMin: 0.5, holdP99MsMax: 50, seatMap304ToHelloGetRatioMin: 0.8, eventLoopPauseMsMax: 50 },
  }, null, 2)}\n`);
}

async function cleanUp(): Promise<void> {
  await Promise.all(children.map((c) => c.stop()));
  for (const schema of schemas) await dropSchema(databaseUrl, schema).catch(() => undefined);
  for (const prefix of redisPrefixes) await deleteRedisKeys(redisUrl, prefix).catch(() => undefined);
  rmSync(dataDir, { recursive: true, force: true });
}

process.on('SIGINT', () => void cleanUp().then(() => process.exit(130)));
main().then(cleanUp, async (error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  await cleanUp();
  process.exitCode = 1;
});
