import { EventEmitter } from 'node:events';
import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SeatFeed } from '../../src/app/seat-feed.js';
import { LiveHub } from '../../src/http/live/live-hub.js';
import { adminClient, ApiClient, createShow } from '../support/api-client.js';
import { startTestNode, type TestNode } from '../support/backend.js';
import { sleep } from '../support/wait.js';

/** Retries an assertion until it holds, or rethrows its last failure after `timeoutMs`. */
async function eventually(check: () => unknown, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await sleep(25);
    }
  }
}

interface SseEvent {
  readonly id: string | null;
  readonly event: string;
  readonly data: any;
}

/** An EventSource over a real socket: collects parsed events and raw comment lines. */
class SseClient {
  readonly events: SseEvent[] = [];
  comments = 0;
  status = 0;
  body: string = '';
  private response: IncomingMessage | null = null;

  static open(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
    const client = new SseClient();
    return new Promise((resolve, reject) => {
      const req = httpRequest(url, { headers: { accept: 'text/event-stream', ...headers } }, (res) => {
        client.response = res;
        client.status = res.statusCode ?? 0;
        let buffer = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          client.body += chunk;
          buffer += chunk;
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            client.parse(buffer.slice(0, end));
            buffer = buffer.slice(end + 2);
          }
        });
        res.on('error', () => undefined);
        resolve(client);
      });
      req.on('error', reject);
      req.end();
    });
  }

  private parse(block: string): void {
    let id: string | null = null;
    let event = 'message';
    let data = '';
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) this.comments++;
      else if (line.startsWith('id: ')) id = line.slice(4);
      else if (line.startsWith('event: ')) event = line.slice(7);
      else if (line.startsWith('data: ')) data += line.slice(6);
    }
    if (data !== '') this.events.push({ id, event, data: JSON.parse(data) });
  }

  of(event: string): SseEvent[] {
    return this.events.filter((e) => e.event === event);
  }

  close(): void {
    this.response?.destroy();
  }
}

let t: TestNode & { baseUrl: string };
let admin: ApiClient;
let seq = 0;
const buyer = async () => new ApiClient(t.node.app).signUp(`live${++seq}`);

beforeAll(async () => {
  t = await startTestNode({ env: { TICKETRUSH_LIVE_CONNECTIONS_MAX: '3' } });
  admin = await adminClient(t.node.app);
});
afterAll(async () => t.close());

