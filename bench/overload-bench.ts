// `npm run bench`, part `overload` (issue 24 item 6): load shedding under an OPEN-LOOP load.
// 1. Saturation: a closed loop of BENCH_CONNECTIONS (64) always-in-flight named-seat holds finds the
//    rate at which holds saturate this server (the peak of successful holds per second).
// 2. Overload: an open loop at BENCH_OVERLOAD_FACTOR (3) times that rate, a fixed arrival rate
//    whatever comes back, latencies counted from when each request was due.
// Targets: successful holds per second under overload >= 0.9 of the saturation peak; refusals (503
// BUSY from the in-flight bound) answered with p99 <= 50 ms. The generator is a child process of
// its own (bench/open-loop.ts) whose CPU is printed apart from the server's. SQLite, 127.0.0.1,
// bounded (BENCH_SECONDS each phase). Runs when BENCH_PARTS is unset or names `overload`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { startChildServer, type ChildServer } from '../test/support/child-server.js';
import type { GeneratorJob, GeneratorResult } from './open-loop.js';
import { treeCpuMs } from './process-cpu.js';
import { call, login } from './api-call.js';
import { runJsonChild } from './json-child.js';

const parts = (process.env.BENCH_PARTS ?? 'overload').split(',').map((p) => p.trim());
const seconds = Number(process.env.BENCH_SECONDS ?? 6);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 64);
const factor = Number(process.env.BENCH_OVERLOAD_FACTOR ?? 3);
/** Sockets of the open-loop generator: enough that a refusal never waits for a free one. */
const openConnections = Number(process.env.BENCH_OPEN_CONNECTIONS ?? 512);
const admin = { username: 'bench-admin', password: 'bench-admin-password' };
const buyers = 64;
const sectionsPerShow = 8;
/** The saturation search: open-loop steps, each this much faster, until goodput falls behind. */
const rampFactor = 1.5;
const rampStepsMax = 6;
const rampSeconds = Number(process.env.BENCH_RAMP_SECONDS ?? 3);

/** A show of `sectionsPerShow` sections of 100 x 100 seats, on sale now. */
async function createShow(base: string, token: string, title: string): Promise<{ showId: string; sections: string[] }> {
  const sections = Array.from({ length: sectionsPerShow }, (_, i) => `S${i + 1}`);
  const now = Date.now();
  const reply = await call(base, 'POST', '/api/v1/admin/shows', {
    title,
    venue: 'Bench Arena',
    city: 'Localhost',
    startsAt: new Date(now + 7 * 86_400_000).toISOString(),
    saleStartsAt: new Date(now - 60_000).toISOString(),
    saleEndsAt: new Date(now + 86_400_000).toISOString(),
    seatMap: { sections: sections.map((id) => ({ id, name: `Section ${id}`, rows: 100, seatsPerRow: 100, priceCents: 9900 })) },
  }, token);
  if (reply.status !== 201) throw new Error(`create show: ${reply.status} ${JSON.stringify(reply.json)}`);
  const showId = reply.json.showId as string;
  await call(base, 'GET', `/api/v1/shows/${showId}/availability`);
  return { showId, sections };
}

/** Runs the generator in its own process and returns what it measured. */
const runGenerator = (job: GeneratorJob): Promise<GeneratorResult> => runJsonChild<GeneratorJob, GeneratorResult>('open-loop.ts', job, job.seconds + 60);

interface Phase { readonly result: GeneratorResult; readonly serverCpuMs: number }

async function phase(server: ChildServer, job: GeneratorJob): Promise<Phase> {
  const before = treeCpuMs(server.child.pid);
  const result = await runGenerator(job);
  return { result, serverCpuMs: Math.round(treeCpuMs(server.child.pid) - before) };
}

function line(name: string, p: Phase): string {
  const r = p.result;
  return `${name.padEnd(26)} sent ${String(r.sent).padStart(7)}  holds/s ${String(r.holdsPerSecond).padStart(6)}  201 p50/p99 ${r.held.p50Ms}/${r.held.p99Ms} ms  503 ${r.shed.count} p50/p99 ${r.shed.p50Ms}/${r.shed.p99Ms} ms  errors ${r.errors}  statuses ${JSON.stringify(r.byStatus)}  CPU server ${p.serverCpuMs} ms, generator ${r.cpuMs} ms (lag ${r.lagMs} ms)`;
}

