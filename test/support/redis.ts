import { Redis } from 'ioredis';

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
