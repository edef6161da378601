import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/ports/engine/index.js';
import { createTestDatabase, testStore, type TestDatabase } from '../support/backend.js';
import { startChildServer, workerHolderOf, type ChildServer } from '../support/child-server.js';
import { HttpBuyer } from '../support/http-buyer.js';
import { deleteRedisKeys, testRedisUrl, uniqueRedisPrefix } from '../support/redis.js';
import { openThroughConfiguration } from '../support/stores.js';
import { eventually } from '../support/wait.js';

/**
 * A hold made on a process that is then SIGKILLed still expires on time, on another process:
 * - PostgreSQL + Redis: the hold's release is a delayed BullMQ job; `ticketrush worker` (B) runs
 *   the job A enqueued. Both processes' expiry sweeps are slowed to a minute, so only the job can
 *   free the seat in time.
 * - PostgreSQL alone: the jobs are in-process and die with A; B's expiry sweep (leased, one
 *   process at a time) frees the seat.
 * Two processes need a shared database: PostgreSQL only.
 */
const admin = { username: 'admin', password: 'admin-password-1' };
let database: TestDatabase;
let store: Store;
const servers: ChildServer[] = [];
const dataDirs: string[] = [];
const prefixes: string[] = [];

/** Each process has a data directory of its own (its lock), and shares the database, Redis and secrets. */
const env = (extra: Record<string, string>): NodeJS.ProcessEnv => {
  const dataDir = mkdtempSync(join(tmpdir(), 'ticketrush-killed-'));
  dataDirs.push(dataDir);
  return {
    ...process.env,
    ...database.env,
    TICKETRUSH_DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    TICKETRUSH_DEMO: '0',
    TICKETRUSH_LOG_LEVEL: 'info',
    TICKETRUSH_ADMIN_USER: admin.username,
    TICKETRUSH_ADMIN_PASSWORD: admin.password,
    TICKETRUSH_JWT_SECRET: 'killed-process-test-jwt-secret-0123456789',
    TICKETRUSH_PAYMENT_SECRET: 'killed-process-test-payment-secret',
    ...extra,
  };
};

const spawnServer = async (args: string[], extra: Record<string, string>, worker = false): Promise<ChildServer> => {
  const server = await startChildServer(['bin/ticketrush.js', ...args], env(extra), join(dataDirs.at(-1) ?? tmpdir(), `${args[0]}-${Date.now()}.log`), 60_000, worker ? workerHolderOf : undefined);
  servers.push(server);
  return server;
};

beforeAll(async () => {
  if (testStore !== 'postgres') return;
  database = await createTestDatabase({ prefix: 'ticketrush-killed-' });
  // The schema is migrated by the first process; the test reads it through a store of its own afterwards.
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});
// TICKETRUSH_TEST_KEEP=1 keeps the processes' logs and the Redis keys, to look into a failure.
afterAll(async () => {
  await store?.close();
  // Every key under our prefixes: the queue's and the Redis gate's.
  for (const prefix of process.env.TICKETRUSH_TEST_KEEP ? [] : prefixes) await deleteRedisKeys(testRedisUrl, prefix);
  await database?.drop();
  if (!process.env.TICKETRUSH_TEST_KEEP) for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

/** On A: the admin's show, a buyer, and the buyer's short hold of one seat. */
async function holdOn(base: string, seatId: string, holdSeconds: number): Promise<{ holdId: string; expiresAt: number }> {
  const login = await new HttpBuyer(base, admin.username).call('POST', '/api/v1/auth/login', admin);
  const now = Date.now();
  const show = await new HttpBuyer(base, 'x').call('POST', '/api/v1/admin/shows', {
    title: 'Killed', venue: 'Hall', city: 'Town',
    startsAt: new Date(now + 7 * 86_400_000).toISOString(),
    saleStartsAt: new Date(now - 60_000).toISOString(),
    saleEndsAt: new Date(now + 86_400_000).toISOString(),
    seatMap: { sections: [{ id: 'A', name: 'Floor', rows: 2, seatsPerRow: 5, priceCents: 3000 }] },
  }, { authorization: `Bearer ${login.body.token}` });
  expect(show.status).toBe(201);
  const buyer = await new HttpBuyer(base, `killed${Date.now()}`).signUp();
  const hold = await buyer.call('POST', `/api/v1/shows/${show.body.showId}/holds`, { seatIds: [seatId], holdSeconds });
  expect(hold.status).toBe(201);
  return { holdId: hold.body.holdId as string, expiresAt: Date.parse(hold.body.expiresAt as string) };
}

async function expiredAt(holdId: string, expiresAt: number, withinMs: number): Promise<number> {
  store ??= await openThroughConfiguration(database);
  return eventually(async () => {
    const hold = await store.getHold(holdId);
    return hold?.status === 'EXPIRED' ? Date.now() : undefined;
  }, expiresAt - Date.now() + withinMs, `hold ${holdId} expired`);
}

describe.skipIf(testStore !== 'postgres')('a hold made on a process killed with SIGKILL', () => {
  it('PostgreSQL + Redis: the worker runs the dead process\'s delayed release on time', async () => {
    const prefix = uniqueRedisPrefix('killed');
    prefixes.push(prefix);
    // Only the job can free the seat in time: both processes sweep once a minute.
    const shared = { TICKETRUSH_REDIS_URL: testRedisUrl, TICKETRUSH_REDIS_PREFIX: prefix, TICKETRUSH_EXPIRY_SWEEP_MS: '60000' };
    const a = await spawnServer(['start'], shared);
    await spawnServer(['worker'], shared, true);
    const { holdId, expiresAt } = await holdOn(a.url, 'A-1-1', 2);
    a.child.kill('SIGKILL');
    const freed = await expiredAt(holdId, expiresAt, 1_500);
    console.info(`PostgreSQL + Redis: A's hold expired by B's worker ${freed - expiresAt} ms after expiresAt (polled every 50 ms)`);
    expect(freed).toBeGreaterThanOrEqual(expiresAt);
    const seat = (await store.seatStates((await store.getHold(holdId))!.showId, null, 100)).find((s) => s.seatId === 'A-1-1');
    expect(seat?.status).toBe('AVAILABLE');
  }, 90_000);

  it('PostgreSQL alone: the other process\'s leased expiry sweep frees it', async () => {
    const shared = { TICKETRUSH_EXPIRY_SWEEP_MS: '200' };
    const a = await spawnServer(['start'], shared);
    await spawnServer(['start'], shared);
    const { holdId, expiresAt } = await holdOn(a.url, 'A-2-1', 2);
    a.child.kill('SIGKILL');
    // A sweep lease A held when it died runs out within its lease time (5 s at most).
    const freed = await expiredAt(holdId, expiresAt, 6_000);
    console.info(`PostgreSQL alone: A's hold expired by B's sweep ${freed - expiresAt} ms after expiresAt (polled every 50 ms)`);
    expect(freed).toBeGreaterThanOrEqual(expiresAt);
  }, 90_000);
});
