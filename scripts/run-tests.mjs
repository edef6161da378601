#!/usr/bin/env node
// Runs every vitest suite on SQLite (the embedded default), then the booking suites again on
// PostgreSQL when it answers at TICKETRUSH_TEST_DATABASE_URL, then a short third pass on
// PostgreSQL + Redis (the gate's suites, the multi-process test and a few booking suites) when
// Redis answers too at TICKETRUSH_TEST_REDIS_URL; a pass that cannot run says plainly that it was
// skipped and how to enable it. Extra arguments go to every vitest run.
// --quick (npm run test:quick) is a first check in a couple of minutes: the domain, store contract
// and HTTP suites on SQLite only, with no browser, no load test and no PostgreSQL pass.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import pg from 'pg';

const databaseUrl = process.env.TICKETRUSH_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
/** The suites that touch the store: each runs once more with TICKETRUSH_TEST_STORE=postgres. */
const bookingSuites = [
  ...[
    'booking-api',
    'best-available',
    'hold-states',
    'idempotency-takeover',
    'payments-tickets',
    'purchase-limit',
    'order-ownership',
    'checkin',
    'conditional-get',
    'roles',
    'engine-holes',
    'show-list',
    'usernames',
    'live-events',
    'door-organizer',
    'account-throttling',
    'availability',
    'pg-busy',
    'stale-accounts',
    'holds-orders',
    'door-desk',
    'organizer-shows',
    'tickets-pdf',
    'multi-process-read-model',
    'code-pools',
    'webhooks',
    'flash-sales',
    'bargains',
    'stripe',
    'discounts',
    'waitlist',
    'ops-metrics',
    'notifications',
    'audit-log',
    'refunds',
    'exchanges',
    'buying-limits',
    'blocklist',
    'idempotent-holds',
    'waiting-room',
    'load-shedding',
  ].map((name) => `test/http/${name}.test.ts`),
  'test/race', 'test/restart/crash-recovery.test.ts', 'test/restart/killed-process-jobs.test.ts', 'test/restart/cancellation-resume.test.ts', 'test/contract', 'test/load', 'test/app',
  'test/cli/start-up.test.ts', 'test/cli/many-processes.test.ts', 'test/cli/workers.test.ts', 'test/cli/dependencies.test.ts',
  'test/cli/audit.test.ts',
];
/** The Redis gate over PostgreSQL: in the postgres+redis passes only (it needs Redis; skipped, saying so, when none answers). */
const gateSuites = ['test/gate'];
/**
 * The default run's third pass, on PostgreSQL + Redis: short (about 3 minutes on a 2-core machine),
 * the suites where the gate changes what happens: the gate's own, the multi-process rush (Redis
 * flushed mid-rush, the gate's audit) and the hold, order and payment paths through the gate.
 * `--only=postgres+redis` runs every booking suite on it instead.
 */
const redisSuites = [...gateSuites, 'test/load/multi-process.test.ts', ...['hold-states', 'booking-api', 'payments-tickets'].map((name) => `test/http/${name}.test.ts`)];
/** The quick pass: pure domain, the store contract and the API through inject(), on SQLite. */
const quickSuites = ['test/domain', 'test/contract', 'test/http'];
// --only=sqlite or --only=postgres runs one of the two passes; --only=postgres+redis runs the
// booking suites on PostgreSQL with the Redis gate in front (TICKETRUSH_TEST_REDIS_URL, default
// redis://127.0.0.1:6379; every test node uses a key prefix of its own), and only that pass.
const only = process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length);
const quick = process.argv.includes('--quick');
const extra = process.argv.slice(2).filter((a) => !a.startsWith('--only=') && a !== '--quick');

// The timing report (scripts/test-timings.mjs) reads what test/support/timing-reporter.ts writes in this run.
rmSync('test-results/timings.jsonl', { force: true });
const started = Date.now();
const report = () => spawnSync(process.execPath, ['scripts/test-timings.mjs'], { stdio: 'inherit' });

if (quick) {
  const ok = vitestRun('sqlite', quickSuites);
  report();
  console.log(`\n${ok ? 'passed' : 'FAILED'}: quick check (${quickSuites.join(', ')} on sqlite) in ${Math.round((Date.now() - started) / 1000)} s; \`npm test\` runs everything`);
  process.exit(ok ? 0 : 1);
}

