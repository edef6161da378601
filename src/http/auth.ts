import { createSigner, createVerifier } from 'fast-jwt';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Role, User } from '../domain/index.js';
import { getUser } from '../app/accounts.js';
import type { AppContext } from '../app/context.js';
import { HttpError } from './http-error.js';

export interface Principal {
  readonly userId: string;
  readonly username: string;
  readonly role: Role;
}

export interface TokenService {
  issue(user: User): string;
  /** The principal of a valid bearer token, or null. */
  principal(authorization: string | undefined): Principal | null;
  readonly ttlSeconds: number;
}

const bearerLengthMax = 4096;
const verifiedTokensMax = 10_000;

/**
 * HS256 bearer tokens. Verified tokens are remembered until they expire, keyed by the token
 * itself: a buyer in a rush sends the same token with every click, and a map lookup costs far
 * less than the HMAC (or the SHA-256 cache key fast-jwt's own cache would compute).
 */
export function createTokenService(secret: string, ttlSeconds: number, now: () => number = Date.now): TokenService {
  const sign = createSigner({ key: secret, algorithm: 'HS256', expiresIn: ttlSeconds * 1000 });
  const verify = createVerifier({ key: secret, algorithms: ['HS256'] });
  const verified = new Map<string, { readonly principal: Principal; readonly expiresAt: number }>();
  return {
    ttlSeconds,
    issue: (user) => sign({ sub: user.userId, name: user.username, role: user.role }),
    principal(authorization) {
      if (authorization === undefined || authorization.length > bearerLengthMax || !authorization.startsWith('Bearer ')) return null;
      const token = authorization.slice(7);
      const known = verified.get(token);
      if (known !== undefined && known.expiresAt > now()) return known.principal;
      try {
        const { sub, name, role, exp } = verify(token) as { sub?: unknown; name?: unknown; role?: unknown; exp?: unknown };
        if (typeof sub !== 'string' || typeof name !== 'string' || typeof exp !== 'number') return null;
        if (role !== 'BUYER' && role !== 'STAFF' && role !== 'ADMIN') return null;
        const principal: Principal = { userId: sub, username: name, role };
        if (verified.size >= verifiedTokensMax) verified.delete(verified.keys().next().value as string);
        verified.set(token, { principal, expiresAt: exp * 1000 });
        return principal;
      } catch {
        return null;
      }
    },
  };
}

const principals = new WeakMap<FastifyRequest, Principal>();

export function requireUser(tokens: TokenService, request: FastifyRequest): Principal {
  const known = principals.get(request);
  if (known !== undefined) return known;
  const principal = tokens.principal(request.headers.authorization);
  if (principal === null) throw new HttpError('UNAUTHORIZED', 'a valid bearer token is required');
  principals.set(request, principal);
  return principal;
}

export function requireRole(tokens: TokenService, request: FastifyRequest, roles: readonly Role[]): Principal {
  const principal = requireUser(tokens, request);
  if (!roles.includes(principal.role)) throw new HttpError('FORBIDDEN', `this needs the ${roles.join(' or ')} role`);
  return principal;
}

/**
 * An onRequest guard: who you are is settled before the body is parsed or validated, so a buyer
 * posting to an admin route hears 401 or 403, not a lecture about the body.
 */
export function guard(tokens: TokenService): (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => void {
  // A callback hook, not an async one: the check is synchronous, and a promise per request is not free.
  return (request, _reply, done) => {
    try {
      requireUser(tokens, request);
    } catch (error) {
      done(error as Error);
      return;
    }
    done();
  };
}

/** The principal with the role the store holds now, so a withdrawn role is gone at once. */
export async function withStoredRole(ctx: AppContext, principal: Principal): Promise<Principal> {
  const user = await getUser(ctx, principal.userId);
  if (user === null) throw new HttpError('UNAUTHORIZED', 'this account no longer exists');
  return { ...principal, role: user.role };
}

/**
 * The guard of privileged routes. It checks the role the store holds now, not the one the token
 * was issued with, so an admin or door steward who loses the role loses the right at once.
 */
export function roleGuard(deps: { readonly tokens: TokenService; readonly ctx: AppContext }, roles: readonly Role[]): (request: FastifyRequest) => Promise<void> {
  return async (request) => {
    principals.set(request, await withStoredRole(deps.ctx, requireUser(deps.tokens, request)));
    requireRole(deps.tokens, request, roles);
  };
}
