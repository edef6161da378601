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
import { buildReport, reportText, type DrillName, type DrillPhase, type DrillReport } from './report.js';
import { startEmbeddedServer, type EmbeddedServer } from './server.js';
import { assertTicketRush, createDrillShow, logIn, readSeatMap } from './show.js';
import { DrillStats, round } from './stats.js';

/** Sign-ups in parallel: each costs the server a password hash (scrypt), so a few at a time. */
const signUpConcurrency = 8;
/** How often the timeline and the progress bar are updated. */
const sampleEveryMs = 250;

/** What a drill's own phase is given: the server, the show, the signed-up buyers. */
export interface PhaseContext {
  readonly http: DrillHttp;
  readonly url: string;
  readonly stats: DrillStats;
  readonly showId: string;
  readonly runId: string;
  readonly buyers: readonly Buyer[];
  readonly adminToken: string;
  readonly options: DrillOptions;
  /** The embedded server's log file (null with --url): fault windows are read from it. */
  readonly serverLog: string | null;
  /** performance.now() the timeline counts from. */
  readonly startedAt: number;
  readonly say: (line: string) => void;
}

/**
 * A drill: every one ends the same way (the rest of the show sold out by the same buyers, the
 * audit, the report); what differs is the server's environment and a phase of its own first.
 */
export interface DrillPlan {
  readonly name: DrillName;
  /** Fault switches for the embedded server; a plan with any refuses --url (the faults must be inside). */
  readonly serverEnv?: Readonly<Record<string, string>>;
  readonly phase?: (ctx: PhaseContext) => Promise<DrillPhase>;
  /** Outcome of each sandbox payment in the sell-out (payment-jitter fails some). */
  readonly payOutcome?: () => 'SUCCEEDED' | 'FAILED';
  /** The show's sale opens this long after it is created (rush: the crowd joins the queue first). */
  readonly saleOpensInSeconds?: number;
}

export const selloutPlan: DrillPlan = { name: 'sellout' };

/**
 * The sell-out drill: a show, a crowd of buyers through hold → order → pay → ticket until it is
 * sold out, then an audit over the API and the report. Resolves with the exit code: 0 when the
 * audit passes, 1 when it does not.
 */
export async function runSellout(options: DrillOptions, out: NodeJS.WriteStream = process.stdout): Promise<number> {
  return runDrill(options, selloutPlan, out);
}

/** Runs `plan`: its phase, then the sell-out of what is left, the audit and the report. */
export async function runDrill(options: DrillOptions, plan: DrillPlan, out: NodeJS.WriteStream = process.stdout): Promise<number> {
  const startedAt = new Date();
  const say = (line: string): boolean => out.write(`${line}\n`);
  mkdirSync(options.outDir, { recursive: true });
  let server: EmbeddedServer | null = null;
  if (options.url === null) {
    say('drill: starting an embedded server on a fresh temporary data directory…');
    server = await startEmbeddedServer(join(options.outDir, 'server.log'), options.holdSeconds, plan.serverEnv ?? {});
  }
  const url = server?.url ?? options.url ?? '';
  if (server === null && plan.serverEnv !== undefined) throw new Error(`drill ${plan.name} injects its faults inside a server it starts itself: it takes no --url`);
  const admin = server?.admin ?? options.admin;
  if (admin === null) throw new Error('no admin account to create the show with');
  const http = new DrillHttp(url, options.connections);
  try {
    await assertTicketRush(http, url);
    const runId = `${startedAt.getTime().toString(36)}${randomBytes(3).toString('hex')}`;
    const stats = new DrillStats();
    const adminToken = await logIn(http, admin.username, admin.password);
    // Buyers first, then the show: a rush's show opens a few seconds after it is created.
    say(`drill: server ${url}; signing up ${options.buyers} buyers…`);
    let t = performance.now();
    const buyers = Array.from({ length: options.buyers }, (_, i) => new Buyer(`drill.${runId}.${i}`, `drill-${runId}-password`));
    await inParallel(buyers, signUpConcurrency, (b) => b.signUp({ http, stats }));
    const signUpSeconds = seconds(t);

    say(`drill: creating a ${options.seats}-seat show…`);
    t = performance.now();
    const showId = await createDrillShow(http, adminToken, options.seats, runId, plan.saleOpensInSeconds ?? 0);
    const createShowSeconds = seconds(t);

    const startedSale = performance.now();
    let phase: DrillPhase | null = null;
    if (plan.phase !== undefined) {
      say(`drill: ${plan.name} phase…`);
      stats.mark(0);
      const phaseSampler = setInterval(() => stats.mark((performance.now() - startedSale) / 1000), sampleEveryMs);
      try {
        phase = await plan.phase({ http, url, stats, showId, runId, buyers, adminToken, options, serverLog: server === null ? null : join(options.outDir, 'server.log'), startedAt: startedSale, say });
      } finally {
        clearInterval(phaseSampler);
      }
    }

    t = performance.now();
    // What the phase left is sold (the whole show for the plain sell-out).
    const left = await readSeatMap(http, showId);
    const available = left.seatIds.filter((_, i) => left.statuses[i] === 'A');
    const queue = options.pick === 'seats'
      ? ClaimQueue.ofSeats(available, options.seatsPerHold)
      : ClaimQueue.ofQuantity(available.length, options.seatsPerHold);
    const seatMapReadSeconds = seconds(t);

    say(`drill: selling show ${showId}…`);
    const progress = createProgress(options.seats, out);
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
      ...(plan.payOutcome === undefined ? {} : { payOutcome: plan.payOutcome }),
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
    if (phase === null) stats.mark(0);
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

    const declined = buyers.reduce((n, b) => n + b.failedPayments, 0);
    if (phase !== null && declined > 0) phase = { ...phase, figures: { ...phase.figures, declinedPaymentsSoldAgain: declined } };
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
      drill: plan.name,
      phase,
    });
    const files = writeReport(options.outDir, report);
    out.write(reportText(report));
    say(`report: ${files.json}\n        ${files.html}`);
    return report.passed ? 0 : 1;
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

export async function inParallel<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, async () => {
    for (let i = next++; i < items.length; i = next++) await work(items[i] as T);
  }));
}
