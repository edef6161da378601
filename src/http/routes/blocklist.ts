import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Blocklist } from '../../app/blocklist.js';
import { iso } from '../../app/views.js';
import type { BlockEntry } from '../../domain/index.js';
import type { HttpDeps } from '../deps.js';
import { requireRole, roleGuard } from '../auth.js';
import { BlockParams, BlockView, NewBlockBody } from '../blocklist-schemas.js';
import { HttpError } from '../http-error.js';
import { errorResponses } from '../schemas.js';

const view = (e: BlockEntry) => ({
  blockId: e.blockId,
  kind: e.target.kind,
  username: e.target.kind === 'USER' ? e.target.username : null,
  userId: e.target.kind === 'USER' ? e.target.userId : null,
  ip: e.target.kind === 'IP' ? e.target.cidr : null,
  reason: e.reason,
  createdBy: e.createdBy,
  createdAt: iso(e.createdAt),
  expiresAt: e.expiresAt === null ? null : iso(e.expiresAt),
  status: e.status,
  liftedAt: e.liftedAt === null ? null : iso(e.liftedAt),
});

/** The admin's blocklist (issue 24 item 4): a blocked buyer's or address's buying routes answer 403 BLOCKED. */
export const blocklistRoutes = (deps: HttpDeps): FastifyPluginAsyncTypebox => async (app) => {
  const { tokens } = deps;
  const blocklist = (): Blocklist => {
    const list = deps.buyers?.blocklist ?? null;
    if (list === null) throw new HttpError('ROUTE_NOT_FOUND', 'this server runs without a blocklist');
    return list;
  };

  app.post('/admin/blocklist', {
    onRequest: roleGuard(deps, ['ADMIN']),
    schema: {
      tags: ['admin'],
      summary: 'Block a buyer ({"username"}) or an address or CIDR block ({"ip"}) from the buying routes, with a reason and an optional expiry',
      description: 'A blocked buyer\'s holds, orders, campaign orders, grabs, cuts and queue joins answer 403 BLOCKED; reads still work. Blocking a buyer releases their active holds. Other processes apply it within TICKETRUSH_BLOCKLIST_REFRESH_MS.',
      security: [{ bearer: [] }],
      body: NewBlockBody,
      response: { 201: BlockView, ...errorResponses(400, 401, 403, 404, 422) },
    },
  }, async (request, reply) => {
    const admin = requireRole(tokens, request, ['ADMIN']);
    const body = request.body;
    const expiresAt = body.expiresAt === undefined ? null : Date.parse(body.expiresAt);
    if (expiresAt !== null && !Number.isFinite(expiresAt)) throw new HttpError('VALIDATION_FAILED', 'expiresAt must be an ISO 8601 date-time');
    const entry = await blocklist().block('username' in body
      ? { username: body.username, reason: body.reason, expiresAt }
      : { ip: body.ip, reason: body.reason, expiresAt }, admin.userId);
    return reply.status(201).send(view(entry));
  });

  app.get('/admin/blocklist', {
    onRequest: roleGuard(deps, ['ADMIN']),
    schema: {
      tags: ['admin'],
      summary: 'The blocklist entries in force (active, not expired), oldest first',
      security: [{ bearer: [] }],
      response: { 200: Type.Object({ entries: Type.Array(BlockView) }), ...errorResponses(401, 403) },
    },
  }, async (request) => {
    requireRole(tokens, request, ['ADMIN']);
    return { entries: (await blocklist().list()).map(view) };
  });

  app.delete('/admin/blocklist/:blockId', {
    onRequest: roleGuard(deps, ['ADMIN']),
    schema: {
      tags: ['admin'],
      summary: 'Lift a blocklist entry: it stops blocking at once (other processes within the refresh interval)',
      security: [{ bearer: [] }],
      params: BlockParams,
      response: { 200: BlockView, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request) => {
    requireRole(tokens, request, ['ADMIN']);
    return view(await blocklist().lift(request.params.blockId));
  });
};