describe('live seat changes (GET /shows/{id}/events)', () => {
  it('says hello with the map version, then pushes each committed change with the version it leads to', async () => {
    const showId = await createShow(admin);
    const sse = await SseClient.open(`${t.baseUrl}/api/v1/shows/${showId}/events`);
    try {
      expect(sse.status).toBe(200);
      await eventually(() => expect(sse.of('hello')).toHaveLength(1));
      const hello = sse.of('hello')[0] as SseEvent;
      expect(hello.data.version).toBe(0);
      expect(hello.id).toBe('0');
      const hold = await (await buyer()).request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-1-1', 'A-1-2'] });
      expect(hold.status).toBe(201);
      await eventually(() => expect(sse.of('seats')).toHaveLength(1));
      const seats = sse.of('seats')[0] as SseEvent;
      expect(seats.id).toBe('2');
      expect(seats.data).toEqual({ from: 0, to: 2, changes: [['A-1-1', 'H'], ['A-1-2', 'H']], sections: [{ id: 'A', available: 98 }] });
      const map = (await admin.request('GET', `/api/v1/shows/${showId}/seats`)).body;
      expect(map.version).toBe(2);
    } finally {
      sse.close();
    }
  });

  it('batches a burst of changes into a few events a second per client', async () => {
    const showId = await createShow(admin);
    const sse = await SseClient.open(`${t.baseUrl}/api/v1/shows/${showId}/events`);
    try {
      await eventually(() => expect(sse.of('hello')).toHaveLength(1));
      const started = Date.now();
      const people = await Promise.all(Array.from({ length: 20 }, () => buyer()));
      await Promise.all(people.map((p, i) => p.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: [`A-${Math.floor(i / 10) + 1}-${(i % 10) + 1}`] })));
      await eventually(() => expect(sse.of('seats').at(-1)?.data.to).toBe(20));
      const seconds = Math.max(1, (Date.now() - started) / 1000);
      // At most one event per 250 ms batch, plus one for a batch in progress.
      expect(sse.of('seats').length).toBeLessThanOrEqual(Math.ceil(seconds * 4) + 1);
      expect(new Set(sse.of('seats').flatMap((e) => e.data.changes.map((c: string[]) => c[0]))).size).toBe(20);
    } finally {
      sse.close();
    }
  });

  it('resumes from Last-Event-ID with what was missed, and tells a client too far off to reload', async () => {
    const showId = await createShow(admin);
    const watcher = await SseClient.open(`${t.baseUrl}/api/v1/shows/${showId}/events`);
    try {
      await eventually(() => expect(watcher.of('hello')).toHaveLength(1));
      const alice = await buyer();
      await alice.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-3-1'] });
      await alice.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-3-2'] });
      await eventually(() => expect(watcher.of('seats').at(-1)?.data.to).toBe(2));
      const resumed = await SseClient.open(`${t.baseUrl}/api/v1/shows/${showId}/events`, { 'last-event-id': '1' });
      await eventually(() => expect(resumed.of('seats')).toHaveLength(1));
      expect(resumed.of('seats')[0]?.data).toMatchObject({ from: 1, to: 2, changes: [['A-3-2', 'H']] });
      resumed.close();
      // A version this server never reached (another process, or before a restart): reload.
      const lost = await SseClient.open(`${t.baseUrl}/api/v1/shows/${showId}/events`, { 'last-event-id': '999' });
      await eventually(() => expect(lost.of('reload')).toHaveLength(1));
      expect(lost.of('reload')[0]?.data).toEqual({ version: 2 });
      lost.close();
    } finally {
      watcher.close();
    }
  });

  it('caps connections per process with 503 LIVE_CONNECTIONS_FULL, and a closed stream frees its place', async () => {
    const showId = await createShow(admin);
    const open = await Promise.all([1, 2, 3].map(() => SseClient.open(`${t.baseUrl}/api/v1/shows/${showId}/events`)));
    await eventually(() => expect(open.every((c) => c.of('hello').length === 1)).toBe(true));
    const refused = await SseClient.open(`${t.baseUrl}/api/v1/shows/${showId}/events`);
    await eventually(() => expect(refused.body).toContain('LIVE_CONNECTIONS_FULL'));
    expect(refused.status).toBe(503);
    open[0]?.close();
    await eventually(async () => {
      const again = await SseClient.open(`${t.baseUrl}/api/v1/shows/${showId}/events`);
      await sleep(50);
      again.close();
      expect(again.status).toBe(200);
    });
    for (const c of open) c.close();
  });

  it('answers 404 for an unknown show, before any stream starts', async () => {
    const sse = await SseClient.open(`${t.baseUrl}/api/v1/shows/nope/events`);
    await eventually(() => expect(sse.body).toContain('SHOW_NOT_FOUND'));
    expect(sse.status).toBe(404);
  });
});

/** A response whose socket never drains: what a stalled phone on a bad network looks like. */
class FakeResponse extends EventEmitter {
  writableEnded = false;
  writableLength = 0;
  destroyed = false;
  written: string[] = [];
  write(text: string): boolean {
    this.written.push(text);
    return true;
  }
  end(): void {
    this.destroy();
  }
  destroy(): void {
    this.destroyed = true;
    this.emit('close');
  }
}

