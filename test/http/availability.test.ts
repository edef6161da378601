import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, ApiClient, createShow } from '../support/api-client.js';
import { startTestNode, type TestNode } from '../support/backend.js';
import { rawRequest } from '../support/raw-http.js';

// Issue 14: every seat of a show in a few kilobytes, with the order and the bits of the seat map;
// `?since=` answers what changed, or the whole bitmap when that is too old.
let t: TestNode & { baseUrl: string };
let admin: ApiClient;
let showId: string;
let buyer: ApiClient;

interface Bitmap { version: number; encoding: 'bitmap'; seats: string; sections: { id: string; kind: string; capacity: number; available: number }[] }
interface Changes { version: number; encoding: 'changes'; since: number; changes: { seatId: string; status: string }[] }

/** Bytes as they crossed the socket (still compressed), with the headers. */
function wire(path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${t.baseUrl}${path}`, { headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

const seatMap = async (): Promise<{ version: number; seats: { seatId: string; status: string }[] }> => JSON.parse((await rawRequest(t.baseUrl, 'GET', `/api/v1/shows/${showId}/seats`)).body);
const availability = async (query = ''): Promise<Bitmap | Changes> => JSON.parse((await rawRequest(t.baseUrl, 'GET', `/api/v1/shows/${showId}/availability${query}`)).body);

function bitsOf(base64: string, count: number): boolean[] {
  const bytes = Buffer.from(base64, 'base64');
  return Array.from({ length: count }, (_, i) => ((bytes[i >> 3] as number) & (0x80 >> (i & 7))) !== 0);
}

beforeAll(async () => {
  // One buyer places more holds than the default per-user hold limit allows in a minute: the
  // limits are not what this suite is about (test/http/buying-limits.test.ts is).
  t = await startTestNode({ env: { TICKETRUSH_RATE_LIMITS: 'off' } });
  admin = await adminClient(t.node.app);
  showId = await createShow(admin, {
    sections: [
      { id: 'B', name: 'Balcony', rows: 3, seatsPerRow: 7, priceCents: 3000 },
      { id: 'GA', name: 'Standing', kind: 'GENERAL_ADMISSION', capacity: 50, priceCents: 2000 },
      { id: 'A', name: 'Stalls', rows: 4, seatsPerRow: 5, priceCents: 5000 },
    ],
    maxSeatsPerUser: 41,
  });
  buyer = await new ApiClient(t.node.app).signUp('bitmap-buyer');
});
afterAll(async () => t.close());

describe('GET /shows/{id}/availability', () => {
  it('has one bit per seat in the order of the seat map, 1 where the seat is AVAILABLE, and every section counted', async () => {
    expect((await buyer.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['B-1-2', 'A-4-5', 'A-1-1'] })).status).toBe(201);
    expect((await buyer.request('POST', `/api/v1/shows/${showId}/holds`, { section: 'GA', quantity: 4 })).status).toBe(201);
    const map = await seatMap();
    const body = (await availability()) as Bitmap;
    expect(body.encoding).toBe('bitmap');
    expect(body.version).toBe(map.version);
    expect(map.seats.map((s) => s.seatId).slice(0, 8)).toEqual(['B-1-1', 'B-1-2', 'B-1-3', 'B-1-4', 'B-1-5', 'B-1-6', 'B-1-7', 'B-2-1']);
    expect(bitsOf(body.seats, map.seats.length)).toEqual(map.seats.map((s) => s.status === 'AVAILABLE'));
    expect(Buffer.from(body.seats, 'base64').length).toBe(Math.ceil(41 / 8));
    expect(body.sections).toEqual([
      { id: 'B', kind: 'SEATED', capacity: 21, available: 20 },
      { id: 'GA', kind: 'GENERAL_ADMISSION', capacity: 50, available: 46 },
      { id: 'A', kind: 'SEATED', capacity: 20, available: 18 },
    ]);
  });

  it('answers what changed since a version, and the whole bitmap when that version is not known', async () => {
    const before = (await availability()) as Bitmap;
    expect((await buyer.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-2-2', 'A-2-3'] })).status).toBe(201);
    const changes = (await availability(`?since=${before.version}`)) as Changes;
    expect(changes).toMatchObject({ encoding: 'changes', since: before.version, version: before.version + 2 });
    expect(changes.changes.sort((a, b) => a.seatId.localeCompare(b.seatId))).toEqual([{ seatId: 'A-2-2', status: 'HELD' }, { seatId: 'A-2-3', status: 'HELD' }]);
    expect((await availability(`?since=${changes.version}`)) as Changes).toMatchObject({ encoding: 'changes', changes: [] });
    expect(((await availability(`?since=${changes.version + 1000}`)) as Bitmap).encoding).toBe('bitmap');
    expect((await rawRequest(t.baseUrl, 'GET', `/api/v1/shows/${showId}/availability?since=-1`)).status).toBe(400);
  });

  it('is compressed when the client accepts it, with a validator that answers 304', async () => {
    for (const coding of ['br', 'gzip'] as const) {
      const reply = await wire(`/api/v1/shows/${showId}/availability`, { 'accept-encoding': `${coding}, identity;q=0.5` });
      expect(reply.headers['content-encoding']).toBe(coding);
      expect(reply.headers.vary).toContain('accept-encoding');
      const text = (coding === 'br' ? brotliDecompressSync(reply.bytes) : gunzipSync(reply.bytes)).toString();
      expect(JSON.parse(text)).toMatchObject({ encoding: 'bitmap' });
      const again = await wire(`/api/v1/shows/${showId}/availability`, { 'accept-encoding': coding, 'if-none-match': String(reply.headers.etag) });
      expect(again.status).toBe(304);
      expect(again.bytes.length).toBe(0);
    }
    const plain = await wire(`/api/v1/shows/${showId}/availability`);
    expect(plain.headers['content-encoding']).toBeUndefined();
  });

  it('answers 404 SHOW_NOT_FOUND for an unknown show', async () => {
    const reply = await rawRequest(t.baseUrl, 'GET', '/api/v1/shows/shw_nope/availability');
    expect(reply.status).toBe(404);
    expect(JSON.parse(reply.body).code).toBe('SHOW_NOT_FOUND');
  });
});

describe('a 100,000-seat show', () => {
  it('is created, mapped and summed up in a few kilobytes, whatever its state', async () => {
    const sections = Array.from({ length: 4 }, (_, i) => ({ id: `S${i}`, name: `Block ${i}`, rows: 125, seatsPerRow: 200, priceCents: 1000 + i }));
    const big = await createShow(admin, { sections, maxSeatsPerUser: 100_000 });
    const first = await wire(`/api/v1/shows/${big}/availability`, { 'accept-encoding': 'br' });
    expect(first.status).toBe(200);
    expect(first.bytes.length).toBeLessThan(16 * 1024);
    // Every other seat of a third of the show held: the least compressible pattern a buyer crowd makes.
    const holder = await new ApiClient(t.node.app).signUp('big-holder');
    const ids: string[] = [];
    for (let section = 0; section < 4; section++) for (let row = 1; row <= 125; row++) for (let n = 1; n <= 200 && ids.length < 30_000; n += 2) ids.push(`S${section}-${row}-${n}`);
    for (let i = 0; i < ids.length; i += 10) {
      const reply = await holder.request('POST', `/api/v1/shows/${big}/holds`, { seatIds: ids.slice(i, i + 10) });
      expect(reply.status).toBe(201);
    }
    for (const coding of ['br', 'gzip']) {
      const held = await wire(`/api/v1/shows/${big}/availability`, { 'accept-encoding': coding });
      expect(held.bytes.length).toBeLessThan(16 * 1024);
    }
    const body = JSON.parse((await rawRequest(t.baseUrl, 'GET', `/api/v1/shows/${big}/availability`)).body) as Bitmap;
    expect(body.sections.reduce((sum, s) => sum + s.available, 0)).toBe(100_000 - 30_000);
    const compact = JSON.parse((await rawRequest(t.baseUrl, 'GET', `/api/v1/shows/${big}/seats?format=compact`)).body) as { seatIds: string[]; statuses: string };
    expect(compact.seatIds).toHaveLength(100_000);
    const bits = bitsOf(body.seats, 100_000);
    expect(bits.every((free, i) => free === (compact.statuses[i] === 'A'))).toBe(true);
  }, 120_000);
});
