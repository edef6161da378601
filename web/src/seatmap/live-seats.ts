import { signal } from '@preact/signals';
import { isCounted, mapSections, type SectionAvailability, type Show } from '../api';
import { setCurrency } from '../format';
import { buildLayout, statusLetters, type SeatLayout } from './layout';

interface CompactMap {
  readonly version: number;
  /** What is left of every section (counted sections have no seats in seatIds' drawn part). */
  readonly sections?: readonly SectionAvailability[];
  readonly seatIds: readonly string[];
  readonly statuses: string;
}

interface SeatsEvent {
  readonly from: number;
  readonly to: number;
  readonly changes: readonly (readonly [string, string])[];
  /** The availability of every section now (newer servers); absent: counted stock is re-read. */
  readonly sections?: readonly SectionAvailability[];
}

export type Listener = (changed: readonly number[] | 'ALL') => void;

/**
 * connecting: first connection; live: events flowing; reconnecting: the browser retries by itself;
 * paused: the browser gave up (a non-200 answer, e.g. 503 at the connection cap) and we retry later.
 */
export type LiveState = 'connecting' | 'live' | 'reconnecting' | 'paused';

/** Our own retries once the EventSource gave up: exponential from 1 s, capped at 30 s, with jitter. */
export const reconnectBackoff = { baseMs: 1000, maxMs: 30_000 };
/** Counted stock is re-read at most this often when the stream does not carry it. */
const availabilityRefreshMs = 1000;

/** Render and live-update timings, read by the browser tests (and handy in devtools). */
export const seatMapTimings = { loadMs: 0, layoutMs: 0, drawMs: 0, longestSliceMs: 0, lastUpdateMs: 0, updates: 0, reconnects: 0 };
(window as unknown as { __seatMapTimings: typeof seatMapTimings }).__seatMapTimings = seatMapTimings;

