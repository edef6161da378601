import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composeNode, type Node } from '../../src/compose.js';
import { loadConfig } from '../../src/config.js';
import { createShow as makeShow } from '../../src/domain/index.js';
import { adminClient, ApiClient, createShow } from '../support/api-client.js';
import { startTestNode, testStore, type TestNode } from '../support/backend.js';
import { sleep, within } from '../support/wait.js';


/** A live event stream over a real socket: its raw text so far. */
function openStream(url: string): { text: () => string; close: () => void } {
  let body = '';
  const req = httpRequest(url, { headers: { accept: 'text/event-stream' } }, (res) => {
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      body += chunk;
    });
    res.on('error', () => undefined);
  });
  req.on('error', () => undefined);
  req.end();
  return { text: () => body, close: () => req.destroy() };
}

const seatStatus = async (baseUrl: string, showId: string, seatId: string): Promise<string | undefined> => {
  const reply = await fetch(`${baseUrl}/api/v1/shows/${showId}/seats`);
  const map = (await reply.json()) as { seats: { seatId: string; status: string }[] };
  return map.seats.find((s) => s.seatId === seatId)?.status;
};

const availableIn = async (baseUrl: string, showId: string): Promise<number> => {
  const reply = await fetch(`${baseUrl}/api/v1/shows/${showId}/availability`);
  const body = (await reply.json()) as { sections: { id: string; available: number }[] };
  return body.sections.reduce((n, s) => n + s.available, 0);
};

/** Every ETag'd representation of a show on one process: its ETag and the version in its body. */
const views = async (baseUrl: string, showId: string): Promise<Record<string, { etag: string | null; version: number }>> => {
  const out: Record<string, { etag: string | null; version: number }> = {};
  for (const path of ['seats', 'seats?format=compact', 'availability']) {
    const reply = await fetch(`${baseUrl}/api/v1/shows/${showId}/${path}`);
    out[path] = { etag: reply.headers.get('etag'), version: ((await reply.json()) as { version: number }).version };
  }
  return out;
};

/**
 * Two processes over one PostgreSQL schema (issue 22 item 6): what one commits, the other's seat
 * map, availability and live events show within a second, through the outbox change feed.
 * PostgreSQL only: it is the multi-process backend (two stores on one SQLite file are not supported).
 */
