import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { setRole } from '../../app/accounts.js';
import { AppError } from '../../app/errors.js';
import { logIn, registerBuyer } from '../../app/throttled-accounts.js';
import { usernameDisplayForm } from '../../domain/username.js';
import type { HttpDeps } from '../deps.js';
import { guard, roleGuard, requireRole, requireUser, withStoredRole } from '../auth.js';
import { Credentials, RoleBody, UsernameParams, errorResponses } from '../schemas.js';

const UserResponse = Type.Object({ userId: Type.String(), username: Type.String(), role: Type.String() });

/**
 * Usernames are judged in their NFKC form, so fullwidth "ｒｏｏｔ" is the name "root" (and then
 * taken, or signed in to), not a schema failure.
 */
async function normaliseUsername(request: FastifyRequest): Promise<void> {
  const body = request.body as { username?: unknown } | null | undefined;
  if (body !== null && typeof body === 'object' && typeof body.username === 'string') body.username = usernameDisplayForm(body.username);
}

/** A throttled request hears when to come back (RFC 9110 §10.2.3: Retry-After in seconds). */
async function withRetryAfter<T>(reply: FastifyReply, work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    const seconds = error instanceof AppError && error.code === 'RATE_LIMITED' ? error.details?.retryAfterSeconds : undefined;
    if (typeof seconds === 'number') void reply.header('retry-after', String(seconds));
    throw error;
  }
}

export const accountRoutes = (deps: HttpDeps): FastifyPluginAsyncTypebox => async (app) => {
  const { ctx, tokens } = deps;

  app.post('/auth/register', {
    preValidation: normaliseUsername,
    schema: {
      tags: ['accounts'],
      summary: 'Create a buyer account (usernames are unique ignoring case; throttled per address)',
      body: Credentials,
      response: { 201: UserResponse, ...errorResponses(400, 409, 429) },
    },
  }, async (request, reply) => {
    const user = await withRetryAfter(reply, registerBuyer(ctx, { ip: request.ip }, request.body.username, request.body.password));
    return reply.status(201).send({ userId: user.userId, username: user.username, role: user.role });
  });

  app.post('/auth/login', {
    preValidation: normaliseUsername,
    schema: {
      tags: ['accounts'],
      summary: 'Exchange username (any case) and password for a bearer token; failed attempts are throttled',
      body: Credentials,
      response: { 200: Type.Object({ token: Type.String(), expiresInSeconds: Type.Integer(), role: Type.String() }), ...errorResponses(400, 401, 429) },
    },
  }, async (request, reply) => {
    const user = await withRetryAfter(reply, logIn(ctx, { ip: request.ip }, request.body.username, request.body.password));
    return { token: tokens.issue(user), expiresInSeconds: tokens.ttlSeconds, role: user.role };
  });

  app.get('/me', {
    onRequest: guard(tokens),
    schema: { tags: ['accounts'], summary: 'Who the bearer token belongs to', security: [{ bearer: [] }], response: { 200: UserResponse, ...errorResponses(401) } },
  }, async (request) => {
    const me = await withStoredRole(ctx, requireUser(tokens, request));
    return { userId: me.userId, username: me.username, role: me.role };
  });

  app.put('/admin/users/:username/role', {
    onRequest: roleGuard(deps, ['ADMIN']),
    schema: {
      tags: ['admin'],
      summary: 'Give a user a role (STAFF for door staff); privileged routes honour it at once; the last ADMIN stays ADMIN',
      security: [{ bearer: [] }],
      params: UsernameParams,
      body: RoleBody,
      response: { 200: UserResponse, ...errorResponses(400, 401, 403, 404, 409) },
    },
  }, async (request) => {
    const actor = requireRole(tokens, request, ['ADMIN']);
    const user = await setRole(ctx, request.params.username, request.body.role, actor);
    return { userId: user.userId, username: user.username, role: user.role };
  });
};