describe('seat change log', () => {
  it('replays what a client missed, coalesced per seat, and says RELOAD once that has left the bounded log', () => {
    const feed = new SeatFeed(Date.now, 4);
    const ids = ['A-1-1', 'A-1-2', 'A-1-3'];
    feed.open('s', ids.length, (i) => ids[i] as string, 0);
    feed.record('s', 0, 1, 1);
    feed.record('s', 0, 2, 2);
    feed.record('s', 1, 1, 3);
    expect(feed.since('s', 0)).toEqual({ from: 0, to: 3, changes: [['A-1-1', 'S'], ['A-1-2', 'H']] });
    feed.record('s', 2, 1, 4);
    feed.record('s', 1, 0, 5);
    expect(feed.since('s', 0)).toBe('RELOAD');
    expect(feed.since('s', 1)).toEqual({ from: 1, to: 5, changes: [['A-1-1', 'S'], ['A-1-2', 'A'], ['A-1-3', 'H']] });
    expect(feed.since('s', 6)).toBe('RELOAD');
    feed.close('s');
    // The read model dropped the show: the log is gone, and a late resumer reloads.
    expect(feed.since('s', 5)).toBe('RELOAD');
  });

  it('keeps answering across a version that jumped (versions are sums of stored versions), and ignores one that does not go up', () => {
    const feed = new SeatFeed(Date.now, 8);
    const ids = ['A-1-1', 'A-1-2'];
    feed.open('s', ids.length, (i) => ids[i] as string, 10);
    feed.record('s', 0, 1, 11);
    // A seat that moved two versions at once (its middle change never seen here), then counted stock by three.
    feed.record('s', 1, 2, 13);
    feed.recordStock('s', 16);
    expect(feed.since('s', 10)).toEqual({ from: 10, to: 16, changes: [['A-1-1', 'H'], ['A-1-2', 'S']] });
    expect(feed.since('s', 12)).toEqual({ from: 12, to: 16, changes: [['A-1-2', 'S']] });
    expect(feed.since('s', 14)).toEqual({ from: 14, to: 16, changes: [] });
    feed.record('s', 0, 0, 16);
    expect(feed.version('s')).toBe(16);
    expect(feed.since('s', 10)).toEqual({ from: 10, to: 16, changes: [['A-1-1', 'H'], ['A-1-2', 'S']] });
    // A jump past the whole ring: older versions are a reload.
    feed.record('s', 0, 0, 40);
    expect(feed.since('s', 16)).toBe('RELOAD');
    expect(feed.since('s', 39)).toEqual({ from: 39, to: 40, changes: [['A-1-1', 'A']] });
  });
});

describe('live hub bounds', () => {
  it('sends heartbeats on a quiet stream and drops a client that stops reading', async () => {
    const feed = new SeatFeed(Date.now);
    feed.open('show-1', 2, (i) => ['A-1-1', 'A-1-2'][i] as string, 0);
    const hub = new LiveHub(feed, { connectionsMax: 10, batchIntervalMs: 10, heartbeatIntervalMs: 30, clientBufferBytesMax: 1000 });
    const quiet = new FakeResponse();
    const stalled = new FakeResponse();
    hub.add('show-1', 0, 'e', quiet as unknown as ServerResponse, null);
    hub.add('show-1', 0, 'e', stalled as unknown as ServerResponse, null);
    await eventually(() => expect(quiet.written.filter((w) => w.startsWith(': heartbeat')).length).toBeGreaterThan(1));
    expect(hub.connections).toBe(2);
    stalled.writableLength = 5000;
    feed.record('show-1', 0, 1, 1);
    feed.changed('show-1');
    await eventually(() => expect(stalled.destroyed).toBe(true));
    expect(hub.dropped).toBe(1);
    expect(hub.connections).toBe(1);
    expect(quiet.written.some((w) => w.includes('event: seats') && w.includes('"A-1-1","H"'))).toBe(true);
    hub.closeAll();
    expect(hub.connections).toBe(0);
  });
});

describe('live hub bookkeeping', () => {
  it('does not count a client that hung up before its stream started', () => {
    const hub = new LiveHub(new SeatFeed(Date.now), { connectionsMax: 1 });
    const gone = new FakeResponse();
    gone.destroyed = true;
    hub.add('show-1', 0, 'e', gone as unknown as ServerResponse, null);
    expect(hub.connections).toBe(0);
    expect(hub.full).toBe(false);
  });
});
