// `npm run bench` (after the hold bench), issue 23 item 8:
// 1. Code grabs on one hot pool over real HTTP at BENCH_CONNECTIONS (64) connections, every request
//    a different buyer (so each pops a code: the atomic path, not the "you already have one"
//    read), as a ratio to a Fastify hello-world POST measured in the same run, interleaved rounds,
//    median reported; on SQLite, and on PostgreSQL when it answers.
// 2. An export of BENCH_EXPORT_ROWS (1,000,000) winners of one pool as CSV over HTTP, from a server
//    started for it alone: rows/s and the server's peak RSS (VmHWM; goal < 150 MB). SQLite only
//    (seeding a million grabs into PostgreSQL takes longer than the bench is worth).
// Buyers and codes are seeded through the store port before the server starts (signing up a
// million buyers through scrypt would measure nothing); tokens are signed with the data dir's key.
import autocannon, { type Options, type Result } from 'autocannon';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openConfiguredStore } from '../src/compose.js';
import { loadConfig } from '../src/config.js';
import { createTokenService } from '../src/http/auth.js';
import type { Store } from '../src/ports/engine/index.js';
import { startChildServer, type ChildServer } from '../test/support/child-server.js';
import { createSchema, dropSchema, postgresReachable, uniqueSchemaName } from '../test/support/postgres.js';

type Backend = 'sqlite' | 'postgres';
const databaseUrl = process.env.TICKETRUSH_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const seconds = Number(process.env.BENCH_SECONDS ?? 6);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 64);
const exportRows = Number(process.env.BENCH_EXPORT_ROWS ?? 1_000_000);
/** Buyers (and codes) for the grab rounds: more than the rounds can take, so every grab pops. */
const sqliteGrabBuyers = Number(process.env.BENCH_GRAB_BUYERS ?? 150_000);
/** Seeding concurrency: SQLite takes thousands in a group commit; PostgreSQL's pool is small. */
let seedChunk = 5_000;
/** PostgreSQL grabs fewer a second: fewer buyers seeded (seeding is a transaction each). */
const pgGrabBuyers = Number(process.env.BENCH_PG_GRAB_BUYERS ?? 60_000);

const dataDir = mkdtempSync(join(tmpdir(), 'ticketrush-codes-bench-'));
const children: ChildServer[] = [];
const schemas: string[] = [];
const day = 86_400_000;

function serverEnv(backend: Backend, schema: string | null): Record<string, string> {
  const dir = join(dataDir, backend);
  mkdirSync(dir, { recursive: true });
  return {
    PORT: '0', HOST: '127.0.0.1', TICKETRUSH_DATA_DIR: dir, TICKETRUSH_DEMO: '0', TICKETRUSH_LOG_LEVEL: 'info', TICKETRUSH_RATE_LIMITS: 'off',
    ...(schema === null ? {} : { TICKETRUSH_DATABASE_URL: databaseUrl, TICKETRUSH_DATABASE_SCHEMA: schema }),
  };
}

async function seedUsers(store: Store, from: number, count: number, prefix: string): Promise<void> {
  for (let i = from; i < from + count; i += seedChunk) {
    await Promise.all(Array.from({ length: Math.min(seedChunk, from + count - i) }, (_, j) => store.insertUser({
      userId: `${prefix}${i + j}`, username: `${prefix}${i + j}`, passwordHash: 'x', role: 'BUYER', createdAt: Date.now(),
    })));
  }
}

async function seedCodes(store: Store, poolId: string, count: number): Promise<void> {
  for (let i = 0; i < count; i += 1_000) {
    const outcome = await store.importCodes({ poolId, codes: Array.from({ length: Math.min(1_000, count - i) }, (_, j) => `${poolId}-${i + j}`) });
    if (!outcome.ok) throw new Error(`import refused: ${outcome.code}`);
  }
}

async function newPool(store: Store, poolId: string): Promise<void> {
  const now = Date.now();
  await store.createCodePool({ poolId, title: poolId, description: '', imageUrl: null, saleStartsAt: now - day, saleEndsAt: now + day, createdAt: now });
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

async function measure(name: string, options: Options): Promise<{ rps: number; p99: number; non2xx: number }> {
  const result: Result = await autocannon({ ...options, connections, duration: seconds });
  process.stdout.write(`  ${name}: ${Math.round(result.requests.average)} req/s, p99 ${result.latency.p99} ms, non-2xx ${result.non2xx}\n`);
  return { rps: result.requests.average, p99: result.latency.p99, non2xx: result.non2xx };
}

/** Peak and current resident set of a process, in MB, from /proc. */
function memoryOf(pid: number): { peakMb: number; rssMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string): number => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN);
  return { peakMb: kb('VmHWM') / 1024, rssMb: kb('VmRSS') / 1024 };
}

