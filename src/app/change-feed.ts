import type { OutboxEvent, Store } from '../ports/engine/index.js';
import type { SeatMapCache } from './seat-map-cache.js';

/** How often a process looks for other processes' changes: well inside the 1 s the issue allows. */
export const changeFeedIntervalMsDefault = 50;
/** Start-up tries of outboxHead (a busy pool at boot is not a reason to fail the start), and the pause between them. */
const headTriesMax = 10;
const headRetryMs = 100;
/** Rows per read, and reads per tick: a burst is caught up over a few ticks, never in one long one. */
const pageMax = 500;
const pagesPerTickMax = 4;

export interface ChangeFeedOptions {
  readonly intervalMs?: number;
  /** A read that failed (the store is away): reported, and the next tick tries again from the same position. */
  readonly onError?: (error: unknown) => void;
  /** Other processes' rows, each handed here too (the waiting rooms' cache follows 'waiting-room.changed'). */
  readonly onEvent?: (event: OutboxEvent) => void;
}

export interface ChangeFeed {
  /** Where this process has read up to (null before the first read). */
  readonly position: string | null;
  /** One tick now (tests; the timer calls the same). */
  tick(): Promise<number>;
  stop(): void;
}

/**
 * One read model for every process: each process tails the outbox from where it stood at start
 * (outboxHead: everything before is in the snapshots it loads later) and applies the rows OTHER
 * processes wrote to its seat maps and live streams. Its own rows it skips: it applied their
 * changes the moment its store call returned (read-model-store.ts), so a stock delta is never
 * applied twice. Remote seat changes are versioned; remote stock changes make the read model
 * read the show's counters again (seat-map-cache.ts applyRemote), so a change already in a
 * snapshot is not counted again. In memory only: a restarted process starts from the head again
 * and loads fresh snapshots.
 */
export async function startChangeFeed(store: Pick<Store, 'readOutbox' | 'outboxHead' | 'getShow'>, seatMaps: SeatMapCache, origin: string, options: ChangeFeedOptions = {}): Promise<ChangeFeed> {
  let position: string | null = await headWithRetries(store);
  let running = false;
  let stopped = false;

  const applyEvent = (event: OutboxEvent): void => {
    if (event.origin === origin) return;
    seatMaps.applyRemote(event.changes);
    options.onEvent?.(event);
    if (event.type === 'show.changed' && event.showId !== null) void seatMaps.refreshShow(event.showId, (id) => store.getShow(id)).catch(options.onError ?? (() => undefined));
  };

  const tick = async (): Promise<number> => {
    if (running) return 0;
    running = true;
    let applied = 0;
    try {
      for (let page = 0; page < pagesPerTickMax && !stopped; page++) {
        const read = await store.readOutbox(position, pageMax);
        for (const event of read.events) applyEvent(event);
        applied += read.events.length;
        position = read.position;
        if (read.events.length < pageMax) break;
      }
    } catch (error) {
      options.onError?.(error);
    } finally {
      running = false;
    }
    return applied;
  };

  const timer = setInterval(() => void tick(), options.intervalMs ?? changeFeedIntervalMsDefault);
  timer.unref();
  return {
    get position() {
      return position;
    },
    tick,
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}

/**
 * Where the feed starts. It must be known before the first request loads a show, or changes
 * committed in between could be missed, so it is read at start; a busy moment is waited out (bounded).
 */
async function headWithRetries(store: Pick<Store, 'outboxHead'>): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await store.outboxHead();
    } catch (error) {
      if (attempt >= headTriesMax) throw error;
      await new Promise((resolve) => setTimeout(resolve, headRetryMs));
    }
  }
}
