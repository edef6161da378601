import { createSigner, createVerifier } from 'fast-jwt';
import type { FastifyRequest } from 'fastify';
import type { Role, User } from '../domain/index.js';
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

/** HS256 bearer tokens; verification results are cached, which keeps auth off the hot path's profile. */
export function createTokenService(secret: string, ttlSeconds: number): TokenService {
  const sign = createSigner({ key: secret, algorithm: 'HS256', expiresIn: ttlSeconds * 1000 });
  const verify = createVerifier({ key: secret, algorithms: ['HS256'], cache: 10_000 });
  return {
    ttlSeconds,
    issue: (user) => sign({ sub: user.userId, name: user.username, role: user.role }),
    principal(authorization) {
      if (authorization === undefined || authorization.length > bearerLengthMax || !authorization.startsWith('Bearer ')) return null;
      try {
        const claims = verify(authorization.slice(7)) as { sub?: unknown; name?: unknown; role?: unknown };
        const { sub, name, role } = claims;
        if (typeof sub !== 'string' || typeof name !== 'string' || (role !== 'BUYER' && role !== 'STAFF' && role !== 'ADMIN')) return null;
        return { userId: sub, username: name, role };
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
 * posting to an admin route hears 403, not a lecture about the body.
 */
export function guard(tokens: TokenService, roles?: readonly Role[]): (request: FastifyRequest) => Promise<void> {
  return async (request) => {
    if (roles === undefined) requireUser(tokens, request);
    else requireRole(tokens, request, roles);
  };
}
