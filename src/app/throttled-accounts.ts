import type { User } from '../domain/index.js';
import { usernameKey } from '../domain/username.js';
import { authenticate, register } from './accounts.js';
import type { AppContext } from './context.js';
import { AppError } from './errors.js';

/** Where a request came from: the client's address as the edge sees it. */
export interface Origin {
  readonly ip: string;
}

export function rateLimited(waitMs: number, what: string): AppError {
  const retryAfterSeconds = Math.max(1, Math.ceil(waitMs / 1000));
  return new AppError('RATE_LIMITED', `too many ${what}; try again in ${retryAfterSeconds} s`, { retryAfterSeconds });
}

/**
 * A login that counts failures: per username from one address (reset by a success, so a user's
 * own typos do not pile up), per username from anywhere, and per address whatever the name.
 * Only failures count, so a crowd of real buyers signing in at once is never throttled. The
 * per-(user, address) and per-address counts refuse once at their limit, before the password is
 * even checked. The per-username count only slows: over its limit every attempt at the name waits
 * first, so guessing spread over many addresses crawls, while the owner, from an address of their
 * own, still gets in with the right password (a lock there would be a lockout anyone can trigger).
 */
export async function logIn(ctx: AppContext, origin: Origin, username: string, password: string): Promise<User> {
  const { loginFailuresByUserIp, loginFailuresByUser, loginFailuresByIp, loginSlowdownMs } = ctx.throttle;
  const name = usernameKey(username);
  const userIp = `${name}\u0000${origin.ip}`;
  const [userIpWait, userWait, ipWait] = await Promise.all([
    loginFailuresByUserIp.blockedForMs(userIp),
    loginFailuresByUser.blockedForMs(name),
    loginFailuresByIp.blockedForMs(origin.ip),
  ]);
  const waitMs = Math.max(userIpWait, ipWait);
  if (waitMs > 0) throw rateLimited(waitMs, 'failed logins');
  if (userWait > 0 && loginSlowdownMs > 0) await new Promise((resolve) => setTimeout(resolve, loginSlowdownMs));
  try {
    const user = await authenticate(ctx, username, password);
    await loginFailuresByUserIp.reset(userIp);
    return user;
  } catch (error) {
    if (error instanceof AppError && error.code === 'INVALID_CREDENTIALS') {
      await Promise.all([loginFailuresByUserIp.hit(userIp), loginFailuresByUser.hit(name), loginFailuresByIp.hit(origin.ip)]);
    }
    throw error;
  }
}

/** Registration counted per address, refused (before any hashing) once over the limit. */
export async function registerBuyer(ctx: AppContext, origin: Origin, username: string, password: string): Promise<User> {
  const waitMs = await ctx.throttle.registrationsByIp.hit(origin.ip);
  if (waitMs > 0) throw rateLimited(waitMs, 'registrations from this address');
  return register(ctx, username, password);
}
