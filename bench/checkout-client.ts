// The checkout bench's buyers, in a process of their own (bench/checkout-bench.ts starts it), so
// the load generator never shares the server's event loop or the driver's. Each of `connections`
// loops runs whole checkouts back to back: hold one named seat → order → the payment provider's
// signed callback (SUCCEEDED, as a provider would send it: no sandbox delay; outcome SOLD) → the
// order reads TICKETED (tickets are issued by a job right after the sale: polled every 10 ms). Latencies per step; checkouts counted when their order read TICKETED within
// the measured window, which follows a warm-up.
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import { signWebhook } from '../src/lib/webhook-signature.js';

export interface CheckoutJob {
  readonly url: string;
  readonly showId: string;
  readonly sections: readonly string[];
  /** Seats of the show are taken in order from this index (each round gets fresh ones). */
  readonly firstSeat: number;
  readonly seatsMax: number;
  readonly tokens: readonly string[];
  readonly paymentSecret: string;
  readonly connections: number;
  readonly warmupSeconds: number;
  readonly seconds: number;
}

export interface StepSummary {
  readonly count: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

export interface CheckoutResult {
  readonly checkouts: number;
  readonly seconds: number;
  readonly checkoutsPerSecond: number;
  readonly steps: { readonly hold: StepSummary; readonly order: StepSummary; readonly callback: StepSummary; readonly ticketed: StepSummary; readonly checkout: StepSummary };
  /** Answers that were not the step's success (status or outcome), by step and what came back. */
  readonly refusals: Record<string, number>;
  readonly errors: number;
  readonly seatsUsed: number;
  readonly cpuMs: number;
}

const summary = (ms: number[]): StepSummary => {
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (q: number) => Math.round((sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0) * 10) / 10;
  return { count: sorted.length, p50Ms: at(0.5), p99Ms: at(0.99) };
};

/** Seat i of sections of 100 rows × 100 seats, in the seat map's order. */
const seatId = (sections: readonly string[], i: number): string => {
  const section = sections[Math.floor(i / 10_000) % sections.length] ?? 'S1';
  const k = i % 10_000;
  return `${section}-${Math.floor(k / 100) + 1}-${(k % 100) + 1}`;
};

export async function runCheckouts(job: CheckoutJob): Promise<CheckoutResult> {
  const cpuAtStart = process.cpuUsage();
  const pool = new Pool(job.url, { connections: job.connections, pipelining: 1, headersTimeout: 30_000, bodyTimeout: 30_000 });
  const refusals: Record<string, number> = {};
  const refused = (what: string) => {
    refusals[what] = (refusals[what] ?? 0) + 1;
  };
  const steps = { hold: [] as number[], order: [] as number[], callback: [] as number[], ticketed: [] as number[], checkout: [] as number[] };
  let errors = 0;
  let next = job.firstSeat;
  let checkouts = 0;
  const started = performance.now();
  const measureFrom = started + job.warmupSeconds * 1000;
  const endAt = measureFrom + job.seconds * 1000;

  async function post(path: string, body: string, headers: Record<string, string>): Promise<{ status: number; json: Record<string, unknown> }> {
    const response = await pool.request({ method: 'POST', path, headers: { 'content-type': 'application/json', ...headers }, body });
    const text = await response.body.text();
    return { status: response.statusCode, json: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
  }

  async function checkout(i: number, token: string): Promise<void> {
    const counted = () => performance.now() >= measureFrom;
    const t0 = performance.now();
    const hold = await post(`/api/v1/shows/${job.showId}/holds`, JSON.stringify({ seatIds: [seatId(job.sections, i)], holdSeconds: 900 }), { authorization: `Bearer ${token}` });
    const t1 = performance.now();
    if (counted()) steps.hold.push(t1 - t0);
    if (hold.status !== 201) return refused(`hold ${hold.status} ${String(hold.json.code ?? '')}`);
    const order = await post('/api/v1/orders', JSON.stringify({ holdId: hold.json.holdId }), { authorization: `Bearer ${token}`, 'x-idempotency-key': `bench-${i}` });
    const t2 = performance.now();
    if (counted()) steps.order.push(t2 - t1);
    if (order.status !== 201) return refused(`order ${order.status} ${String(order.json.code ?? '')}`);
    const report = JSON.stringify({ paymentId: order.json.paymentId, orderId: order.json.orderId, status: 'SUCCEEDED', amountCents: order.json.amountCents });
    const paid = await post('/api/v1/payments/callback', report, { 'x-ticketrush-signature': signWebhook(job.paymentSecret, report, Math.floor(Date.now() / 1000)) });
    const t3 = performance.now();
    if (counted()) steps.callback.push(t3 - t2);
    if (paid.status !== 200 || paid.json.outcome !== 'SOLD') return refused(`callback ${paid.status} ${String(paid.json.outcome ?? paid.json.code ?? '')}`);
    for (let poll = 0; ; poll++) {
      const response = await pool.request({ method: 'GET', path: `/api/v1/orders/${String(order.json.orderId)}`, headers: { authorization: `Bearer ${token}` } });
      const body = (await response.body.json()) as { status?: string };
      if (body.status === 'TICKETED') break;
      if (poll >= 500) return refused(`ticketed: still ${String(body.status)} after 5 s`);
      await sleep(10);
    }
    const t4 = performance.now();
    // Throughput: checkouts completed inside the window (one begun in the warm-up but ended inside counts).
    if (t4 >= measureFrom && t4 <= endAt) checkouts++;
    if (counted() && t4 <= endAt) {
      steps.ticketed.push(t4 - t3);
      steps.checkout.push(t4 - t0);
    }
  }

  await Promise.all(Array.from({ length: job.connections }, async (_, loop) => {
    const token = job.tokens[loop % job.tokens.length] ?? '';
    while (performance.now() < endAt && next < job.firstSeat + job.seatsMax) {
      try {
        await checkout(next++, token);
      } catch {
        errors++;
      }
    }
  }));
  await pool.close();
  const cpu = process.cpuUsage(cpuAtStart);
  return {
    checkouts,
    seconds: job.seconds,
    checkoutsPerSecond: Math.round(checkouts / job.seconds),
    steps: { hold: summary(steps.hold), order: summary(steps.order), callback: summary(steps.callback), ticketed: summary(steps.ticketed), checkout: summary(steps.checkout) },
    refusals,
    errors,
    seatsUsed: next - job.firstSeat,
    cpuMs: Math.round((cpu.user + cpu.system) / 1000),
  };
}

// Run as a child: `node --import tsx bench/checkout-client.ts '<CheckoutJob JSON>'`.
if (process.argv[1]?.endsWith('checkout-client.ts') === true && process.argv[2] !== undefined) {
  runCheckouts(JSON.parse(process.argv[2]) as CheckoutJob).then((result) => {
    process.stdout.write(`${JSON.stringify(result)}\n`);
  }, (error: unknown) => {
    process.stderr.write(`${String(error)}\n`);
    process.exit(1);
  });
}
