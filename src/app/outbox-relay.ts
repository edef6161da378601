import type { OutboxEvent, OutboxSink } from '../ports/engine/index.js';
import type { AppContext } from './context.js';

/** Rows handed to a sink at once. */
export const relayPageMax = 200;
/** Pages per sink per pass: a pass is bounded however far behind a sink is (the next pass goes on). */
export const relayPagesPerPassMax = 10;
/** Backoff after a sink fails: doubled per failure from the base, up to the max. */
const backoffBaseMs = 250;
const backoffMaxMs = 60_000;
/** Rows deleted per retention statement, and statements per pass. */
const pruneBatchMax = 1_000;
const pruneBatchesPerPassMax = 10;

export type RelayContext = Pick<AppContext, 'store' | 'clock' | 'telemetry'>;

/** When each sink may be tried again after a failure (kept by the caller between passes). */
export class RelayBackoff {
  private readonly state = new Map<string, { failures: number; retryAt: number }>();

  ready(sink: string, now: number): boolean {
    return (this.state.get(sink)?.retryAt ?? 0) <= now;
  }

  failed(sink: string, now: number): number {
    const failures = (this.state.get(sink)?.failures ?? 0) + 1;
    const delay = Math.min(backoffMaxMs, backoffBaseMs * 2 ** Math.min(failures - 1, 20));
    // Jitter: relays on several processes that failed together do not retry together.
    const retryAt = now + delay / 2 + Math.random() * (delay / 2);
    this.state.set(sink, { failures, retryAt });
    return retryAt;
  }

  succeeded(sink: string): void {
    this.state.delete(sink);
  }
}

export interface SinkPass {
  readonly sink: string;
  readonly delivered: number;
  /** 'caught-up', 'more' (the pass's bound stopped it), 'failed' (the sink threw: same rows next time), 'stale' (another relay moved the cursor), 'waiting' (backing off). */
  readonly state: 'caught-up' | 'more' | 'failed' | 'stale' | 'waiting';
}

const lagSeconds = (now: number, oldest: OutboxEvent | undefined): number => (oldest === undefined ? 0 : Math.max(0, (now - oldest.createdAt) / 1000));

/**
 * One pass of the relay: for each durable sink, the rows after its cursor, a page at a time, are
 * handed to `sink.deliver`; only after it returns does the cursor move, by compare-and-set from
 * where it was read. So every row is delivered at least once, in position order, and two relays
 * (on two processes) never move a cursor backwards: the second one's move is stale and it reads
 * again next pass. A sink that throws gets the same rows again after a backoff. Bounded: at most
 * relayPagesPerPassMax pages of relayPageMax rows per sink per pass.
 */
export async function relayOnce(ctx: RelayContext, sinks: readonly OutboxSink[], backoff: RelayBackoff = new RelayBackoff()): Promise<SinkPass[]> {
  const passes: SinkPass[] = [];
  for (const sink of sinks) passes.push(await relaySink(ctx, sink, backoff));
  return passes;
}

async function relaySink(ctx: RelayContext, sink: OutboxSink, backoff: RelayBackoff): Promise<SinkPass> {
  if (!backoff.ready(sink.name, ctx.clock.now())) return { sink: sink.name, delivered: 0, state: 'waiting' };
  let cursor = await ctx.store.relayCursor(sink.name);
  let delivered = 0;
  for (let page = 0; page < relayPagesPerPassMax; page++) {
    const read = await ctx.store.readOutbox(cursor, relayPageMax);
    const now = ctx.clock.now();
    if (read.events.length === 0 || read.position === null) {
      ctx.telemetry.outboxRelayLag(sink.name, 0);
      return { sink: sink.name, delivered, state: 'caught-up' };
    }
    try {
      await sink.deliver(read.events);
    } catch (error) {
      backoff.failed(sink.name, now);
      ctx.telemetry.outboxRelayLag(sink.name, lagSeconds(now, read.events[0]));
      ctx.telemetry.jobFailed(`outbox-relay-${sink.name}`, error);
      return { sink: sink.name, delivered, state: 'failed' };
    }
    backoff.succeeded(sink.name);
    const moved = await ctx.store.advanceRelayCursor(sink.name, cursor, read.position);
    if (!moved.ok) return { sink: sink.name, delivered, state: 'stale' };
    delivered += read.events.length;
    cursor = read.position;
    if (read.events.length < relayPageMax) {
      ctx.telemetry.outboxRelayLag(sink.name, 0);
      return { sink: sink.name, delivered, state: 'caught-up' };
    }
    // A full page: more may follow; the lag is the age of what is left, known on the next read.
    ctx.telemetry.outboxRelayLag(sink.name, lagSeconds(now, read.events[read.events.length - 1]));
  }
  return { sink: sink.name, delivered, state: 'more' };
}

/**
 * Retention: rows older than `retentionMs` that every durable cursor has passed are deleted, a
 * bounded number per pass (the store keeps undelivered rows whatever their age).
 */
export async function pruneOutboxOnce(ctx: Pick<AppContext, 'store' | 'clock'>, retentionMs: number): Promise<number> {
  const before = ctx.clock.now() - retentionMs;
  let pruned = 0;
  for (let batch = 0; batch < pruneBatchesPerPassMax; batch++) {
    const n = await ctx.store.pruneOutbox(before, pruneBatchMax);
    pruned += n;
    if (n < pruneBatchMax) break;
  }
  return pruned;
}

export interface OutboxRelayLoop {
  stop(): void;
}

/**
 * The relay as a periodic pass in this process (until the job queue runs it as a named job): every
 * `intervalMs` one relayOnce over the sinks, and once a minute a retention pass. One pass at a
 * time; failures are reported and the next pass goes on.
 */
export function startOutboxRelay(
  ctx: RelayContext,
  sinks: readonly OutboxSink[],
  options: { readonly intervalMs: number; readonly retentionMs: number; readonly pruneEveryMs?: number },
): OutboxRelayLoop {
  const backoff = new RelayBackoff();
  const timers: NodeJS.Timeout[] = [];
  const every = (job: string, ms: number, pass: () => Promise<unknown>): void => {
    let running = false;
    const timer = setInterval(() => {
      if (running) return;
      running = true;
      pass()
        .catch((error: unknown) => ctx.telemetry.jobFailed(job, error))
        .finally(() => {
          running = false;
        });
    }, ms);
    timer.unref();
    timers.push(timer);
  };
  if (sinks.length > 0) every('outbox-relay', options.intervalMs, () => relayOnce(ctx, sinks, backoff));
  every('outbox-retention', options.pruneEveryMs ?? 60_000, () => pruneOutboxOnce(ctx, options.retentionMs));
  return { stop: () => timers.forEach((t) => clearInterval(t)) };
}
