// The load generator of the overload bench (bench/overload-bench.ts), run as a child process so its
// CPU is its own and is reported apart from the server's. Two modes, one named-seat hold a request
// (each on a seat nobody else asks for, so every refusal is the server's, never a lost race):
// - closed: `connections` requests always in flight (a new one as each answers): the saturation rate;
// - open: a FIXED ARRIVAL RATE, request i due at start + i/rate whatever came back before, its
//   latency counted from when it was due (so a generator that falls behind shows up in the
//   figures instead of hiding the server's queue: no coordinated omission).
// Input: one JSON argument (GeneratorJob); output: one JSON line (GeneratorResult) on stdout.
import { Pool } from 'undici';

export interface GeneratorJob {
  readonly url: string;
  readonly showId: string;
  readonly tokens: readonly string[];
  /** Seat ids of the show's sections of 100 x 100, in order; request i holds seat `firstSeat + i`. */
  readonly sections: readonly string[];
  readonly firstSeat: number;
  readonly mode: 'closed' | 'open';
  /** open: requests per second. */
  readonly rate: number;
  readonly connections: number;
  readonly seconds: number;
}

export interface LatencySummary { readonly count: number; readonly p50Ms: number; readonly p99Ms: number; readonly maxMs: number }

export interface GeneratorResult {
  readonly sent: number;
  readonly seconds: number;
  readonly byStatus: Readonly<Record<string, number>>;
  /** Holds that answered 201, per second of the run. */
  readonly holdsPerSecond: number;
  readonly held: LatencySummary;
  /** 503 BUSY answers (shed). */
  readonly shed: LatencySummary;
  /** Requests that got no answer (socket error or timeout). */
  readonly errors: number;
  /** How far behind schedule the generator sent its last request (open mode), ms. */
  readonly lagMs: number;
  readonly cpuMs: number;
}

function seatId(sections: readonly string[], index: number): string {
  const section = sections[Math.floor(index / 10_000) % sections.length] ?? 'S1';
  const inSection = index % 10_000;
  return `${section}-${Math.floor(inSection / 100) + 1}-${(inSection % 100) + 1}`;
}

function summary(values: number[]): LatencySummary {
  if (values.length === 0) return { count: 0, p50Ms: 0, p99Ms: 0, maxMs: 0 };
  const sorted = Float64Array.from(values).sort();
  const at = (p: number): number => Math.round((sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)] ?? 0) * 10) / 10;
  return { count: sorted.length, p50Ms: at(0.5), p99Ms: at(0.99), maxMs: at(1) };
}

export async function generate(job: GeneratorJob): Promise<GeneratorResult> {
  const cpuAtStart = process.cpuUsage();
  const pool = new Pool(job.url, { connections: job.connections, pipelining: 1, keepAliveTimeout: 30_000, headersTimeout: 30_000, bodyTimeout: 30_000 });
  const byStatus: Record<string, number> = {};
  const held: number[] = [];
  const shed: number[] = [];
  let errors = 0;
  let sent = 0;
  const path = `/api/v1/shows/${job.showId}/holds`;
  const one = async (i: number, dueAt: number): Promise<void> => {
    sent++;
    try {
      const response = await pool.request({
        method: 'POST',
        path,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${job.tokens[i % job.tokens.length] ?? ''}` },
        body: JSON.stringify({ seatIds: [seatId(job.sections, job.firstSeat + i)], holdSeconds: 900 }),
      });
      await response.body.dump();
      const ms = performance.now() - dueAt;
      byStatus[response.statusCode] = (byStatus[response.statusCode] ?? 0) + 1;
      if (response.statusCode === 201) held.push(ms);
      else if (response.statusCode === 503) shed.push(ms);
    } catch {
      errors++;
    }
  };
  const started = performance.now();
  const endAt = started + job.seconds * 1000;
  const inFlight = new Set<Promise<void>>();
  let lagMs = 0;
  if (job.mode === 'closed') {
    let i = 0;
    await Promise.all(Array.from({ length: job.connections }, async () => {
      while (performance.now() < endAt) await one(i++, performance.now());
    }));
  } else {
    const intervalMs = 1000 / job.rate;
    let i = 0;
    // Every millisecond, send all the requests that have fallen due: a fixed arrival rate.
    while (performance.now() < endAt) {
      const now = performance.now();
      for (let due = started + i * intervalMs; due <= now && due < endAt; due = started + i * intervalMs) {
        const p = one(i++, due);
        inFlight.add(p);
        void p.finally(() => inFlight.delete(p));
        lagMs = now - due;
      }
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    // Answers still due are waited for, boundedly (the headers timeout above).
    await Promise.all(inFlight);
  }
  // Over the time until the last answer: answers drained after the arrivals stopped count, and so
  // does the time they took.
  const seconds = Math.max(job.seconds, (performance.now() - started) / 1000);
  await pool.close();
  const cpu = process.cpuUsage(cpuAtStart);
  return {
    sent,
    seconds,
    byStatus,
    holdsPerSecond: Math.round(held.length / seconds),
    // seconds: the arrival window, or longer when answers were still coming after it
    held: summary(held),
    shed: summary(shed),
    errors,
    lagMs: Math.round(lagMs),
    cpuMs: Math.round((cpu.user + cpu.system) / 1000),
  };
}

// Run as a child: `node --import tsx bench/open-loop.ts '<GeneratorJob JSON>'`.
if (process.argv[1]?.endsWith('open-loop.ts') === true && process.argv[2] !== undefined) {
  const job = JSON.parse(process.argv[2]) as GeneratorJob;
  generate(job).then((result) => {
    process.stdout.write(`${JSON.stringify(result)}\n`);
  }, (error: unknown) => {
    process.stderr.write(`${String(error)}\n`);
    process.exit(1);
  });
}
