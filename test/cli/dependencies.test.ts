import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { probeRedis } from '../../src/adapters/redis/probe.js';
import { startTestNode } from '../support/backend.js';
import { redisRelay } from '../support/redis.js';

// A configured PostgreSQL or Redis that does not answer: at start the process names it and exits
// non-zero; while running, /readyz names it. On the built CLI (npm test builds dist/ first).
const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'bin/ticketrush.js');
const scratch = mkdtempSync(join(tmpdir(), 'ticketrush-deps-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const redisUrl = process.env.TICKETRUSH_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const redisAnswers = await probeRedis(redisUrl, 1_000).then(() => true, () => false);

/** A port nothing listens on (taken from the OS, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  await new Promise((done) => server.close(done));
  return port;
}

function start(env: Record<string, string>): { status: number | null; stderr: string } {
  return spawnSync(process.execPath, [bin, 'start'], {
    encoding: 'utf8', timeout: 60_000,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', TICKETRUSH_DEMO: '0', TICKETRUSH_DATA_DIR: mkdtempSync(join(scratch, 'data-')), TICKETRUSH_DATABASE_URL: '', ...env },
  });
}

describe('a dependency unreachable at start', () => {
  it('PostgreSQL: one line naming it, its address and the variable; exit 1', async () => {
    const port = await closedPort();
    const run = start({ TICKETRUSH_DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/postgres`, TICKETRUSH_DATABASE_CONNECT_TIMEOUT_MS: '1000' });
    expect(run.status).toBe(1);
    expect(run.stderr.trim().split('\n')).toEqual([`ticketrush: cannot reach PostgreSQL 127.0.0.1:${port}/postgres schema public (TICKETRUSH_DATABASE_URL): connect ECONNREFUSED 127.0.0.1:${port}`]);
  });

  it('Redis: one line naming it, its address and the variable; exit 1', async () => {
    const port = await closedPort();
    const run = start({ TICKETRUSH_REDIS_URL: `redis://127.0.0.1:${port}/9` });
    expect(run.status).toBe(1);
    expect(run.stderr.trim().split('\n')).toEqual([`ticketrush: cannot reach Redis at 127.0.0.1:${port}/9 (TICKETRUSH_REDIS_URL): connect ECONNREFUSED 127.0.0.1:${port}`]);
  });
});

describe.skipIf(!redisAnswers)('a dependency lost while running', () => {
  it('/readyz answers 503 naming Redis and its address; the store is still named ready', async () => {
    const relay = await redisRelay(redisUrl);
    const t = await startTestNode({ env: { TICKETRUSH_REDIS_URL: `redis://127.0.0.1:${relay.port}/9` }, listen: false });
    try {
      expect((await t.node.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
      await relay.cut();
      let reply = await t.node.app.inject({ method: 'GET', url: '/readyz' });
      for (let i = 0; i < 50 && reply.statusCode === 200; i++) {
        await sleep(100);
        reply = await t.node.app.inject({ method: 'GET', url: '/readyz' });
      }
      expect(reply.statusCode).toBe(503);
      const body = reply.json<{ code: string; message: string }>();
      expect(body.code).toBe('STORAGE_UNAVAILABLE');
      expect(body.message).toMatch(new RegExp(`^Redis 127\\.0\\.0\\.1:${relay.port}/9 is not reachable`));
    } finally {
      await t.close();
    }
  });
});
