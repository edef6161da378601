import { Redis } from 'ioredis';
import { AuditUnavailableError, type GateReader } from '../../ports/engine/index.js';
import { gateKeys } from './redis-gate.js';

/**
 * The Redis gate read as is, for the auditor: the show's built marker, seat bitmap and units left
 * (three reads of one hash-tagged show; never a write). Bounded: short timeouts, no offline queue.
 */
export async function openGateReader(options: { readonly url: string; readonly prefix: string }): Promise<GateReader> {
  const redis = new Redis(options.url, { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2_000, commandTimeout: 5_000, retryStrategy: () => null });
  redis.on('error', () => undefined); // reported by the failing command instead
  try {
    await redis.connect();
  } catch (error) {
    redis.disconnect();
    throw new AuditUnavailableError(`Redis at TICKETRUSH_REDIS_URL cannot be reached: ${(error as Error).message}`);
  }
  return {
    async read(showId) {
      const [builtKey, takenKey, , unitsKey] = gateKeys(options.prefix, showId) as [string, string, string, string];
      const [built, taken, units] = await Promise.all([redis.exists(builtKey), redis.getBuffer(takenKey), redis.hgetall(unitsKey)]);
      return {
        built: built === 1,
        taken: new Uint8Array(taken ?? Buffer.alloc(0)),
        units: Object.fromEntries(Object.entries(units).map(([section, n]) => [section, Number(n)])),
      };
    },
    async close() {
      redis.disconnect();
    },
  };
}
