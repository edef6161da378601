import type { FastifyRequest } from 'fastify';
import type { Blocklist } from '../app/blocklist.js';
import { rateLimited } from '../app/throttled-accounts.js';
import type { BuyingLimitName, BuyingThrottle } from '../ports/rate-limiter.js';
import { requireUser, type TokenService } from './auth.js';

/** What guards the buying routes: the named rate limits and the blocklist (compose.ts builds both). */
export interface BuyerGuards {
  readonly throttle: BuyingThrottle;
  readonly blocklist: Blocklist | null;
}

/**
 * The hook every buying route runs after its auth guard (as onRequest, before the body is parsed,
 * or as a preHandler): a blocked buyer or address is refused 403 BLOCKED from memory; then the
 * request is counted against the limit `name`, per user and per address (request.ip, which is the
 * socket's address unless TICKETRUSH_TRUST_PROXY names the proxy it came through), and refused
 * 429 RATE_LIMITED with Retry-After when over either. Absent guards (an app built without them): nothing.
 *
 *   onRequest: [guard(tokens), buyerGate(deps, 'queue-join')]
 */
export function buyerGate(deps: { readonly tokens: TokenService; readonly buyers?: BuyerGuards }, name: BuyingLimitName): (request: FastifyRequest) => Promise<void> {
  return async (request) => {
    const guards = deps.buyers;
    if (guards === undefined) return;
    const { userId } = requireUser(deps.tokens, request);
    guards.blocklist?.assertNotBlocked(userId, request.ip);
    const waitMs = await guards.throttle.hit(name, userId, request.ip);
    if (waitMs > 0) throw rateLimited(waitMs, 'requests to this route');
  };
}
