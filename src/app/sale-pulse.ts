/**
 * The organizer's live chart (issue 26 item 6): per show, holds placed and refusals by code over
 * the last minutes, from this process's own figures (no Prometheus). A ring of `slots` buckets of
 * `stepSeconds` per show; at most `showsMax` shows (least recently written dropped), at most
 * `codesMax` codes per bucket (the rest counted as OTHER): memory is bounded whatever the rush.
 *
 * Across processes: each process counts the requests it answered. The stats route answers the
 * figures of the process it reached; behind a load balancer the chart shows that process's share
 * (the totals beside it, sold and held, come from the shared read model and are whole).
 */
export interface PulsePoint {
  /** Start of the bucket, epoch ms. */
  readonly at: number;
  readonly holds: number;
  readonly refusals: Readonly<Record<string, number>>;
}

export interface PulseSeries {
  readonly stepSeconds: number;
  readonly points: readonly PulsePoint[];
}

interface Bucket {
  slot: number;
  holds: number;
  refusals: Map<string, number>;
}

export const pulseDefaults = { stepSeconds: 5, slots: 60, showsMax: 256, codesMax: 12 } as const;

export class SalePulse {
  private readonly shows = new Map<string, Bucket[]>();

  constructor(private readonly options: { readonly stepSeconds: number; readonly slots: number; readonly showsMax: number; readonly codesMax: number } = pulseDefaults) {}

  /** One hold request of the show answered: HELD, or the refusal's code. */
  record(showId: string, outcome: string, nowMs: number): void {
    let ring = this.shows.get(showId);
    if (ring === undefined) {
      if (this.shows.size >= this.options.showsMax) this.shows.delete(this.shows.keys().next().value as string);
      ring = Array.from({ length: this.options.slots }, () => ({ slot: -1, holds: 0, refusals: new Map<string, number>() }));
    } else {
      this.shows.delete(showId);
    }
    this.shows.set(showId, ring); // most recently written last
    const slot = Math.floor(nowMs / 1000 / this.options.stepSeconds);
    const bucket = ring[slot % this.options.slots] as Bucket;
    if (bucket.slot !== slot) {
      bucket.slot = slot;
      bucket.holds = 0;
      bucket.refusals.clear();
    }
    if (outcome === 'HELD') {
      bucket.holds++;
      return;
    }
    const code = bucket.refusals.has(outcome) || bucket.refusals.size < this.options.codesMax ? outcome : 'OTHER';
    bucket.refusals.set(code, (bucket.refusals.get(code) ?? 0) + 1);
  }

  /** The last `slots` buckets up to now, oldest first, empty ones included. */
  series(showId: string, nowMs: number): PulseSeries {
    const { stepSeconds, slots } = this.options;
    const ring = this.shows.get(showId);
    const current = Math.floor(nowMs / 1000 / stepSeconds);
    const points: PulsePoint[] = [];
    for (let slot = current - slots + 1; slot <= current; slot++) {
      const bucket = ring?.[slot % slots];
      const live = bucket !== undefined && bucket.slot === slot;
      points.push({ at: slot * stepSeconds * 1000, holds: live ? bucket.holds : 0, refusals: live ? Object.fromEntries(bucket.refusals) : {} });
    }
    return { stepSeconds, points };
  }
}
