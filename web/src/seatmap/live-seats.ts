import { signal } from '@preact/signals';
import type { Show } from '../api';
import { buildLayout, statusLetters, type SeatLayout } from './layout';

interface CompactMap {
  readonly version: number;
  readonly seatIds: readonly string[];
  readonly statuses: string;
}

interface SeatsEvent {
  readonly from: number;
  readonly to: number;
  readonly changes: readonly (readonly [string, string])[];
}

export type Listener = (changed: readonly number[] | 'ALL') => void;

/** Render and live-update timings, read by the browser tests (and handy in devtools). */
export const seatMapTimings = { loadMs: 0, layoutMs: 0, drawMs: 0, lastUpdateMs: 0, updates: 0 };
(window as unknown as { __seatMapTimings: typeof seatMapTimings }).__seatMapTimings = seatMapTimings;

/**
 * A show's seat statuses kept current by the server's event stream (no polling). The map is
 * fetched once (compact form), then each batch is applied when it continues from our version;
 * a gap, a `reload` or a server restart (new epoch) fetches the map again.
 */
export class LiveSeats {
  readonly live = signal<'connecting' | 'live' | 'reconnecting'>('connecting');
  statuses: Uint8Array = new Uint8Array(0);
  version = 0;
  private epoch = '';
  private source: EventSource | null = null;
  private readonly listeners = new Set<Listener>();
  private closed = false;

  private constructor(readonly show: Show, readonly layout: SeatLayout) {
    // For tests and support: the status letter of a seat as this page sees it now.
    (window as unknown as { __seatStatus: (id: string) => string | undefined }).__seatStatus = (id) => {
      const i = layout.index.get(id);
      return i === undefined ? undefined : statusLetters[this.statuses[i] as number];
    };
  }

  /** Fetches the show and its map side by side (a first look at a big show is mostly fetching). */
  static async open(showId: string, fetchShow: Promise<Show>): Promise<LiveSeats> {
    const started = performance.now();
    const [show, map] = await Promise.all([fetchShow, fetchMap(showId)]);
    seatMapTimings.loadMs = performance.now() - started;
    const t0 = performance.now();
    const seats = new LiveSeats(show, buildLayout(show.sections, map.body.seatIds));
    seatMapTimings.layoutMs = performance.now() - t0;
    seats.take(map.body, map.epoch);
    seats.connect();
    return seats;
  }

  /** A stable function (an arrow property), so components can depend on it. */
  readonly subscribe = (listener: Listener): (() => void) => {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  };

  close(): void {
    this.closed = true;
    this.source?.close();
  }

  private take(map: CompactMap, epoch: string): void {
    const statuses = new Uint8Array(map.statuses.length);
    for (let i = 0; i < map.statuses.length; i++) statuses[i] = statusLetters.indexOf(map.statuses[i] as string);
    this.statuses = statuses;
    this.version = map.version;
    this.epoch = epoch;
  }

  private connect(): void {
    const source = new EventSource(`/api/v1/shows/${encodeURIComponent(this.show.showId)}/events?since=${this.version}`);
    this.source = source;
    source.onopen = () => {
      this.live.value = 'live';
    };
    source.onerror = () => {
      if (!this.closed) this.live.value = 'reconnecting';
    };
    source.addEventListener('hello', (e) => {
      const hello = JSON.parse((e as MessageEvent<string>).data) as { version: number; epoch: string };
      this.live.value = 'live';
      if (hello.epoch !== this.epoch || hello.version < this.version) void this.reload();
    });
    source.addEventListener('reload', () => void this.reload());
    source.addEventListener('seats', (e) => this.onSeats(JSON.parse((e as MessageEvent<string>).data) as SeatsEvent));
  }

  private onSeats(batch: SeatsEvent): void {
    if (batch.to <= this.version) return;
    if (batch.from > this.version) {
      void this.reload();
      return;
    }
    const started = performance.now();
    const changed: number[] = [];
    for (const [seatId, letter] of batch.changes) {
      const i = this.layout.index.get(seatId);
      if (i === undefined) continue;
      this.statuses[i] = statusLetters.indexOf(letter);
      changed.push(i);
    }
    this.version = batch.to;
    for (const listener of this.listeners) listener(changed);
    seatMapTimings.lastUpdateMs = performance.now() - started;
    seatMapTimings.updates++;
  }

  private async reload(): Promise<void> {
    const map = await fetchMap(this.show.showId);
    this.take(map.body, map.epoch);
    for (const listener of this.listeners) listener('ALL');
  }
}

async function fetchMap(showId: string): Promise<{ body: CompactMap; epoch: string }> {
  const response = await fetch(`/api/v1/shows/${encodeURIComponent(showId)}/seats?format=compact`, { headers: { accept: 'application/json' } });
  if (!response.ok) throw new Error(`seat map: ${response.status}`);
  // ETag is "<epoch>-<version>-c": the epoch tells a restarted server apart.
  const epoch = (response.headers.get('etag') ?? '').replace(/"/g, '').split('-')[0] ?? '';
  return { body: (await response.json()) as CompactMap, epoch };
}
