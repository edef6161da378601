/** The steps a seat goes through; `ticket` is from the payment's acceptance to the order seen TICKETED. */
export const steps = ['register', 'login', 'queue', 'admit', 'hold', 'order', 'pay', 'ticket'] as const;
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
  /** Refusals so far, all codes (the report plots their rate). */
  readonly refused?: number;
  /** Refusals since the previous point, by code (only codes that occurred). */
  readonly refusedByCode?: Readonly<Record<string, number>>;
  /** Answers that succeeded so far, any step (goodput is their rate). */
  readonly succeeded?: number;
}

/** Upper bounds (ms) of the latency histogram's buckets; the last bucket is everything above. */
export const histogramBoundsMs = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000] as const;

export interface Histogram {
  readonly boundsMs: readonly number[];
  /** Per step, counts per bucket (one more than the bounds: the overflow). */
  readonly counts: Readonly<Partial<Record<Step, readonly number[]>>>;
}

/** Latencies per step, refusals by code, and seat counts over time; all in memory (a sell-out is ~10^4 flows). */
export class DrillStats {
  private readonly samples = new Map<Step, number[]>(steps.map((s) => [s, []]));
  private readonly refusals = new Map<string, { step: Refusal['step']; code: string; count: number }>();
  readonly timeline: TimelinePoint[] = [];
  private refusedSinceMark = new Map<string, number>();
  private succeeded = 0;
  seatsHeld = 0;
  seatsPaid = 0;
  seatsTicketed = 0;
  holds = 0;
  orders = 0;
  payments = 0;
  ticketedOrders = 0;

  record(step: Step, ms: number): void {
    this.samples.get(step)?.push(ms);
    this.succeeded++;
  }

  refuse(step: Refusal['step'], code: string): void {
    this.refusedSinceMark.set(code, (this.refusedSinceMark.get(code) ?? 0) + 1);
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
    const refusedByCode = Object.fromEntries(this.refusedSinceMark);
    this.refusedSinceMark = new Map();
    this.timeline.push({ t: round(t, 3), held: this.seatsHeld, paid: this.seatsPaid, ticketed: this.seatsTicketed, refused: this.refusalCount(), refusedByCode, succeeded: this.succeeded });
  }

  /** Latencies of the answers that succeeded, bucketed, per step that has any. */
  histogram(): Histogram {
    const counts: Partial<Record<Step, number[]>> = {};
    for (const step of steps) {
      const values = this.samples.get(step) ?? [];
      if (values.length === 0 || step === 'register' || step === 'login') continue;
      const row = new Array<number>(histogramBoundsMs.length + 1).fill(0);
      for (const v of values) {
        let i = histogramBoundsMs.findIndex((b) => v <= b);
        if (i < 0) i = histogramBoundsMs.length;
        row[i] = (row[i] ?? 0) + 1;
      }
      counts[step] = row;
    }
    return { boundsMs: [...histogramBoundsMs], counts };
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
