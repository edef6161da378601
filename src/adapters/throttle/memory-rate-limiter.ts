import { RateLimiterMemory } from 'rate-limiter-flexible';
import type { AccountThrottle, RateLimiter } from '../../ports/rate-limiter.js';

/** A limit: at most `events` per key in a fixed window of `windowSeconds`. */
export interface RateLimit {
  readonly events: number;
  readonly windowSeconds: number;
}

/**
 * One process's limiter, on rate-limiter-flexible's RateLimiterMemory (a key's count lives until
 * its window ends, so memory is bounded by the keys seen in one window). RateLimiterRedis takes
 * the same calls when several processes must share the counts.
 */
export function memoryRateLimiter(limit: RateLimit): RateLimiter {
  const limiter = new RateLimiterMemory({ points: limit.events, duration: limit.windowSeconds });
  const waitMs = (consumed: number, overWhenAbove: number, msBeforeNext: number): number =>
    consumed > overWhenAbove ? Math.max(1, msBeforeNext) : 0;
  return {
    async blockedForMs(key) {
      const state = await limiter.get(key);
      // Blocked when one more event would go over the limit.
      return state === null ? 0 : waitMs(state.consumedPoints, limit.events - 1, state.msBeforeNext);
    },
    async hit(key) {
      // penalty() counts without rejecting, so the caller decides what going over means.
      const state = await limiter.penalty(key, 1);
      return waitMs(state.consumedPoints, limit.events, state.msBeforeNext);
    },
    async reset(key) {
      await limiter.delete(key);
    },
  };
}

/** For load tests on one machine (TICKETRUSH_RATE_LIMITS=off): never blocks, keeps nothing. */
export const unlimitedRateLimiter: RateLimiter = {
  blockedForMs: async () => 0,
  hit: async () => 0,
  reset: async () => undefined,
};

export interface AccountRateLimits {
  readonly loginFailuresPerUserIp: RateLimit;
  readonly loginFailuresPerUser: RateLimit;
  readonly loginFailuresPerIp: RateLimit;
  readonly registrationsPerIp: RateLimit;
  readonly loginSlowdownMs: number;
}

/** The account limiters in memory, or none at all when limits are switched off (null). */
export function memoryAccountThrottle(limits: AccountRateLimits | null): AccountThrottle {
  const make = (limit: RateLimit | undefined): RateLimiter => (limit === undefined ? unlimitedRateLimiter : memoryRateLimiter(limit));
  return {
    loginFailuresByUserIp: make(limits?.loginFailuresPerUserIp),
    loginFailuresByUser: make(limits?.loginFailuresPerUser),
    loginFailuresByIp: make(limits?.loginFailuresPerIp),
    registrationsByIp: make(limits?.registrationsPerIp),
    loginSlowdownMs: limits?.loginSlowdownMs ?? 0,
  };
}
