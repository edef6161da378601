import type { ServerResponse } from 'node:http';
import type { ChangeBatch, SeatFeed } from '../../app/seat-feed.js';
import { liveLimits } from '../../domain/live-limits.js';

interface Client {
  readonly showId: string;
  readonly raw: ServerResponse;
  /** The version this client's map is at, as far as we have told it. */
  sent: number;
  lastWriteAt: number;
}

interface Watched {
  readonly clients: Set<Client>;
  readonly unwatch: () => void;
}

export interface LiveHubOptions {
  readonly connectionsMax: number;
  readonly batchIntervalMs?: number;
  readonly heartbeatIntervalMs?: number;
  readonly clientBufferBytesMax?: number;
  readonly now?: () => number;
  /** What is left of each section of a show now (null when unknown): sent with every `seats` event, so counted stock updates live too. */
  readonly sectionsOf?: (showId: string) => readonly { id: string; available: number }[] | null;
}

/**
 * The process's live seat-map streams. Booking never waits on a client: the feed only marks a
 * show dirty, and one timer sends each client what changed since its version, coalesced, at most
 * once per batch interval. A client that does not drain its socket is dropped, not buffered for.
 */
export class LiveHub {
  private readonly shows = new Map<string, Watched>();
  private readonly dirty = new Set<string>();
  private count = 0;
  private timer: NodeJS.Timeout | null = null;
  private readonly batchIntervalMs: number;
  private readonly heartbeatIntervalMs: number;
  private readonly bufferMax: number;
  private readonly now: () => number;
  /** Clients dropped for not reading; exposed for tests and logs. */
  dropped = 0;

  constructor(private readonly feed: SeatFeed, private readonly options: LiveHubOptions) {
    this.batchIntervalMs = options.batchIntervalMs ?? liveLimits.batchIntervalMs;
    this.heartbeatIntervalMs = options.heartbeatIntervalMs ?? liveLimits.heartbeatIntervalMs;
    this.bufferMax = options.clientBufferBytesMax ?? liveLimits.clientBufferBytesMax;
    this.now = options.now ?? Date.now;
  }

  get connections(): number {
    return this.count;
  }

  get full(): boolean {
    return this.count >= this.options.connectionsMax;
  }

  /**
   * Starts streaming a show to an open response. `version` is the map's version now; `resumeFrom`
   * the version the client already has (Last-Event-ID), if any.
   */
  add(showId: string, version: number, epoch: string, raw: ServerResponse, resumeFrom: number | null): void {
    // Gone already (it hung up while the map loaded): its 'close' has fired, so it must not be counted.
    if (raw.destroyed || raw.writableEnded) return;
    let watched = this.shows.get(showId);
    if (watched === undefined) {
      const clients = new Set<Client>();
      const unwatch = this.feed.watch(showId, () => this.dirty.add(showId));
      this.shows.set(showId, (watched = { clients, unwatch }));
    }
    const client: Client = { showId, raw, sent: version, lastWriteAt: this.now() };
    watched.clients.add(client);
    this.count++;
    raw.on('close', () => this.remove(client));
    // A socket error ends in 'close' too; unhandled, it would take the process down.
    raw.on('error', () => raw.destroy());
    this.write(client, `retry: 2000\nid: ${version}\nevent: hello\ndata: ${JSON.stringify({ version, epoch })}\n\n`);
    if (resumeFrom !== null && resumeFrom !== version) {
      client.sent = resumeFrom;
      this.sendSince(client, new Map());
    }
    this.ensureTimer();
  }

  /** Ends every stream (the server is closing). */
  closeAll(): void {
    for (const watched of this.shows.values()) for (const client of watched.clients) client.raw.end();
    this.stopTimer();
  }

  private remove(client: Client): void {
    const watched = this.shows.get(client.showId);
    if (watched === undefined || !watched.clients.delete(client)) return;
    this.count--;
    if (watched.clients.size === 0) {
      watched.unwatch();
      this.shows.delete(client.showId);
      this.dirty.delete(client.showId);
    }
    if (this.count === 0) this.stopTimer();
  }

  private tick(): void {
    for (const showId of this.dirty) {
      const watched = this.shows.get(showId);
      // Clients at the same version share one computed batch (the usual case: all of them).
      const memo = new Map<number, ChangeBatch | 'RELOAD'>();
      for (const client of watched?.clients ?? []) this.sendSince(client, memo);
    }
    this.dirty.clear();
    const quietSince = this.now() - this.heartbeatIntervalMs;
    for (const watched of this.shows.values()) {
      for (const client of watched.clients) if (client.lastWriteAt <= quietSince) this.write(client, ': heartbeat\n\n');
    }
  }

  private sendSince(client: Client, memo: Map<number, ChangeBatch | 'RELOAD'>): void {
    let batch = memo.get(client.sent);
    if (batch === undefined) memo.set(client.sent, (batch = this.feed.since(client.showId, client.sent)));
    if (batch === 'RELOAD') {
      const version = this.feed.version(client.showId) ?? 0;
      this.write(client, `id: ${version}\nevent: reload\ndata: ${JSON.stringify({ version })}\n\n`);
      client.sent = version;
      return;
    }
    if (batch.to === client.sent) return;
    const sections = this.options.sectionsOf?.(client.showId) ?? null;
    this.write(client, `id: ${batch.to}\nevent: seats\ndata: ${JSON.stringify(sections === null ? batch : { ...batch, sections })}\n\n`);
    client.sent = batch.to;
  }

  private write(client: Client, text: string): void {
    if (client.raw.destroyed || client.raw.writableEnded) return;
    if (client.raw.writableLength > this.bufferMax) {
      this.dropped++;
      client.raw.destroy();
      return;
    }
    client.raw.write(text);
    client.lastWriteAt = this.now();
  }

  private ensureTimer(): void {
    if (this.timer !== null) return;
    this.timer = setInterval(() => this.tick(), this.batchIntervalMs);
    this.timer.unref();
  }

  private stopTimer(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }
}