/** The delay before retry number `attempt` (0-based): min(cap, base·2^attempt), less up to half at random. */
export function backoffDelay(attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(reconnectBackoff.maxMs, reconnectBackoff.baseMs * 2 ** Math.min(attempt, 20));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/**
 * A show's seat statuses and counted stock kept current by the server's event stream (no polling).
 * The map is fetched once (compact form), then each batch is applied when it continues from our
 * version; a gap, a `reload` or a new epoch (the show made again) fetches the map again. When the
 * browser's EventSource gives up for good (it does on a non-200 answer), we reconnect ourselves
 * with capped exponential backoff and jitter, and fetch the map again once back.
 */
export class LiveSeats {
  readonly live = signal<LiveState>('connecting');
  /** What is left of each section by id (counted sections from the server; seated ones too). */
  readonly available = signal<ReadonlyMap<string, number>>(new Map());
  /** Statuses of the seats on the map (seated sections sold by SEAT), in layout order. */
  statuses: Uint8Array = new Uint8Array(0);
  version = 0;
  private epoch = '';
  private source: EventSource | null = null;
  private readonly listeners = new Set<Listener>();
  private closed = false;
  private attempt = 0;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  /** Set once the stream was lost: the next `hello` fetches the map again. */
  private resync = false;
  private availabilityTimer: ReturnType<typeof setTimeout> | undefined;
  private availabilityAt = 0;
  private availabilityAgain = false;
  /** Position in the server's seatIds of each seat on the map. */
  private readonly positions: Int32Array;
  readonly hasCounted: boolean;

  private constructor(readonly show: Show, readonly layout: SeatLayout, positions: Int32Array) {
    this.positions = positions;
    this.hasCounted = show.sections.some(isCounted);
    // For tests and support: the status letter of a seat as this page sees it now.
    (window as unknown as { __seatStatus: (id: string) => string | undefined }).__seatStatus = (id) => {
      const i = layout.index.get(id);
      return i === undefined ? undefined : statusLetters[this.statuses[i] as number];
    };
    (window as unknown as { __liveState: () => LiveState }).__liveState = () => this.live.value;
  }

  /** Fetches the show and its map side by side (a first look at a big show is mostly fetching). */
  static async open(showId: string, fetchShow: Promise<Show>): Promise<LiveSeats> {
    const started = performance.now();
    const [show, map] = await Promise.all([fetchShow, fetchMap(showId)]);
    // Prices on this page are in the show's own currency.
    if (show.currency !== undefined) setCurrency(show.currency);
    seatMapTimings.loadMs = performance.now() - started;
    const t0 = performance.now();
    // Only seats of sections sold by SEAT are drawn; seats of sections sold by QUANTITY are
    // picked at ticketing and shown as a counted block.
    const drawn = mapSections(show.sections);
    const drawnIds = new Set(drawn.map((s) => s.id));
    const all = drawn.length === show.sections.length;
    const positions: number[] = [];
    const ids: string[] = [];
    map.body.seatIds.forEach((id, i) => {
      if (all || drawnIds.has(id.slice(0, id.indexOf('-')))) {
        positions.push(i);
        ids.push(id);
      }
    });
    // Sections where the server places them (the picture best available measures on).
    const seats = new LiveSeats(show, buildLayout(drawn, ids, show.geometry), Int32Array.from(positions));
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
    clearTimeout(this.retryTimer);
    clearTimeout(this.availabilityTimer);
    this.source?.close();
  }

  private take(map: CompactMap, epoch: string): void {
    const statuses = new Uint8Array(this.positions.length);
    for (let i = 0; i < statuses.length; i++) statuses[i] = statusLetters.indexOf(map.statuses[this.positions[i] as number] as string);
    this.statuses = statuses;
    this.version = map.version;
    this.epoch = epoch;
    if (map.sections !== undefined) this.takeSections(map.sections);
  }

  private takeSections(sections: readonly SectionAvailability[]): void {
    const next = new Map(this.available.value);
    let changed = false;
    for (const s of sections) {
      if (next.get(s.id) !== s.available) changed = true;
      next.set(s.id, s.available);
    }
    if (changed) this.available.value = next;
  }

  private connect(): void {
    if (this.closed) return;
    const source = new EventSource(`/api/v1/shows/${encodeURIComponent(this.show.showId)}/events?since=${this.version}`);
    this.source = source;
    source.onopen = () => {
      this.live.value = 'live';
    };
    source.onerror = () => {
      if (this.closed || this.source !== source) return;
      this.resync = true;
      if (source.readyState === EventSource.CLOSED) {
        // The browser will not try again (a 503 at the connection cap, a 5xx from a proxy...).
        source.close();
        this.source = null;
        this.live.value = 'paused';
        const delay = backoffDelay(this.attempt++);
        this.retryTimer = setTimeout(() => {
          seatMapTimings.reconnects++;
          this.connect();
        }, delay);
      } else {
        this.live.value = 'reconnecting';
      }
    };
    source.addEventListener('hello', (e) => {
      const hello = JSON.parse((e as MessageEvent<string>).data) as { version: number; epoch: string };
      this.live.value = 'live';
      this.attempt = 0;
      // Back after a gap: what changed meanwhile may not all come as events (counted stock), so read the map again.
      const resync = this.resync;
      this.resync = false;
      if (resync || hello.epoch !== this.epoch || hello.version < this.version) void this.reload();
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
    if (batch.sections !== undefined) this.takeSections(batch.sections);
    else if (this.hasCounted) this.refreshAvailability();
    for (const listener of this.listeners) listener(changed);
    seatMapTimings.lastUpdateMs = performance.now() - started;
    seatMapTimings.updates++;
  }

  /** An older server's events carry no counted stock: read it (at most once a second) after a change. */
  private refreshAvailability(): void {
    if (this.availabilityTimer !== undefined) {
      this.availabilityAgain = true;
      return;
    }
    const wait = Math.max(0, this.availabilityAt + availabilityRefreshMs - Date.now());
    this.availabilityTimer = setTimeout(() => {
      this.availabilityAt = Date.now();
      void fetch(`/api/v1/shows/${encodeURIComponent(this.show.showId)}/availability`, { headers: { accept: 'application/json' } })
        .then((r) => (r.ok ? (r.json() as Promise<{ sections: SectionAvailability[] }>) : null))
        .then((body) => {
          if (body !== null && !this.closed) this.takeSections(body.sections);
        }, () => undefined)
        .finally(() => {
          this.availabilityTimer = undefined;
          if (this.availabilityAgain && !this.closed) {
            this.availabilityAgain = false;
            this.refreshAvailability();
          }
        });
    }, wait);
  }

  private async reload(): Promise<void> {
    let map: Awaited<ReturnType<typeof fetchMap>>;
    try {
      map = await fetchMap(this.show.showId);
    } catch {
      // The stream is still there: the next gap or reconnect tries again.
      this.resync = true;
      return;
    }
    if (this.closed) return;
    this.take(map.body, map.epoch);
    for (const listener of this.listeners) listener('ALL');
  }
}

async function fetchMap(showId: string): Promise<{ body: CompactMap; epoch: string }> {
  const response = await fetch(`/api/v1/shows/${encodeURIComponent(showId)}/seats?format=compact`, { headers: { accept: 'application/json' } });
  if (!response.ok) throw new Error(`seat map: ${response.status}`);
  // ETag is "<epoch>-<version>-<digest>-c": the epoch tells a show made again under the same id apart.
  const epoch = (response.headers.get('etag') ?? '').replace(/"/g, '').split('-')[0] ?? '';
  return { body: (await response.json()) as CompactMap, epoch };
}
