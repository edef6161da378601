/** The steps a seat goes through; `ticket` is from the payment's acceptance to the order seen TICKETED. */
export const steps = ['register', 'login', 'hold', 'order', 'pay', 'ticket'] as const;
export type Step = (typeof steps)[number];

export interface StepSummary {
  readonly count: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

export interface Refusal {
  readonly step: Step | 'release' | 'audit';
  readonly code: string;
  readonly count: number;
}

export interface TimelinePoint {
  /** Seconds since the first hold was sent. */
  readonly t: number;
  readonly held: number;
  readonly paid: number;
  readonly ticketed: number;
}

/** Latencies per step, refusals by code, and seat counts over time; all in memory (a sell-out is ~10^4 flows). */
export class DrillStats {
  private readonly samples = new Map<Step, number[]>(steps.map((s) => [s, []]));
  private readonly refusals = new Map<string, { step: Refusal['step']; code: string; count: number }>();
  readonly timeline: TimelinePoint[] = [];
  seatsHeld = 0;
  seatsPaid = 0;
  seatsTicketed = 0;
  holds = 0;
  orders = 0;
  payments = 0;
  ticketedOrders = 0;

  record(step: Step, ms: number): void {
    this.samples.get(step)?.push(ms);
  }

  refuse(step: Refusal['step'], code: string): void {
    const key = `${step} ${code}`;
    const seen = this.refusals.get(key);
    if (seen === undefined) this.refusals.set(key, { step, code, count: 1 });
    else seen.count++;
  }

  refusalCount(): number {
    let total = 0;
    for (const r of this.refusals.values()) total += r.count;
    return total;
  }

  refusalList(): Refusal[] {
    return [...this.refusals.values()].sort((a, b) => b.count - a.count);
  }

  mark(t: number): void {
    this.timeline.push({ t: round(t, 3), held: this.seatsHeld, paid: this.seatsPaid, ticketed: this.seatsTicketed });
  }

  summary(): Record<Step, StepSummary> {
    const out = {} as Record<Step, StepSummary>;
    for (const step of steps) out[step] = summarise(this.samples.get(step) ?? []);
    return out;
  }
}

export function summarise(values: readonly number[]): StepSummary {
  if (values.length === 0) return { count: 0, p50Ms: 0, p99Ms: 0, maxMs: 0 };
  const sorted = Float64Array.from(values).sort();
  return { count: sorted.length, p50Ms: round(percentile(sorted, 0.5), 2), p99Ms: round(percentile(sorted, 0.99), 2), maxMs: round(sorted[sorted.length - 1] ?? 0, 2) };
}

/** Nearest-rank percentile of sorted values. */
export function percentile(sorted: Float64Array, p: number): number {
  const rank = Math.max(1, Math.ceil(p * sorted.length));
  return sorted[rank - 1] ?? 0;
}

export function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