async function grabBench(backend: Backend, hello: ChildServer): Promise<Record<string, unknown>> {
  const schema = backend === 'postgres' ? uniqueSchemaName() : null;
  if (schema !== null) {
    await createSchema(databaseUrl, schema);
    schemas.push(schema);
  }
  const env = serverEnv(backend, schema);
  const config = loadConfig({ ...env });
  const store = await openConfiguredStore(config);
  const started = performance.now();
  seedChunk = backend === 'postgres' ? 16 : 5_000;
  const grabBuyers = backend === 'postgres' ? pgGrabBuyers : sqliteGrabBuyers;
  await seedUsers(store, 0, grabBuyers, 'g');
  await newPool(store, 'hot');
  await seedCodes(store, 'hot', grabBuyers);
  await store.close();
  process.stdout.write(`${backend}: seeded ${grabBuyers} buyers and codes in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);

  const server = await startChildServer(['bin/ticketrush.js', 'start'], { ...process.env, ...env }, join(dataDir, `${backend}-grab.log`));
  children.push(server);
  const tokens = createTokenService(config.secrets.jwt, 3600);
  let next = 0;
  const grabOptions = (): Options => ({
    url: `${server.url}/api/v1/code-pools/hot/grab`,
    method: 'POST',
    requests: [{
      setupRequest: (request) => {
        const i = next++ % grabBuyers;
        return { ...request, headers: { ...request.headers, authorization: `Bearer ${tokens.issue({ userId: `g${i}`, username: `g${i}`, passwordHash: 'x', role: 'BUYER', createdAt: 0 })}` } };
      },
    }],
  });
  const helloOptions: Options = { url: `${hello.url}/hello`, method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' };
  await autocannon({ ...grabOptions(), connections, duration: 2 });
  const ratios: number[] = [];
  const p99s: number[] = [];
  let grabs = 0;
  for (let round = 1; round <= rounds; round++) {
    const h = await measure(`${backend} round ${round}: hello-world POST`, helloOptions);
    const g = await measure(`${backend} round ${round}: code grab (hot pool, a new buyer each)`, grabOptions());
    ratios.push(g.rps / h.rps);
    p99s.push(g.p99);
    grabs += g.rps * seconds;
  }
  const left = await fetch(`${server.url}/api/v1/code-pools/hot`).then((r) => r.json() as Promise<{ remaining: number }>);
  await server.stop();
  if (next >= grabBuyers) process.stdout.write(`  note: ${next} requests for ${grabBuyers} buyers: later grabs were repeats (200)\n`);
  return { ratio: median(ratios), ratios, p99Ms: median(p99s), requests: next, remaining: left.remaining, approxGrabs: Math.round(grabs) };
}

async function exportBench(grabsRan: boolean): Promise<Record<string, unknown>> {
  seedChunk = 5_000;
  const grabBuyers = grabsRan ? sqliteGrabBuyers : 0;
  const env = serverEnv('sqlite', null);
  const config = loadConfig({ ...env });
  const store = await openConfiguredStore(config);
  let started = performance.now();
  // The grab rounds' buyers are reused; the rest are added.
  await seedUsers(store, grabBuyers, Math.max(0, exportRows - grabBuyers), 'g');
  await newPool(store, 'big');
  await seedCodes(store, 'big', exportRows);
  for (let i = 0; i < exportRows; i += seedChunk) {
    await Promise.all(Array.from({ length: Math.min(seedChunk, exportRows - i) }, (_, j) => store.grabCode({ poolId: 'big', userId: `g${i + j}`, now: Date.now() })));
  }
  await store.close();
  process.stdout.write(`sqlite: seeded ${exportRows} winners in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);

  const server = await startChildServer(['bin/ticketrush.js', 'start'], { ...process.env, ...env }, join(dataDir, 'sqlite-export.log'));
  children.push(server);
  const pid = server.child.pid as number;
  const before = memoryOf(pid);
  // An admin token signed like the server's own (the bench seeds no password hashes).
  const adminUser = { userId: 'bench-admin', username: 'bench-admin', passwordHash: 'x', role: 'ADMIN' as const, createdAt: 0 };
  const admin = await openConfiguredStore(config);
  await admin.insertUser(adminUser);
  await admin.close();
  const bearer = createTokenService(config.secrets.jwt, 3600).issue(adminUser);
  started = performance.now();
  const response = await fetch(`${server.url}/api/v1/admin/code-pools/big/winners.csv`, { headers: { authorization: `Bearer ${bearer}` } });
  if (!response.ok || response.body === null) throw new Error(`export answered ${response.status}`);
  let bytes = 0;
  let lines = 0;
  let peakMb = before.peakMb;
  const sampler = setInterval(() => {
    peakMb = Math.max(peakMb, memoryOf(pid).peakMb);
  }, 200);
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.length;
    for (const byte of chunk) if (byte === 10) lines++;
  }
  clearInterval(sampler);
  const secondsTaken = (performance.now() - started) / 1000;
  peakMb = Math.max(peakMb, memoryOf(pid).peakMb);
  await server.stop();
  // The same export by the CLI (`ticketrush export winners`), a process that does only that: its
  // peak RSS (GNU time's %M, KB) is the export's own footprint, without a server's caches.
  const out = join(dataDir, 'winners.csv');
  started = performance.now();
  const cli = spawnSync('/usr/bin/time', ['-f', '%M', process.execPath, 'bin/ticketrush.js', 'export', 'winners', '--pool', 'big', '--out', out], {
    encoding: 'utf8', env: { ...process.env, ...env },
  });
  const cliSeconds = (performance.now() - started) / 1000;
  const cliPeakMb = Number(cli.stderr.trim().split('\n').pop()) / 1024;
  const cliRows = (JSON.parse(cli.stdout.trim().split('\n').pop() ?? '{}') as { rows?: number }).rows ?? NaN;
  process.stdout.write(`  CLI export of ${cliRows} winners: ${Math.round(cliRows / cliSeconds)} rows/s in ${cliSeconds.toFixed(2)} s (process start included), peak RSS ${Math.round(cliPeakMb)} MB (goal < 150 MB: ${cliPeakMb < 150 ? 'PASS' : 'FAIL'})\n`);
  const rows = lines - 1;
  const figures = { cli: { rows: cliRows, seconds: Number(cliSeconds.toFixed(2)), rowsPerSecond: Math.round(cliRows / cliSeconds), peakRssMb: Math.round(cliPeakMb) }, rows, bytes, seconds: Number(secondsTaken.toFixed(2)), rowsPerSecond: Math.round(rows / secondsTaken), serverPeakRssMb: Math.round(peakMb), serverRssAtStartMb: Math.round(before.rssMb) };
  process.stdout.write(`  export of ${rows} winners: ${figures.rowsPerSecond} rows/s, ${(bytes / 1e6).toFixed(1)} MB in ${figures.seconds} s, server peak RSS ${figures.serverPeakRssMb} MB (at start ${figures.serverRssAtStartMb} MB: the export added ${figures.serverPeakRssMb - figures.serverRssAtStartMb} MB)\n`);
  return figures;
}

