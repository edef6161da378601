// `npm run bench`: hold throughput and latency over real HTTP at 64 connections, reported as a
// ratio against a Fastify hello-world measured in the same run (this machine is noisy, so only
// ratios mean much; the two are measured back to back in interleaved rounds and the median round
// is reported). Targets (issue 2): hold throughput >= 50% of hello-world POST, p99 < 50 ms.
// Everything runs on 127.0.0.1, for a fixed duration; servers are child processes.
import autocannon, { type Options, type Result } from 'autocannon';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startChildServer, type ChildServer } from '../test/support/child-server.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 6);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 64);
const warmupSeconds = 2;
const buyerCount = 64;
const admin = { username: 'bench-admin', password: 'bench-admin-password' };

interface Figures {
  readonly name: string;
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly non2xx: number;
  readonly errors: number;
  readonly total: number;
}

const children: ChildServer[] = [];
const dataDir = mkdtempSync(join(tmpdir(), 'ticketrush-bench-'));

async function measure(name: string, options: Options): Promise<Figures> {
  const result: Result = await autocannon({ ...options, connections, duration: seconds });
  const figures = {
    name,
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    total: result.requests.total,
  };
  process.stdout.write(`  ${name}: ${Math.round(figures.requestsPerSecond)} req/s, p99 ${figures.p99Ms} ms\n`);
  return figures;
}

async function call(base: string, method: string, path: string, body?: unknown, token?: string): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, json: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

async function login(base: string, username: string, password: string): Promise<string> {
  const reply = await call(base, 'POST', '/api/v1/auth/login', { username, password });
  if (reply.status !== 200) throw new Error(`login ${username}: ${reply.status} ${JSON.stringify(reply.json)}`);
  return reply.json.token as string;
}

async function createShow(base: string, token: string, title: string, sections: { id: string; rows: number; seatsPerRow: number }[]): Promise<string> {
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

async function startTicketRush(): Promise<ChildServer> {
  // BENCH_CPU_PROF=dir writes a V8 CPU profile of the TicketRush process there, to see where time goes.
  const profile = process.env.BENCH_CPU_PROF === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_CPU_PROF];
  return startChildServer([...profile, 'bin/ticketrush.js', 'start'], {
    ...process.env,
    PORT: '0',
    HOST: '127.0.0.1',
    TICKETRUSH_DATA_DIR: dataDir,
    TICKETRUSH_DEMO: '0',
    TICKETRUSH_LOG_LEVEL: 'info',
    TICKETRUSH_ADMIN_USER: admin.username,
    TICKETRUSH_ADMIN_PASSWORD: admin.password,
  }, join(dataDir, 'ticketrush.log'));
}

/** A show of `seatsCount` seats (sections of 100 x 100) and its seat ids, for holds nobody else asks for. */
async function rushShow(base: string, token: string, title: string, sectionsCount: number): Promise<{ showId: string; seatIds: string[] }> {
  const sectionIds = Array.from({ length: sectionsCount }, (_, i) => `S${i + 1}`);
  const showId = await createShow(base, token, title, sectionIds.map((id) => ({ id, rows: 100, seatsPerRow: 100 })));
  const seatIds: string[] = [];
  for (const id of sectionIds) for (let row = 1; row <= 100; row++) for (let n = 1; n <= 100; n++) seatIds.push(`${id}-${row}-${n}`);
  return { showId, seatIds };
}

function holdRequests(base: string, showId: string, seatIds: readonly string[], tokens: readonly string[]): Options {
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
          body: JSON.stringify({ seatIds: [seatIds[i % seatIds.length]] }),
        };
      },
    }],
  };
}

const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

