/**
 * Counts events per key within a fixed window. The memory adapter serves one process; a Redis one
 * (rate-limiter-flexible's RateLimiterRedis has the same shape) will serve several behind this port.
 */
export interface RateLimiter {
  /** Milliseconds until the key is below its limit again, or 0 when it is. Counts nothing. */
  blockedForMs(key: string): Promise<number>;
  /** Counts one event against the key; milliseconds until it is below its limit again, or 0. */
  hit(key: string): Promise<number>;
  /** Forgets the key's events. */
  reset(key: string): Promise<void>;
}

/** The limiters guarding accounts; see docs/operations.md for their defaults. */
export interface AccountThrottle {
  /** Failed logins for one username from one address; a successful login resets it. */
  readonly loginFailuresByUserIp: RateLimiter;
  /**
   * Failed logins for one username from any address (guessing spread over many addresses). Over
   * its limit each attempt at the name waits `loginSlowdownMs` first: a delay, never a lock, so
   * nobody can lock a buyer out by failing on purpose.
   */
  readonly loginFailuresByUser: RateLimiter;
  readonly loginSlowdownMs: number;
  /** Failed logins from one address, whatever the username (one address trying many names). */
  readonly loginFailuresByIp: RateLimiter;
  /** Registration attempts from one address. */
  readonly registrationsByIp: RateLimiter;
}

/**
 * The buying routes, each limited by name per user and per address (docs/operations.md gives the
 * defaults). A route (a Fastify preHandler in src/http/buyer-gate.ts) names its limit; a new
 * buying route picks one of these or adds its own here and in the configuration.
 */
export const buyingLimitNames = ['hold', 'order', 'campaign-order', 'grab', 'cut', 'queue-join'] as const;
export type BuyingLimitName = (typeof buyingLimitNames)[number];

/** The buying limits: each name's two limiters, per user and per address. */
export interface BuyingThrottle {
  /**
   * Counts one request of `userId` from `ip` against the limit `name` (both keys counted, so a
   * refused request still costs the caller); milliseconds until both are below the limit, 0 when
   * the request may go on.
   */
  hit(name: BuyingLimitName, userId: string, ip: string): Promise<number>;
}
