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
  /** Failed logins for one username from any address (guessing spread over many addresses). */
  readonly loginFailuresByUser: RateLimiter;
  /** Failed logins from one address, whatever the username (one address trying many names). */
  readonly loginFailuresByIp: RateLimiter;
  /** Registration attempts from one address. */
  readonly registrationsByIp: RateLimiter;
}
