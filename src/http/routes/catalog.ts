import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { createShow, getShow, listShows } from '../../app/catalog.js';
import { AppError } from '../../app/errors.js';
import type { HttpDeps } from '../deps.js';
import { roleGuard, requireRole } from '../auth.js';
import { NewShowBody, PageQuery, ShowParams, errorResponses } from '../schemas.js';

const Show = Type.Object({
  showId: Type.String(),
  title: Type.String(),
  venue: Type.String(),
  city: Type.String(),
  startsAt: Type.String(),
  saleStartsAt: Type.String(),
  saleEndsAt: Type.String(),
  status: Type.Union([Type.Literal('UPCOMING'), Type.Literal('ON_SALE'), Type.Literal('ENDED')]),
  secondsRemaining: Type.Integer({ description: 'Seconds until the sale opens (UPCOMING) or closes (ON_SALE)' }),
  capacity: Type.Integer(),
  sections: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), rows: Type.Integer(), seatsPerRow: Type.Integer(), priceCents: Type.Integer() })),
});

export const catalogRoutes = (deps: HttpDeps): FastifyPluginAsyncTypebox => async (app) => {
  const { ctx, tokens } = deps;

  app.post('/admin/shows', {
    onRequest: roleGuard(deps, ['ADMIN']),
    schema: {
      tags: ['admin'],
      summary: 'Create a show with its seat map',
      security: [{ bearer: [] }],
      body: NewShowBody,
      response: { 201: Type.Object({ showId: Type.String(), capacity: Type.Integer() }), ...errorResponses(400, 401, 403, 422) },
    },
  }, async (request, reply) => {
    requireRole(tokens, request, ['ADMIN']);
    const body = request.body;
    const show = await createShow(ctx, {
      ...body,
      startsAt: Date.parse(body.startsAt),
      saleStartsAt: Date.parse(body.saleStartsAt),
      saleEndsAt: Date.parse(body.saleEndsAt),
    });
    return reply.status(201).send({ showId: show.showId, capacity: show.capacity });
  });

  app.get('/shows', {
    schema: { tags: ['catalog'], summary: 'Shows: on sale first, then upcoming, with countdowns', querystring: PageQuery, response: { 200: Type.Object({ shows: Type.Array(Show) }) } },
  }, async (request) => ({ shows: await listShows(ctx, request.query) }));

  app.get('/shows/:showId', {
    schema: {
      tags: ['catalog'],
      summary: 'One show, its sale status and seat counts',
      params: ShowParams,
      response: { 200: Type.Intersect([Show, Type.Object({ seatCounts: Type.Record(Type.String(), Type.Integer()) })]), ...errorResponses(404) },
    },
  }, async (request) => getShow(ctx, request.params.showId));

  app.get('/shows/:showId/seats', {
    schema: {
      tags: ['catalog'],
      summary: 'Seat map with live status, from memory; supports ETag / If-None-Match',
      params: ShowParams,
      querystring: Type.Object({ format: Type.Optional(Type.Union([Type.Literal('full'), Type.Literal('compact')], { default: 'full' })) }),
      response: {
        // Sent pre-rendered from the cache (a string), so the schema here documents, it does not serialize.
        200: Type.Unsafe<string>(Type.Object({
          showId: Type.String(),
          version: Type.Integer(),
          seats: Type.Optional(Type.Array(Type.Object({
            seatId: Type.String(), section: Type.String(), row: Type.Integer(), number: Type.Integer(), priceCents: Type.Integer(), status: Type.String(),
          }))),
          statuses: Type.Optional(Type.String({ description: 'compact form: one of A/H/S/R per seat, in seatIds order' })),
        })),
        304: Type.Null(),
        ...errorResponses(404),
      },
    },
  }, async (request, reply) => {
    const snapshot = await ctx.seatMaps.snapshot(request.params.showId);
    if (snapshot === null) throw new AppError('SHOW_NOT_FOUND', 'no such show');
    const compact = request.query.format === 'compact';
    const etag = compact ? `${snapshot.etag.slice(0, -1)}-c"` : snapshot.etag;
    void reply.header('etag', etag).header('cache-control', 'no-cache');
    if (request.headers['if-none-match'] === etag) return reply.status(304).send(null);
    return reply.type('application/json; charset=utf-8').send(compact ? snapshot.compactJson : snapshot.json);
  });
};
