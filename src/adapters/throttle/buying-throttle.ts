import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { BuyingLimitName, BuyingThrottle } from '../../ports/rate-limiter.js';

/** One buying route's two limits, in requests per minute. */
export interface BuyingLimit {
  readonly perUserPerMinute: number;
  readonly perIpPerMinute: number;
}

export type BuyingLimits = Readonly<Record<BuyingLimitName, BuyingLimit>>;

/** Where the counts live: this process's memory, or the shared Redis (every process counts together). */
export type BuyingThrottleStore =
  | { readonly kind: 'memory' }
  | { readonly kind: 'redis'; readonly redis: Redis; readonly prefix: string };

const minuteSeconds = 60;

/**
 * rate-limiter-flexible: a fixed one-minute window per key. On Redis the count is one atomic
 * INCR+PEXPIRE script per key, and a Redis that does not answer falls back to this process's own
 * memory (insuranceLimiter), so a lost Redis loosens the limits to per process, never blocks buying.
 */
function limiterOf(store: BuyingThrottleStore, keyPrefix: string, points: number): RateLimiterAbstract {
  const memory = new RateLimiterMemory({ keyPrefix, points, duration: minuteSeconds });
  if (store.kind === 'memory') return memory;
  return new RateLimiterRedis({ storeClient: store.redis, keyPrefix: `${store.prefix}rl:${keyPrefix}`, points, duration: minuteSeconds, insuranceLimiter: memory });
}

/** Milliseconds until the key is under its limit again, counting this request (penalty never rejects). */
async function count(limiter: RateLimiterAbstract, points: number, key: string): Promise<number> {
  const state = await limiter.penalty(key, 1);
  return state.consumedPoints > points ? Math.max(1, state.msBeforeNext) : 0;
}

/** The buying limits, per user and per address; null limits (TICKETRUSH_RATE_LIMITS=off): none at all. */
export function createBuyingThrottle(limits: BuyingLimits | null, store: BuyingThrottleStore): BuyingThrottle {
  if (limits === null) return { hit: async () => 0 };
  const byName = new Map(Object.entries(limits).map(([name, limit]) => [name, {
    limit,
    user: limiterOf(store, `buy:${name}:u`, limit.perUserPerMinute),
    ip: limiterOf(store, `buy:${name}:ip`, limit.perIpPerMinute),
  }]));
  return {
    async hit(name, userId, ip) {
      const entry = byName.get(name);
      if (entry === undefined) throw new Error(`no buying limit named ${name}`);
      const [user, address] = await Promise.all([count(entry.user, entry.limit.perUserPerMinute, userId), count(entry.ip, entry.limit.perIpPerMinute, ip)]);
      return Math.max(user, address);
    },
  };
}