/** Latency-bound suites run alone after the rest, each on its own, so no other file's load skews their figures. */
// The multi-process rush runs three servers and 300 buyers on its own too: beside other files its
// 60 s idempotency takeover and settling would race their load for the same cores.
const alone = ['test/load/herd.test.ts', 'test/load/multi-process.test.ts'];

function vitestRun(store, args, exclude = []) {
  console.log(`\n=== vitest on ${store}: ${args.join(' ') || 'all'}${exclude.length > 0 ? ` (without ${exclude.join(', ')})` : ''} ===`);
  const env = { ...process.env, TICKETRUSH_TEST_STORE: store, TICKETRUSH_TEST_EXCLUDE: exclude.join(',') };
  const run = spawnSync('npx', ['vitest', 'run', ...args, ...extra], { stdio: 'inherit', env });
  return run.status === 0;
}

/** Whether `file` is among `paths` (files or directories; none: every suite). */
const selected = (file, paths) => paths.length === 0 || paths.some((p) => file === p || file.startsWith(`${p}/`));

function vitest(store, paths) {
  const isolate = alone.filter((file) => selected(file, paths));
  const others = paths.filter((p) => !isolate.includes(p));
  const rest = others.length === 0 && paths.length > 0 ? true : vitestRun(store, others, alone);
  const isolated = isolate.map((file) => vitestRun(store, [file]));
  return rest && isolated.every(Boolean);
}

async function reachable() {
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    await client.end().catch(() => undefined);
  }
}

if (only === 'postgres+redis') {
  const down = (await reachable()) ?? (await redisReachable());
  if (down !== null) {
    console.log(`\npostgres+redis suites not run: ${down}`);
    process.exit(1);
  }
  const ok = vitest('postgres+redis', [...bookingSuites, ...gateSuites]);
  report();
  console.log(`\n${ok ? 'passed' : 'FAILED'}: postgres+redis (booking suites and the gate's)`);
  process.exit(ok ? 0 : 1);
}

/** Null when Redis answers PING at TICKETRUSH_TEST_REDIS_URL, else why not. */
async function redisReachable() {
  const { Redis } = await import('ioredis');
  const redis = new Redis(process.env.TICKETRUSH_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379', { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 2_000, retryStrategy: () => null });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    await redis.ping();
    return null;
  } catch (error) {
    return `Redis: ${error instanceof Error ? error.message : String(error)}`;
  } finally {
    redis.disconnect();
  }
}

const results = only === 'postgres' ? [] : [['sqlite (all suites)', vitest('sqlite', [])]];
const unreachable = only === 'sqlite' ? 'not asked for (--only=sqlite)' : await reachable();
const redacted = databaseUrl.replace(/:\/\/([^:@/]+):[^@/]*@/, '://$1:***@');
const redisUrl = process.env.TICKETRUSH_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const skipped = [];
if (unreachable === null) {
  results.push(['postgres (booking suites)', vitest('postgres', bookingSuites)]);
} else {
  console.log(`\nPostgreSQL suites skipped: no PostgreSQL answers at ${redacted} (${unreachable}). Start PostgreSQL or set TICKETRUSH_TEST_DATABASE_URL to run the booking suites on it too.`);
  skipped.push('postgres (booking suites) - PostgreSQL not reachable');
}
// The third pass: the default run only (--only=postgres runs PostgreSQL alone; --only=postgres+redis
// runs every booking suite with Redis, above).
if (only === undefined) {
  const redisDown = unreachable === null ? await redisReachable() : 'PostgreSQL not reachable';
  if (redisDown === null) {
    results.push(['postgres+redis (gate, multi-process, hold-states, booking-api, payments-tickets)', vitest('postgres+redis', redisSuites)]);
  } else {
    console.log(`\npostgres+redis suites skipped: ${redisDown} (Redis at ${redisUrl}). Start Redis (and PostgreSQL) or set TICKETRUSH_TEST_REDIS_URL to run the gate's suites and the multi-process test with Redis.`);
    skipped.push(`postgres+redis (gate, multi-process, a few booking suites) - ${redisDown}`);
  }
}
report();
console.log(`\nall passes in ${Math.round((Date.now() - started) / 1000)} s`);
for (const [name, ok] of results) console.log(`${ok ? 'passed' : 'FAILED'}: ${name}`);
for (const what of skipped) console.log(`skipped: ${what}`);
process.exit(results.every(([, ok]) => ok) ? 0 : 1);