async function main(): Promise<void> {
  if (!parts.includes('overload')) return;
  const dataDir = mkdtempSync(join(tmpdir(), 'ticketrush-overload-'));
  const bin = process.env.BENCH_BIN ?? 'bin/ticketrush.js';
  // Logs at warn (a log line per write would be part of what is measured), so the URL is not
  // logged: the port is chosen here and the server is ready once /readyz answers.
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const server = await startChildServer([bin, 'start'], {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    TICKETRUSH_DATA_DIR: dataDir,
    TICKETRUSH_DEMO: '0',
    TICKETRUSH_LOG_LEVEL: 'warn',
    TICKETRUSH_RATE_LIMITS: 'off',
    TICKETRUSH_ADMIN_USER: admin.username,
    TICKETRUSH_ADMIN_PASSWORD: admin.password,
    TICKETRUSH_MAX_SEATS_PER_USER: '200000',
  }, join(dataDir, 'ticketrush.log'), 60_000, () => url);
  try {
    await ready(url);
    const base = server.url;
    const adminToken = await login(base, admin.username, admin.password);
    const tokens: string[] = [];
    for (let i = 0; i < buyers; i++) {
      await call(base, 'POST', '/api/v1/auth/register', { username: `overload-${i}`, password: 'overload-password' });
      tokens.push(await login(base, `overload-${i}`, 'overload-password'));
    }
    const job = (show: { showId: string; sections: string[] }, mode: 'closed' | 'open', rate: number, secs: number): GeneratorJob => ({
      url: base, showId: show.showId, sections: show.sections, tokens, firstSeat: 0, mode, rate, connections: mode === 'closed' ? connections : openConnections, seconds: secs,
    });
    // A closed loop gives a first estimate; open-loop steps 1.5x apart then find the peak of
    // successful holds per second (where they stop following the offered rate).
    const saturation = await phase(server, job(await createShow(base, adminToken, 'Overload estimate'), 'closed', 0, seconds));
    let peak = saturation.result.holdsPerSecond;
    const ramp: { offered: number; phase: Phase }[] = [];
    for (let step = 0, offered = Math.max(50, peak); step < rampStepsMax; step++, offered = Math.round(offered * rampFactor)) {
      const p = await phase(server, job(await createShow(base, adminToken, `Overload ramp ${offered}`), 'open', offered, rampSeconds));
      ramp.push({ offered, phase: p });
      peak = Math.max(peak, p.result.holdsPerSecond);
      if (p.result.holdsPerSecond < 0.85 * offered) break;
    }
    const overloadShow = await createShow(base, adminToken, 'Overload 3x');
    const rate = Math.round(peak * factor);
    const overload = await phase(server, job(overloadShow, 'open', rate, seconds));
    const goodput = peak > 0 ? overload.result.holdsPerSecond / peak : 0;
    console.log('\n## Overload: load shedding under an open-loop load (SQLite, one process)');
    console.log(line(`closed loop, ${connections} conn`, saturation));
    for (const r of ramp) console.log(line(`ramp: open loop ${r.offered}/s`, r.phase));
    console.log(`saturation peak: ${peak} successful holds/s`);
    console.log(line(`open loop ${rate}/s (${factor}x)`, overload));
    console.log(`goodput under ${factor}x overload: ${overload.result.holdsPerSecond} holds/s = ${goodput.toFixed(2)} of the saturation peak ${peak}/s (target >= 0.90) ${goodput >= 0.9 ? 'OK' : 'BELOW TARGET'}`);
    console.log(`refusals (503 BUSY): ${overload.result.shed.count}, p99 ${overload.result.shed.p99Ms} ms (target <= 50 ms) ${overload.result.shed.p99Ms <= 50 ? 'OK' : 'ABOVE TARGET'}`);
    console.log(`CPU in the overload phase: server ${overload.serverCpuMs} ms, load generator ${overload.result.cpuMs} ms (its own process, over ${seconds} s on a 2-core machine)`);
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const free = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => resolve(free));
    });
  });
}

async function ready(url: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      if ((await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2_000) })).ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`the server at ${url} was not ready in 60 s`);
    await sleep(100);
  }
}

await main();
