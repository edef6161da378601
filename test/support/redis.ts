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
