import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { createShow, getAvailability, getShow, listShows } from '../../app/catalog.js';
import { AppError } from '../../app/errors.js';
import { seatLimitOf, type SectionSpec } from '../../domain/index.js';
import type { HttpDeps } from '../deps.js';
import { roleGuard, requireRole } from '../auth.js';
import { ifNoneMatchMatches } from '../conditional.js';
import { NewShowBody, PageQuery, ShowParams, errorResponses, type SectionBody } from '../schemas.js';

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
  maxSeatsPerUser: Type.Integer({ description: 'Seats one buyer may hold and buy of this show (held in active holds plus bought in live orders)' }),
  sections: Type.Array(Type.Union([
    Type.Object({
      id: Type.String(), name: Type.String(), kind: Type.Literal('SEATED'), rows: Type.Integer(), seatsPerRow: Type.Integer(), priceCents: Type.Integer(),
      sellBy: Type.Union([Type.Literal('SEAT'), Type.Literal('QUANTITY')]),
      accessible: Type.Array(Type.Object({ row: Type.Integer(), number: Type.Integer() })),
    }, { title: 'Seated section' }),
    Type.Object({ id: Type.String(), name: Type.String(), kind: Type.Literal('GENERAL_ADMISSION'), capacity: Type.Integer(), priceCents: Type.Integer() }, { title: 'General admission section' }),
  ])),
});

const SectionAvailability = Type.Object({
  id: Type.String(),
  kind: Type.Union([Type.Literal('SEATED'), Type.Literal('GENERAL_ADMISSION')]),
  capacity: Type.Integer({ description: 'Seats, or standing places' }),
  available: Type.Integer({ description: 'Left to hold: the stock of a counted section, or the free seats of a seated one' }),
});

/** Today's bodies keep working: a section without `kind` is SEATED, sold by SEAT, with no accessible seats. */
function sectionSpec(body: SectionBody): SectionSpec {
  if (body.kind === 'GENERAL_ADMISSION') return body;
  return { ...body, kind: 'SEATED', sellBy: body.sellBy ?? 'SEAT', accessible: body.accessible ?? [] };
}

const seatMapHeaders = {
  etag: { type: 'string', description: 'Version of this map (the compact form has its own); send it back in If-None-Match' },
  'cache-control': { type: 'string', description: 'no-cache: revalidate with If-None-Match before reuse' },
};

export const catalogRoutes = (deps: HttpDeps): FastifyPluginAsyncTypebox => async (app) => {
  const { ctx, tokens } = deps;

  app.post('/admin/shows', {
    onRequest: roleGuard(deps, ['ADMIN']),
    schema: {
      tags: ['admin'],
      summary: 'Create a show with its seat map',
      security: [{ bearer: [] }],
      body: NewShowBody,
      response: { 201: Type.Object({ showId: Type.String(), capacity: Type.Integer(), maxSeatsPerUser: Type.Integer() }), ...errorResponses(400, 401, 403, 422) },
    },
  }, async (request, reply) => {
    requireRole(tokens, request, ['ADMIN']);
    const { maxSeatsPerUser, seatMap, ...body } = request.body;
    const show = await createShow(ctx, {
      ...body,
      seatMap: { sections: seatMap.sections.map(sectionSpec) },
      startsAt: Date.parse(body.startsAt),
      saleStartsAt: Date.parse(body.saleStartsAt),
      saleEndsAt: Date.parse(body.saleEndsAt),
      maxSeatsPerUser: maxSeatsPerUser ?? null,
    });
    return reply.status(201).send({ showId: show.showId, capacity: show.capacity, maxSeatsPerUser: seatLimitOf(show, ctx.policy.maxSeatsPerUserDefault) });
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

  app.get('/shows/:showId/availability', {
    schema: {
      tags: ['catalog'],
      summary: 'What is left of each section, counted or seated, from memory',
      params: ShowParams,
      response: {
        200: Type.Object({
          version: Type.Integer({ description: 'Grows with every change of the show\'s inventory (the seat map\'s version)' }),
          sections: Type.Array(SectionAvailability),
        }),
        ...errorResponses(404),
      },
    },
  }, async (request) => getAvailability(ctx, request.params.showId));

  app.get('/shows/:showId/seats', {
    schema: {
      tags: ['catalog'],
      summary: 'Seat map with live status, from memory; supports ETag / If-None-Match',
      params: ShowParams,
      querystring: Type.Object({ format: Type.Optional(Type.Union([Type.Literal('full'), Type.Literal('compact')], { default: 'full' })) }),
      headers: Type.Object({
        'if-none-match': Type.Optional(Type.String({ maxLength: 1024, description: 'ETag(s) of a map you have: one, a comma-separated list, or *; compared weakly' })),
      }),
      response: {
        // Sent pre-rendered from the cache (a string), so the schema here documents, it does not serialize.
        200: Type.Unsafe<string>(Type.Object({
          showId: Type.String(),
          version: Type.Integer(),
          sections: Type.Array(SectionAvailability, { description: 'What is left of every section (counted sections have no seats below)' }),
          seats: Type.Optional(Type.Array(Type.Object({
            seatId: Type.String(), section: Type.String(), row: Type.Integer(), number: Type.Integer(), priceCents: Type.Integer(),
            accessible: Type.Boolean({ description: 'Suited to wheelchair users' }), status: Type.String(),
          }))),
          statuses: Type.Optional(Type.String({ description: 'compact form: one of A/H/S/R per seat, in seatIds order' })),
        }, { description: 'The seat map', headers: seatMapHeaders })),
        304: Type.Null({ description: 'Not modified: the map is the one If-None-Match names. No body.', headers: seatMapHeaders }),
        ...errorResponses(404),
      },
    },
  }, async (request, reply) => {
    const snapshot = await ctx.seatMaps.snapshot(request.params.showId);
    if (snapshot === null) throw new AppError('SHOW_NOT_FOUND', 'no such show');
    const compact = request.query.format === 'compact';
    const etag = compact ? `${snapshot.etag.slice(0, -1)}-c"` : snapshot.etag;
    void reply.header('etag', etag).header('cache-control', 'no-cache');
    // A 304 carries no body (app.ts strips what the serializer makes of null, and the framing headers).
    if (ifNoneMatchMatches(request.headers['if-none-match'], etag)) return reply.status(304).send(null);
    return reply.type('application/json; charset=utf-8').send(compact ? snapshot.compactJson : snapshot.json);
  });
};
