import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { auditSale, auditStore } from './audit.js';
import { Buyer, type FlowContext } from './buyer.js';
import { ClaimQueue } from './claims.js';
import { ownCpuSeconds, processCpuSeconds } from './cpu.js';
import { renderHtml } from './html.js';
import { DrillHttp } from './http.js';
import type { DrillOptions } from './options.js';
import { createProgress } from './progress.js';
import { buildReport, reportText, type DrillReport } from './report.js';
import { startEmbeddedServer, type EmbeddedServer } from './server.js';
import { createDrillShow, logIn, readSeatMap } from './show.js';
import { DrillStats, round } from './stats.js';

/** Sign-ups in parallel: each costs the server a password hash (scrypt), so a few at a time. */
const signUpConcurrency = 8;
/** How often the timeline and the progress bar are updated. */
const sampleEveryMs = 250;

/**
 * The sell-out drill: a show, a crowd of buyers through hold → order → pay → ticket until it is
 * sold out, then an audit over the API and the report. Resolves with the exit code: 0 when the
 * audit passes, 1 when it does not.
 */
export async function runSellout(options: DrillOptions, out: NodeJS.WriteStream = process.stdout): Promise<number> {
  const startedAt = new Date();
  const say = (line: string): boolean => out.write(`${line}\n`);
  mkdirSync(options.outDir, { recursive: true });
  let server: EmbeddedServer | null = null;
  if (options.url === null) {
    say('drill: starting an embedded server on a fresh temporary data directory…');
    server = await startEmbeddedServer(join(options.outDir, 'server.log'), options.holdSeconds);
  }
  const url = server?.url ?? options.url ?? '';
  const admin = server?.admin ?? options.admin;
  if (admin === null) throw new Error('no admin account to create the show with');
  const http = new DrillHttp(url, options.connections);
  try {
    const runId = `${startedAt.getTime().toString(36)}${randomBytes(3).toString('hex')}`;
    const stats = new DrillStats();
    say(`drill: server ${url}; creating a ${options.seats}-seat show…`);
    const adminToken = await logIn(http, admin.username, admin.password);
    let t = performance.now();
    const showId = await createDrillShow(http, adminToken, options.seats, runId);
    const createShowSeconds = seconds(t);

    say(`drill: signing up ${options.buyers} buyers…`);
    t = performance.now();
    const buyers = Array.from({ length: options.buyers }, (_, i) => new Buyer(`drill.${runId}.${i}`, `drill-${runId}-password`));
    await inParallel(buyers, signUpConcurrency, (b) => b.signUp({ http, stats }));
    const signUpSeconds = seconds(t);

    t = performance.now();
    const queue = options.pick === 'seats'
      ? ClaimQueue.ofSeats((await readSeatMap(http, showId)).seatIds, options.seatsPerHold)
      : ClaimQueue.ofQuantity(options.seats, options.seatsPerHold);
    const seatMapReadSeconds = options.pick === 'seats' ? seconds(t) : 0;

    say(`drill: selling show ${showId}…`);
    const progress = createProgress(options.seats, out);
    const startedSale = performance.now();
    let lastTicketAt = startedSale;
    const ctx: FlowContext = {
      http,
      stats,
      queue,
      showId,
      runId,
      holdSeconds: options.holdSeconds,
      ticketTimeoutMs: options.ticketTimeoutSeconds * 1000,
      ticketsInFlightPerBuyer: options.ticketsInFlightPerBuyer,
      startedAt: startedSale,
      stopped: () => performance.now() - startedSale > options.deadlineSeconds * 1000,
      onTicketed: (at) => {
        lastTicketAt = Math.max(lastTicketAt, at);
      },
    };
    const sample = (): void => {
      const s = (performance.now() - startedSale) / 1000;
      stats.mark(s);
      progress.update({ ticketed: stats.seatsTicketed, held: stats.seatsHeld, refusals: stats.refusalCount(), seconds: s });
    };
    const serverCpu = (): number | null => (server === null ? null : processCpuSeconds(server.pid));
    const cpuAtStart = { client: ownCpuSeconds(), server: serverCpu() };
    stats.mark(0);
    const sampler = setInterval(sample, sampleEveryMs);
    try {
      await Promise.all(buyers.map((b) => b.buyUntilSoldOut(ctx)));
    } finally {
      clearInterval(sampler);
      sample();
      progress.stop();
    }
    const secondsRun = seconds(startedSale);
    const serverCpuAtEnd = serverCpu();
    const cpuSeconds = {
      client: round(ownCpuSeconds() - cpuAtStart.client, 2),
      server: serverCpuAtEnd === null || cpuAtStart.server === null ? null : round(serverCpuAtEnd - cpuAtStart.server, 2),
    };

    say('drill: auditing over the API…');
    const apiAudit = await auditSale(http, showId, options.seats, buyers.map((b) => b.bearer), stats.seatsTicketed);
    // Then the store itself, read-only beside the server (its own server only: with --url the
    // store is the operator's, who runs `ticketrush audit` with that server's environment).
    let audit = apiAudit;
    if (server !== null) {
      say('drill: auditing the store (ticketrush audit)…');
      const stored = await auditStore(server.env);
      audit = { ...apiAudit, passed: apiAudit.passed && stored.passed, checks: [...apiAudit.checks, ...stored.checks] };
    }
    const report = buildReport({
      options,
      startedAt,
      url,
      embedded: server !== null,
      showId,
      setup: { createShowSeconds: round(createShowSeconds, 2), signUpSeconds: round(signUpSeconds, 2), seatMapReadSeconds: round(seatMapReadSeconds, 2) },
      secondsRun,
      cpuSeconds,
      secondsToLastTicket: (lastTicketAt - startedSale) / 1000,
      stats,
      audit,
    });
    const files = writeReport(options.outDir, report);
    out.write(reportText(report));
    say(`report: ${files.json}\n        ${files.html}`);
    return audit.passed ? 0 : 1;
  } finally {
    await http.close();
    await server?.stop();
  }
}

/** report.json and report.html in the output directory; returns their paths. */
function writeReport(outDir: string, report: DrillReport): { json: string; html: string } {
  const json = join(outDir, 'report.json');
  const html = join(outDir, 'report.html');
  writeFileSync(json, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(html, renderHtml(report));
  return { json, html };
}

function seconds(since: number): number {
  return (performance.now() - since) / 1000;
}

async function inParallel<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, async () => {
    for (let i = next++; i < items.length; i = next++) await work(items[i] as T);
  }));
}