describe.runIf(testStore === 'postgres')('one read model across two processes', () => {
  let a: TestNode & { baseUrl: string };
  let b: Node;
  let bUrl: string;
  let bDir: string;
  beforeAll(async () => {
    a = await startTestNode({ store: 'postgres' });
    bDir = mkdtempSync(join(tmpdir(), 'ticketrush-second-'));
    // The same database and schema; a data directory of its own (its lock is per directory).
    b = await composeNode(loadConfig({ PORT: '0', HOST: '127.0.0.1', TICKETRUSH_DEMO: '0', ...a.database.env, TICKETRUSH_DATA_DIR: bDir }), { logger: false });
    bUrl = await b.listen();
  });
  afterAll(async () => {
    await b?.stop();
    await a?.close();
    if (bDir !== undefined) rmSync(bDir, { recursive: true, force: true });
  });

  it('a seat held through A is HELD in B\'s seat map, availability and live events within 1 s; its release frees it on B', async () => {
    const admin = await adminClient(a.node.app);
    const showId = await createShow(admin, { sections: [{ id: 'A', name: 'Stalls', rows: 2, seatsPerRow: 5, priceCents: 1000 }] });
    // B knows the show (it loads it from the shared store) and streams it.
    expect(await seatStatus(bUrl, showId, 'A-1-1')).toBe('AVAILABLE');
    expect(await availableIn(bUrl, showId)).toBe(10);
    const stream = openStream(`${bUrl}/api/v1/shows/${showId}/events`);
    try {
      await within(2_000, async () => expect(stream.text()).toContain('event: hello'));
      const buyer = await new ApiClient(a.node.app).signUp('crossbuyer');
      const hold = await buyer.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-1-1'] });
      expect(hold.status).toBe(201);
      const held = await within(1_000, async () => {
        expect(await seatStatus(bUrl, showId, 'A-1-1')).toBe('HELD');
        expect(await availableIn(bUrl, showId)).toBe(9);
        expect(stream.text()).toContain('["A-1-1","H"]');
      });
      // A's own view was right at once (read your writes).
      expect(await seatStatus(a.baseUrl, showId, 'A-1-1')).toBe('HELD');
      const released = await buyer.request('DELETE', `/api/v1/holds/${hold.body.holdId as string}`);
      expect(released.status).toBeLessThan(300);
      const freed = await within(1_000, async () => {
        expect(await seatStatus(bUrl, showId, 'A-1-1')).toBe('AVAILABLE');
        expect(await availableIn(bUrl, showId)).toBe(10);
        expect(stream.text()).toContain('["A-1-1","A"]');
      });
      console.log(`cross-process: held on B after ${held} ms, freed after ${freed} ms`);
    } finally {
      stream.close();
    }
  });

  it('counted places taken on A are counted on B (as bucket states, never added twice)', async () => {
    const admin = await adminClient(a.node.app);
    const showId = await createShow(admin, { sections: [{ id: 'G', name: 'Floor', kind: 'GENERAL_ADMISSION', capacity: 50, priceCents: 1000 }] });
    expect(await availableIn(bUrl, showId)).toBe(50);
    const buyer = await new ApiClient(a.node.app).signUp('crossunits');
    for (let i = 0; i < 3; i++) expect((await buyer.request('POST', `/api/v1/shows/${showId}/holds`, { section: 'G', quantity: 1 })).status).toBe(201);
    await within(1_000, async () => expect(await availableIn(bUrl, showId)).toBe(47));
    // And stays there: nothing is applied twice.
    await sleep(300);
    expect(await availableIn(bUrl, showId)).toBe(47);
    expect(await availableIn(a.baseUrl, showId)).toBe(47);
  });

  it('a show B was told does not exist, once created on A, is found on B at once (the feed clears its memo)', async () => {
    const made = makeShow({
      showId: `show_cross_${Date.now()}`, title: 'Late', venue: 'Hall', city: 'Town',
      startsAt: Date.now() + 30 * 86_400_000, saleStartsAt: Date.now() - 60_000, saleEndsAt: Date.now() + 86_400_000,
      seatMap: { sections: [{ id: 'A', name: 'A', kind: 'SEATED', rows: 1, seatsPerRow: 4, priceCents: 100, sellBy: 'SEAT', accessible: [] }] }, maxSeatsPerUser: null,
    }, Date.now());
    if (!made.ok) throw new Error('show not made');
    const showId = made.value.show.showId;
    expect((await fetch(`${bUrl}/api/v1/shows/${showId}/availability`)).status).toBe(404);
    await a.node.ctx.store.createShow(made.value);
    // Well inside the unknown-show memo's own second.
    await within(600, async () => expect((await fetch(`${bUrl}/api/v1/shows/${showId}/availability`)).status).toBe(200));
  });

  it('the same state gives the same version and ETag on A and B: a hold on A, its release on B, a counted hold; A\'s ETag gets a 304 on B', async () => {
    const admin = await adminClient(a.node.app);
    const showId = await createShow(admin, { sections: [
      { id: 'A', name: 'Stalls', rows: 2, seatsPerRow: 5, priceCents: 1000 },
      { id: 'G', name: 'Floor', kind: 'GENERAL_ADMISSION', capacity: 50, priceCents: 500 },
    ] });
    const before = await views(a.baseUrl, showId);
    expect(await views(bUrl, showId)).toEqual(before);
    const onA = await new ApiClient(a.node.app).signUp('etagbuyer');
    // The same account on B (the signing secret is shared through the database).
    const onB = await new ApiClient(b.app).logIn('etagbuyer', 'password-123');
    const agree = async (): Promise<Record<string, { etag: string | null; version: number }>> => {
      let seen: Record<string, { etag: string | null; version: number }> = {};
      await within(1_000, async () => {
        seen = await views(a.baseUrl, showId);
        expect(await views(bUrl, showId)).toEqual(seen);
      });
      return seen;
    };

    const hold = await onA.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-1-1', 'A-1-2'] });
    expect(hold.status).toBe(201);
    const afterHold = await agree();
    expect(afterHold.seats?.version).toBe((before.seats?.version ?? 0) + 2);
    expect(afterHold.seats?.etag).not.toBe(before.seats?.etag);

    const released = await onB.request('DELETE', `/api/v1/holds/${hold.body.holdId as string}`);
    expect(released.status).toBeLessThan(300);
    const afterRelease = await agree();
    expect(afterRelease.seats?.version).toBe((before.seats?.version ?? 0) + 4);
    expect(afterRelease.availability?.etag).not.toBe(afterHold.availability?.etag);

    const units = await onA.request('POST', `/api/v1/shows/${showId}/holds`, { section: 'G', quantity: 2 });
    expect(units.status).toBe(201);
    const afterUnits = await agree();
    expect(afterUnits.availability?.version).toBeGreaterThan(afterRelease.availability?.version ?? 0);
    expect(await availableIn(bUrl, showId)).toBe(10 + 48);

    // A client holding A's ETag is told "not modified" by B, for every form.
    for (const [path, view] of Object.entries(afterUnits)) {
      const reply = await fetch(`${bUrl}/api/v1/shows/${showId}/${path}`, { headers: { 'if-none-match': view.etag ?? '' } });
      expect(reply.status, path).toBe(304);
    }
    // And a live stream starts at the same version on both.
    const hellos = await Promise.all([a.baseUrl, bUrl].map(async (base) => {
      const stream = openStream(`${base}/api/v1/shows/${showId}/events`);
      try {
        await within(2_000, async () => expect(stream.text()).toContain('event: hello'));
        return /event: hello\ndata: (.*)\n/.exec(stream.text())?.[1];
      } finally {
        stream.close();
      }
    }));
    expect(hellos[0]).toBeDefined();
    expect(hellos[1]).toBe(hellos[0]);
  });

});
