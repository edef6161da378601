import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { authenticate, register, setRole } from '../../app/accounts.js';
import type { HttpDeps } from '../deps.js';
import { guard, roleGuard, requireRole, requireUser, withStoredRole } from '../auth.js';
import { Credentials, RoleBody, UsernameParams, errorResponses } from '../schemas.js';

const UserResponse = Type.Object({ userId: Type.String(), username: Type.String(), role: Type.String() });

export const accountRoutes = (deps: HttpDeps): FastifyPluginAsyncTypebox => async (app) => {
  const { ctx, tokens } = deps;

  app.post('/auth/register', {
    schema: { tags: ['accounts'], summary: 'Create a buyer account', body: Credentials, response: { 201: UserResponse, ...errorResponses(400, 409) } },
  }, async (request, reply) => {
    const user = await register(ctx, request.body.username, request.body.password);
    return reply.status(201).send({ userId: user.userId, username: user.username, role: user.role });
  });

  app.post('/auth/login', {
    schema: {
      tags: ['accounts'],
      summary: 'Exchange username and password for a bearer token',
      body: Credentials,
      response: { 200: Type.Object({ token: Type.String(), expiresInSeconds: Type.Integer(), role: Type.String() }), ...errorResponses(400, 401) },
    },
  }, async (request) => {
    const user = await authenticate(ctx, request.body.username, request.body.password);
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
      summary: 'Give a user a role (STAFF for door staff); privileged routes honour it at once',
      security: [{ bearer: [] }],
      params: UsernameParams,
      body: RoleBody,
      response: { 200: UserResponse, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request) => {
    requireRole(tokens, request, ['ADMIN']);
    const user = await setRole(ctx, request.params.username, request.body.role);
    return { userId: user.userId, username: user.username, role: user.role };
  });
};