async function main(): Promise<void> {
  const hello = await startChildServer(['--import', 'tsx', 'bench/hello-server.ts'], process.env, join(dataDir, 'hello.log'));
  children.push(hello);
  const wanted = (process.env.BENCH_STORES ?? 'sqlite,postgres').split(',');
  const backends: Backend[] = ['sqlite'];
  if (wanted.includes('postgres') && (await postgresReachable(databaseUrl)).ok) backends.push('postgres');
  const grabs: Record<string, unknown> = {};
  const benchParts = process.env.BENCH_PARTS ?? 'grabs,export';
  if (benchParts.includes('grabs')) for (const backend of backends.filter((b) => wanted.includes(b))) grabs[backend] = await grabBench(backend, hello);
  const exported = benchParts.includes('export') ? await exportBench(benchParts.includes('grabs')) : null;
  process.stdout.write(`\ncode grabs / hello-world POST: ${JSON.stringify(grabs)}\nexport: ${JSON.stringify(exported)}\n`);
  mkdirSync('bench/results', { recursive: true });
  writeFileSync(`bench/results/code-pools-${benchParts.replace(/,/g, '-')}.json`, `${JSON.stringify({ at: new Date().toISOString(), connections, seconds, rounds, grabs, export: exported }, null, 2)}\n`);
}

async function cleanUp(): Promise<void> {
  await Promise.all(children.map((c) => c.stop()));
  for (const schema of schemas) await dropSchema(databaseUrl, schema).catch(() => undefined);
  rmSync(dataDir, { recursive: true, force: true });
}

main().then(cleanUp, async (error: unknown) => {
  await cleanUp();
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
