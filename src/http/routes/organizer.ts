import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { saleStats } from '../../app/sale-stats.js';
import { cancellationProgress, cancelShow } from '../../app/show-cancellation.js';
import { listUsers } from '../../app/user-list.js';
import { limits } from '../../domain/index.js';
import type { HttpDeps } from '../deps.js';
import { requireRole, roleGuard } from '../auth.js';
import { ShowParams, errorResponses } from '../schemas.js';

const figures = {
  capacity: Type.Integer({ description: 'seats, or standing places' }),
  sold: Type.Integer(),
  held: Type.Integer({ description: 'taken by active holds' }),
  available: Type.Integer(),
  refundPending: Type.Integer(),
  moneyTakenCents: Type.Integer({ description: 'price of every seat or place sold, integer cents' }),
};

const SectionStats = Type.Object({
  id: Type.String(),
  name: Type.String(),
  kind: Type.Union([Type.Literal('SEATED'), Type.Literal('GENERAL_ADMISSION')]),
  counted: Type.Boolean({ description: 'sold by count (general admission, or seated sold by quantity): figures are places, not seats' }),
  priceCents: Type.Integer(),
  ...figures,
});

const SaleStatsResponse = Type.Object({
  showId: Type.String(),
  version: Type.Integer({ description: 'seat map version these figures are from' }),
  currency: Type.String({ description: 'ISO 4217 code of the amounts' }),
  ...figures,
  holdsPerMinute: Type.Integer({ description: 'seats put on hold in the last minute' }),
  sections: Type.Array(SectionStats, { description: 'every section, in seat-map order; the totals above add them up' }),
  pulse: Type.Object({
    stepSeconds: Type.Integer({ description: 'width of each bucket' }),
    points: Type.Array(Type.Object({
      at: Type.String({ format: 'date-time', description: 'start of the bucket' }),
      holds: Type.Integer({ description: 'holds placed in the bucket' }),
      refusals: Type.Record(Type.String(), Type.Integer(), { description: 'hold requests refused in the bucket, by error code (at most 12 codes, the rest as OTHER)' }),
    }), { description: 'the last minutes, oldest first, empty buckets included' }),
  }, { description: "hold requests of this show answered by this process over the last 5 minutes (each process counts its own)" }),
});

const UsersQuery = Type.Unsafe<{ q: string; limit: number; offset: number }>(Type.Object({
  q: Type.Optional(Type.String({ maxLength: limits.usernameLengthMax, default: '', description: 'the start of a username (case ignored)' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: limits.listPageSizeMax, default: 20, description: 'Page size' })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0, description: 'Items to skip' })),
}, { additionalProperties: false }));

const UserList = Type.Object({
  users: Type.Array(Type.Object({
    userId: Type.String(),
    username: Type.String(),
    role: Type.Union([Type.Literal('BUYER'), Type.Literal('STAFF'), Type.Literal('ADMIN')]),
    createdAt: Type.String(),
  })),
  more: Type.Boolean({ description: 'another page follows' }),
});

const CancelBody = Type.Object({
  reason: Type.String({ minLength: 1, maxLength: 500, description: 'Why the show is cancelled (buyers are told)' }),
}, { additionalProperties: false });

const Counts = Type.Record(Type.String(), Type.Integer());
const CancellationResponse = Type.Object({
  showId: Type.String(),
  cancelledAt: Type.String(),
  reason: Type.String(),
  ordersToRefund: Type.Integer({ description: 'Paid orders with a valid ticket, not refunded yet' }),
  ordersByStatus: Counts,
  refundsByStatus: Counts,
  activeHolds: Type.Integer(),
  done: Type.Boolean({ description: 'Every paid order refunded (or refused by the provider), no refund pending, no hold left' }),
});

export const organizerRoutes = (deps: HttpDeps): FastifyPluginAsyncTypebox => async (app) => {
  app.post('/admin/shows/:showId/cancel', {
    onRequest: roleGuard(deps, ['ADMIN']),
    schema: {
      tags: ['admin'],
      summary: 'Cancel a show: sales stop at once, holds are released, every paid order is refunded in the background (ADMIN)',
      description: 'A second cancel is 409 SHOW_CANCELLED. Follow the progress at GET /admin/shows/{showId}/cancellation; a pass cut short (a crash) is resumed, each order refunded once.',
      security: [{ bearer: [] }],
      params: ShowParams,
      body: CancelBody,
      response: { 202: CancellationResponse, ...errorResponses(400, 401, 403, 404, 409, 503) },
    },
  }, async (request, reply) => {
    const actor = requireRole(deps.tokens, request, ['ADMIN']);
    return reply.status(202).send(await cancelShow(deps.ctx, request.params.showId, request.body.reason, actor));
  });

  app.get('/admin/shows/:showId/cancellation', {
    onRequest: roleGuard(deps, ['ADMIN']),
    schema: {
      tags: ['admin'],
      summary: 'Progress of a show\'s cancellation: orders left to refund, refunds by status, holds left (ADMIN)',
      security: [{ bearer: [] }],
      params: ShowParams,
      response: { 200: CancellationResponse, ...errorResponses(401, 403, 404, 503) },
    },
  }, async (request) => cancellationProgress(deps.ctx, request.params.showId));

  app.get('/admin/shows/:showId/stats', {
    onRequest: roleGuard(deps, ['ADMIN']),
    schema: {
      tags: ['admin'],
      summary: 'Live sale figures of a show (from memory), per section and in total: sold, held, available, money taken, holds per minute, and holds and refusals by code over the last minutes',
      security: [{ bearer: [] }],
      params: ShowParams,
      response: { 200: SaleStatsResponse, ...errorResponses(401, 403, 404) },
    },
  }, async (request) => saleStats(deps.ctx, request.params.showId));

  app.get('/admin/users', {
    onRequest: roleGuard(deps, ['ADMIN']),
    schema: {
      tags: ['admin'],
      summary: 'Users by name, paged; search by the start of the username (give or take roles with PUT /admin/users/{username}/role)',
      security: [{ bearer: [] }],
      querystring: UsersQuery,
      response: { 200: UserList, ...errorResponses(400, 401, 403) },
    },
  }, async (request) => listUsers(deps.ctx, request.query));
};
