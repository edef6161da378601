import { createSigner, createVerifier } from 'fast-jwt';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Role, User } from '../domain/index.js';
import { getUser } from '../app/accounts.js';
import type { AppContext } from '../app/context.js';
import { HttpError } from './http-error.js';

/**
 * Who a bearer token names. It carries no role on purpose: the token's role claim is what the
 * account had when the token was issued, and no decision may rest on it.
 */
export interface Identity {
  readonly userId: string;
  readonly username: string;
}

/** An identity with the role the store holds now. */
export interface Principal extends Identity {
  readonly role: Role;
}

export interface TokenService {
  issue(user: User): string;
  /** The identity of a valid bearer token, or null. */
  principal(authorization: string | undefined): Identity | null;
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
  const verified = new Map<string, { readonly principal: Identity; readonly expiresAt: number }>();
  return {
    ttlSeconds,
    issue: (user) => sign({ sub: user.userId, name: user.username, role: user.role }),
    principal(authorization) {
      if (authorization === undefined || authorization.length > bearerLengthMax || !authorization.startsWith('Bearer ')) return null;
      const token = authorization.slice(7);
      const known = verified.get(token);
      if (known !== undefined && known.expiresAt > now()) return known.principal;
      try {
        const { sub, name, exp } = verify(token) as { sub?: unknown; name?: unknown; exp?: unknown };
        if (typeof sub !== 'string' || typeof name !== 'string' || typeof exp !== 'number') return null;
        const principal: Identity = { userId: sub, username: name };
        if (verified.size >= verifiedTokensMax) verified.delete(verified.keys().next().value as string);
        verified.set(token, { principal, expiresAt: exp * 1000 });
        return principal;
      } catch {
        return null;
      }
    },
  };
}

const identities = new WeakMap<FastifyRequest, Identity>();
/** Principals with the stored role, set only by roleGuard. */
const principals = new WeakMap<FastifyRequest, Principal>();

export function requireUser(tokens: TokenService, request: FastifyRequest): Identity {
  const known = identities.get(request);
  if (known !== undefined) return known;
  const identity = tokens.principal(request.headers.authorization);
  if (identity === null) throw new HttpError('UNAUTHORIZED', 'a valid bearer token is required');
  identities.set(request, identity);
  return identity;
}

/** The caller with a role from `roles`, judged on the stored role that the route's roleGuard read. */
export function requireRole(_tokens: TokenService, request: FastifyRequest, roles: readonly Role[]): Principal {
  const principal = principals.get(request);
  // A route that asks for a role without roleGuard is a bug: never fall back to a token's claim.
  if (principal === undefined) throw new Error('requireRole needs the roleGuard onRequest hook on this route');
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
export async function withStoredRole(ctx: AppContext, identity: Identity): Promise<Principal> {
  const user = await getUser(ctx, identity.userId);
  if (user === null) throw new HttpError('UNAUTHORIZED', 'this account no longer exists');
  return { ...identity, role: user.role };
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
