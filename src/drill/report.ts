import type { AuditCheck, AuditResult } from './audit.js';
import type { DrillOptions } from './options.js';
import { round, steps, type DrillStats, type Histogram, type Refusal, type Step, type StepSummary, type TimelinePoint } from './stats.js';

export type DrillName = 'sellout' | 'rush' | 'hot-seat' | 'payment-jitter' | 'expiry-outage';

/** What a drill measured in its own phase (before the sell-out that every drill ends with). */
export interface DrillPhase {
  /** One line that says what the phase did. */
  readonly summary: string;
  /** Named figures, each with its unit in the name (e.g. admissionsPerMinute, conflictP99Ms). */
  readonly figures: Readonly<Record<string, number | string | null>>;
  /** The drill's own invariants, checked beside the audit (a bound exceeded fails the drill). */
  readonly checks: readonly AuditCheck[];
}

export interface DrillReport {
  readonly drill: DrillName;
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly options: Omit<DrillOptions, 'admin'>;
  readonly server: { readonly url: string; readonly embedded: boolean };
  readonly show: { readonly showId: string; readonly seats: number };
  readonly setup: { readonly createShowSeconds: number; readonly signUpSeconds: number; readonly seatMapReadSeconds: number };
  readonly result: {
    readonly soldOut: boolean;
    /** From the first hold sent to the last order seen TICKETED (null when it did not sell out). */
    readonly secondsToSoldOut: number | null;
    readonly secondsRun: number;
    /** CPU used while selling: the drill's own, and the embedded server's (null with --url or off Linux). */
    readonly cpuSeconds: { readonly client: number; readonly server: number | null };
    readonly seatsTicketed: number;
    readonly holds: number;
    readonly orders: number;
    readonly payments: number;
    readonly perSecond: { readonly holds: number; readonly orders: number; readonly payments: number; readonly seatsTicketed: number };
  };
  readonly steps: Readonly<Record<Step, StepSummary>>;
  readonly refusals: readonly Refusal[];
  readonly audit: AuditResult;
  readonly timeline: readonly TimelinePoint[];
  readonly histogram: Histogram;
  /** The drill's own phase, for every drill but the plain sell-out. */
  readonly phase: DrillPhase | null;
  /** The audit and the drill's own checks both passed. */
  readonly passed: boolean;
}

export interface RunFacts {
  readonly options: DrillOptions;
  readonly startedAt: Date;
  readonly url: string;
  readonly embedded: boolean;
  readonly showId: string;
  readonly setup: DrillReport['setup'];
  readonly secondsRun: number;
  readonly cpuSeconds: DrillReport['result']['cpuSeconds'];
  readonly secondsToLastTicket: number;
  readonly stats: DrillStats;
  readonly audit: AuditResult;
  readonly drill?: DrillName;
  readonly phase?: DrillPhase | null;
}

export function buildReport(facts: RunFacts): DrillReport {
  const { stats, options } = facts;
  const soldOut = facts.audit.checks[0]?.passed === true && stats.seatsTicketed === options.seats;
  const seconds = soldOut ? facts.secondsToLastTicket : facts.secondsRun;
  const rate = (n: number): number => (seconds > 0 ? round(n / seconds, 1) : 0);
  const { admin: _admin, ...shown } = options;
  return {
    drill: facts.drill ?? 'sellout',
    startedAt: facts.startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    options: shown,
    server: { url: facts.url, embedded: facts.embedded },
    show: { showId: facts.showId, seats: options.seats },
    setup: facts.setup,
    result: {
      soldOut,
      secondsToSoldOut: soldOut ? round(facts.secondsToLastTicket, 2) : null,
      secondsRun: round(facts.secondsRun, 2),
      cpuSeconds: facts.cpuSeconds,
      seatsTicketed: stats.seatsTicketed,
      holds: stats.holds,
      orders: stats.orders,
      payments: stats.payments,
      perSecond: { holds: rate(stats.holds), orders: rate(stats.orders), payments: rate(stats.payments), seatsTicketed: rate(stats.seatsTicketed) },
    },
    steps: stats.summary(),
    refusals: stats.refusalList(),
    audit: facts.audit,
    timeline: stats.timeline,
    histogram: stats.histogram(),
    phase: facts.phase ?? null,
    passed: facts.audit.passed && (facts.phase?.checks ?? []).every((c) => c.passed),
  };
}

/** The report as a person reads it at the end of the run. */
export function reportText(report: DrillReport): string {
  const r = report.result;
  const lines = [
    '',
    ...(report.phase === null ? [] : [
      `TicketRush ${report.drill} drill: ${report.phase.summary}`,
      ...Object.entries(report.phase.figures).map(([k, v]) => `  ${k}: ${v === null ? 'n/a' : String(v)}`),
      ...report.phase.checks.map((c) => `  ${c.passed ? 'ok  ' : 'FAIL'} ${c.name}: ${c.detail}`),
      '',
      'then the rest of the show sold out by the same buyers:',
    ]),
    `TicketRush sell-out drill: ${report.show.seats} seats, ${report.options.buyers} buyers, ${report.options.seatsPerHold} seats a hold (${report.options.pick === 'seats' ? 'named seats' : 'best available'})`,
    `server ${report.server.url}${report.server.embedded ? ' (embedded, started by the drill)' : ''}`,
    `setup: show created in ${report.setup.createShowSeconds} s, buyers signed up in ${report.setup.signUpSeconds} s, seat map read in ${report.setup.seatMapReadSeconds} s`,
    r.soldOut ? `SOLD OUT in ${r.secondsToSoldOut} s` : `NOT sold out: ${r.seatsTicketed} of ${report.show.seats} seats ticketed in ${r.secondsRun} s`,
    `CPU while selling (${r.secondsRun} s): drill ${r.cpuSeconds.client} s, server ${r.cpuSeconds.server === null ? 'not measured (not embedded)' : `${r.cpuSeconds.server} s`}`,
    `per second: ${r.perSecond.holds} holds, ${r.perSecond.orders} orders, ${r.perSecond.payments} payments, ${r.perSecond.seatsTicketed} seats ticketed`,
    '',
    'step        count      p50 ms      p99 ms      max ms',
    ...steps.map((s) => {
      const x = report.steps[s];
      return `${s.padEnd(8)}${String(x.count).padStart(9)}${x.p50Ms.toFixed(1).padStart(12)}${x.p99Ms.toFixed(1).padStart(12)}${x.maxMs.toFixed(1).padStart(12)}`;
    }),
    '',
    report.refusals.length === 0 ? 'refusals: none' : `refusals: ${report.refusals.map((x) => `${x.step} ${x.code} ×${x.count}`).join(', ')}`,
    '',
    `audit: ${report.audit.passed ? 'PASSED' : 'FAILED'}${report.phase === null ? '' : `; drill checks: ${report.phase.checks.every((c) => c.passed) ? 'PASSED' : 'FAILED'}`}`,
    ...report.audit.checks.map((c) => `  ${c.passed ? 'ok  ' : 'FAIL'} ${c.name}: ${c.detail}`),
    '',
  ];
  return lines.join('\n');
}
