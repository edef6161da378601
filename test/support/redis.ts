import { randomBytes } from 'node:crypto';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { Redis } from 'ioredis';

/** The shared test Redis (TICKETRUSH_TEST_REDIS_URL, default the local one). Tests never flush it: each uses a prefix of its own. */
export const testRedisUrl = process.env.TICKETRUSH_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/0';

/** A key prefix no other test (or run) shares. */
export const uniqueRedisPrefix = (what: string): string => `trtest:${what}:${Date.now().toString(36)}${randomBytes(4).toString('hex')}:`;

/**
 * Deletes every key under `prefix` (SCAN + UNLINK in bounded batches): tests share one Redis, so
 * they clean and "flush" only their own keys, never FLUSHALL / FLUSHDB.
 */
export async function deleteRedisKeys(url: string, prefix: string): Promise<number> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  try {
    let deleted = 0;
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) deleted += await redis.unlink(...keys);
    } while (cursor !== '0');
    return deleted;
  } finally {
    redis.disconnect();
  }
}

/** Whether a Redis answers PING at `url` within a second (suites that need one skip, and say so, when not). */
export async function redisReachable(url: string): Promise<boolean> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 1_000, retryStrategy: () => null });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    return (await redis.ping()) === 'PONG';
  } catch {
    console.warn(`Redis not reachable at ${url}: the Redis gate suites are skipped (start Redis or set TICKETRUSH_TEST_REDIS_URL)`);
    return false;
  } finally {
    redis.disconnect();
  }
}

/** A TCP relay to a Redis that a test can cut, as a Redis going away while the server runs would. */
export async function redisRelay(url: string): Promise<{ port: number; cut(): Promise<void> }> {
  const target = new URL(url);
  const sockets = new Set<Socket>();
  const server: Server = createServer((inbound) => {
    const outbound = connect(Number(target.port || 6379), target.hostname);
    sockets.add(inbound).add(outbound);
    inbound.pipe(outbound).pipe(inbound);
    const end = (): void => {
      inbound.destroy();
      outbound.destroy();
    };
    inbound.on('error', end).on('close', end);
    outbound.on('error', end).on('close', end);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    port: (server.address() as AddressInfo).port,
    async cut() {
      const closed = new Promise((done) => server.close(done));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
