#!/usr/bin/env node
// Runs the test passes of scripts/test-passes.mjs: every suite on SQLite (the embedded default),
// the booking suites again on PostgreSQL when it answers at TICKETRUSH_TEST_DATABASE_URL, and a
// short third pass on PostgreSQL + Redis (the gate's suites, the multi-process test and a few
// booking suites) when Redis answers too at TICKETRUSH_TEST_REDIS_URL; a pass that cannot run says
// plainly that it was skipped and how to enable it. The passes run in one vitest run over one pool
// of workers (a vitest project each); then the latency-bound files run alone, one pass at a time.
// It ends with each pass's case counts and the ten slowest files (scripts/test-timings.mjs).
// Extra arguments go to every vitest run.
// --quick (npm run test:quick) is a first check in about two minutes: the domain, store contract
// and HTTP suites on SQLite only, with no browser, no load test and no PostgreSQL pass.
// --only=sqlite or --only=postgres runs one of the passes; --only=postgres+redis runs every
// booking suite and the gate's on PostgreSQL with the Redis gate in front
// (TICKETRUSH_TEST_REDIS_URL, default redis://127.0.0.1:6379; every test node uses a key prefix
// of its own), and only that pass.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import pg from 'pg';
import { alone, passes, selected } from './test-passes.mjs';

const databaseUrl = process.env.TICKETRUSH_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const redisUrl = process.env.TICKETRUSH_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const only = process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length);
const quick = process.argv.includes('--quick');
const extra = process.argv.slice(2).filter((a) => !a.startsWith('--only=') && a !== '--quick');

/** One vitest run of the named passes (TICKETRUSH_TEST_PASSES, read by vitest.config.ts). */
function vitestRun(names, files = [], exclude = []) {
  console.log(`\n=== vitest: ${names.join(', ')}${files.length > 0 ? `: ${files.join(' ')}` : ''}${exclude.length > 0 ? ` (without ${exclude.join(', ')}, run alone after)` : ''} ===`);
  const env = { ...process.env, TICKETRUSH_TEST_PASSES: names.join(','), TICKETRUSH_TEST_EXCLUDE: exclude.join(',') };
  const run = spawnSync('npx', ['vitest', 'run', ...files, ...extra], { stdio: 'inherit', env });
  return run.status === 0;
}

/** Null when PostgreSQL answers at TICKETRUSH_TEST_DATABASE_URL, else why not. */
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
async function redisReachable() {
  const { Redis } = await import('ioredis');
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 2_000, retryStrategy: () => null });
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

/** The passes this run asks for, and why the others are not run. */
async function chosenPasses() {
  if (quick) return { names: ['quick'], skipped: [] };
  if (only === 'sqlite') return { names: ['sqlite'], skipped: [] };
  const pgDown = await reachable();
  const redacted = databaseUrl.replace(/:\/\/([^:@/]+):[^@/]*@/, '://$1:***@');
  if (only === 'postgres' || only === 'postgres+redis') {
    const down = pgDown ?? (only === 'postgres+redis' ? await redisReachable() : null);
    if (down !== null) {
      console.log(`\n${only} suites not run: ${down}`);
      process.exit(1);
    }
    return { names: [only === 'postgres' ? 'postgres' : 'postgres+redis-all'], skipped: [] };
  }
  const names = ['sqlite'];
  const skipped = [];
  if (pgDown === null) {
    names.push('postgres');
  } else {
    console.log(`\nPostgreSQL suites skipped: no PostgreSQL answers at ${redacted} (${pgDown}). Start PostgreSQL or set TICKETRUSH_TEST_DATABASE_URL to run the booking suites on it too.`);
    skipped.push('postgres (booking suites) - PostgreSQL not reachable');
  }
  const redisDown = pgDown === null ? await redisReachable() : 'PostgreSQL not reachable';
  if (redisDown === null) {
    names.push('postgres+redis');
  } else {
    console.log(`\npostgres+redis suites skipped: ${redisDown} (Redis at ${redisUrl}). Start Redis (and PostgreSQL) or set TICKETRUSH_TEST_REDIS_URL to run the gate's suites and the multi-process test with Redis.`);
    skipped.push(`postgres+redis (gate, multi-process, a few booking suites) - ${redisDown}`);
  }
  return { names, skipped };
}

// The timing report (scripts/test-timings.mjs) reads what test/support/timing-reporter.ts writes in this run.
rmSync('test-results/timings.jsonl', { force: true });
rmSync('test-results/slow-cases.jsonl', { force: true });
const started = Date.now();
const { names, skipped } = await chosenPasses();
const shared = vitestRun(names, [], alone);
// The multi-process rush needs PostgreSQL: on SQLite it would only report itself skipped.
const lonely = names.flatMap((name) => alone.filter((file) => selected(file, passes[name].suites) && !(passes[name].store === 'sqlite' && file.endsWith('multi-process.test.ts'))).map((file) => [name, file]));
const aloneOk = lonely.map(([name, file]) => vitestRun([name], [file])).every(Boolean);
spawnSync(process.execPath, ['scripts/test-timings.mjs'], { stdio: 'inherit' });
const ok = shared && aloneOk;
console.log(`\n${ok ? 'passed' : 'FAILED'}: ${names.join(', ')} in ${Math.round((Date.now() - started) / 1000)} s${quick ? '; `npm test` runs everything' : ''}`);
for (const what of skipped) console.log(`skipped: ${what}`);
process.exit(ok ? 0 : 1);