async function main(): Promise<void> {
  process.stdout.write(`TicketRush bench: ${connections} connections, ${rounds} interleaved rounds of ${seconds} s per scenario (+${warmupSeconds} s warm-up)\n`);
  const hello = await startChildServer(['--import', 'tsx', 'bench/hello-server.ts'], process.env, join(dataDir, 'hello.log'));
  children.push(hello);
  const server = await startTicketRush();
  children.push(server);
  const base = server.url;
  const adminToken = await login(base, admin.username, admin.password);
  const tokens: string[] = [];
  for (let i = 0; i < buyerCount; i++) {
    const username = `bench-buyer-${i}`;
    await call(base, 'POST', '/api/v1/auth/register', { username, password: 'bench-password-1' });
    tokens.push(await login(base, username, 'bench-password-1'));
  }
  const mapShow = await createShow(base, adminToken, 'Bench seat map', [{ id: 'A', rows: 25, seatsPerRow: 40 }]);
  const helloPostOptions: Options = { url: `${hello.url}/hello`, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ seatIds: ['A-1-1'] }) };

  // Warm both servers' JIT once; then each round measures the baseline and TicketRush back to back,
  // so both see the same machine, and the median round's ratio is reported.
  const warmup = await rushShow(base, adminToken, 'Bench warm-up', 5);
  await autocannon({ ...helloPostOptions, connections, duration: warmupSeconds });
  await autocannon({ ...holdRequests(base, warmup.showId, warmup.seatIds, tokens), connections, duration: warmupSeconds });
  const holdRounds: { hello: Figures; hold: Figures; ratio: number }[] = [];
  for (let round = 1; round <= rounds; round++) {
    // 100,000 fresh seats a round: every measured hold takes a seat nobody else asked for.
    const show = await rushShow(base, adminToken, `Bench rush ${round}`, 10);
    const helloPost = await measure(`round ${round}: hello-world POST (baseline)`, helloPostOptions);
    const hold = await measure(`round ${round}: POST hold (explicit seat)`, holdRequests(base, show.showId, show.seatIds, tokens));
    if (hold.total > show.seatIds.length) process.stdout.write(`  note: ${hold.total} holds asked for ${show.seatIds.length} seats; the excess answered 409\n`);
    holdRounds.push({ hello: helloPost, hold, ratio: hold.requestsPerSecond / helloPost.requestsPerSecond });
  }
  const helloGet = await measure('hello-world GET (baseline)', { url: `${hello.url}/hello` });
  const seatMap = await measure('GET seat map (1,000 seats, full JSON)', { url: `${base}/api/v1/shows/${mapShow}/seats` });

  const holdRatio = median(holdRounds.map((r) => r.ratio));
  const holdP99Ms = median(holdRounds.map((r) => r.hold.p99Ms));
  const mapRatio = seatMap.requestsPerSecond / helloGet.requestsPerSecond;
  const rows = [...holdRounds.flatMap((r) => [r.hello, r.hold]), helloGet, seatMap];
  process.stdout.write('\n| scenario | req/s | p50 ms | p99 ms | non-2xx | errors |\n|---|---:|---:|---:|---:|---:|\n');
  for (const f of rows) process.stdout.write(`| ${f.name} | ${Math.round(f.requestsPerSecond)} | ${f.p50Ms} | ${f.p99Ms} | ${f.non2xx} | ${f.errors} |\n`);
  const throughputOk = holdRatio >= 0.5;
  const latencyOk = holdP99Ms < 50;
  process.stdout.write(`\nhold / hello-world POST throughput by round: ${holdRounds.map((r) => `${(r.ratio * 100).toFixed(1)}%`).join(', ')}\n`);
  process.stdout.write(`hold / hello-world POST throughput, median round: ${(holdRatio * 100).toFixed(1)}% (target >= 50%: ${throughputOk ? 'PASS' : 'FAIL'})\n`);
  process.stdout.write(`hold p99 latency, median round: ${holdP99Ms} ms (target < 50 ms: ${latencyOk ? 'PASS' : 'FAIL'})\n`);
  process.stdout.write(`seat map / hello-world GET throughput: ${(mapRatio * 100).toFixed(1)}%\n`);
  if (holdRounds.some((r) => r.hold.non2xx > 0 || r.hold.errors > 0)) process.stdout.write('WARNING: some holds were refused or failed; the figures include them\n');

  mkdirSync('bench/results', { recursive: true });
  writeFileSync('bench/results/latest.json', `${JSON.stringify({
    measuredAt: new Date().toISOString(),
    node: process.version,
    connections,
    seconds,
    rounds,
    scenarios: rows,
    holdToHelloRatios: holdRounds.map((r) => r.ratio),
    holdToHelloRatio: holdRatio,
    seatMapToHelloRatio: mapRatio,
    targets: { holdToHelloRatioMin: 0.5, holdP99MsMax: 50, throughputOk, latencyOk },
  }, null, 2)}\n`);
}

async function cleanUp(): Promise<void> {
  await Promise.all(children.map((c) => c.stop()));
  rmSync(dataDir, { recursive: true, force: true });
}

process.on('SIGINT', () => void cleanUp().then(() => process.exit(130)));
main().then(cleanUp, async (error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  await cleanUp();
  process.exitCode = 1;
});
