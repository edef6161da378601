import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { negotiate } from '@fastify/accept-negotiator';
import { Readable } from 'node:stream';
import type { ContentCoding } from '../../app/availability-body.js';
import { availabilityChanges, createShow, getShow, listShows, showView } from '../../app/catalog.js';
import { availabilityBody, renderSeatMap, seatMapEtag } from '../../app/seat-map-reads.js';
import { editShow } from '../../app/show-edit.js';
import { AppError } from '../../app/errors.js';
import { limits, seatLimitOf, type SectionSpec } from '../../domain/index.js';
import type { HttpDeps } from '../deps.js';
import { roleGuard, requireRole } from '../auth.js';
import { ifNoneMatchMatches } from '../conditional.js';
import { NewShowBody, PageQuery, ShowEditBody, ShowParams, errorResponses, type SectionBody } from '../schemas.js';
import { VenueGeometrySchema } from '../venue-geometry-schema.js';

const Show = Type.Object({
  showId: Type.String(),
  title: Type.String(),
  description: Type.String({ description: "What the buyer reads about the show; '' when none" }),
  imageUrl: Type.Union([Type.String(), Type.Null()], { description: 'An https picture of the show, or null' }),
  currency: Type.String({ description: 'ISO 4217 code of every price of the show' }),
  venue: Type.String(),
  city: Type.String(),
  startsAt: Type.String(),
  saleStartsAt: Type.String(),
  saleEndsAt: Type.String(),
  status: Type.Union([Type.Literal('UPCOMING'), Type.Literal('ON_SALE'), Type.Literal('ENDED')]),
  secondsRemaining: Type.Integer({ description: 'Seconds until the sale opens (UPCOMING) or closes (ON_SALE)' }),
  capacity: Type.Integer(),
  maxSeatsPerUser: Type.Integer({ description: 'Seats one buyer may hold and buy of this show (held in active holds plus bought in live orders)' }),
  refundUntilHoursBefore: Type.Union([Type.Integer(), Type.Null()], { description: 'A buyer may refund until this many hours before the start; null: not by the buyer' }),
  exchangeUntilHoursBefore: Type.Union([Type.Integer(), Type.Null()], { description: 'A buyer may exchange until this many hours before the start; null: not by the buyer' }),
  cancelled: Type.Boolean({ description: 'The organizer cancelled the show: status ENDED, paid orders are refunded' }),
  cancelReason: Type.Union([Type.String(), Type.Null()]),
  available: Type.Optional(Type.Union([Type.Integer(), Type.Null()], {
    description: 'Seats and places left in all sections (in the list: null when not known without a store read; 0 is sold out)',
  })),
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

/** Seat-map responses sent at once when the configuration does not say. */
export const seatMapStreamsMaxDefault = 1000;
/** The longest one seat-map response may take to send (an 11 MB map over a slow phone link fits). */
const seatMapSendSecondsMax = 120;
const SeatStatusSchema = Type.Union([Type.Literal('AVAILABLE'), Type.Literal('HELD'), Type.Literal('SOLD'), Type.Literal('REFUND_PENDING')]);

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
    const actor = requireRole(tokens, request, ['ADMIN']);
    const { maxSeatsPerUser, seatMap, ...body } = request.body;
    const show = await createShow(ctx, {
      ...body,
      seatMap: { sections: seatMap.sections.map(sectionSpec) },
      startsAt: Date.parse(body.startsAt),
      saleStartsAt: Date.parse(body.saleStartsAt),
      saleEndsAt: Date.parse(body.saleEndsAt),
      maxSeatsPerUser: maxSeatsPerUser ?? null,
    }, undefined, actor);
    return reply.status(201).send({ showId: show.showId, capacity: show.capacity, maxSeatsPerUser: seatLimitOf(show, ctx.policy.maxSeatsPerUserDefault) });
  });

  app.patch('/admin/shows/:showId', {
    onRequest: roleGuard(deps, ['ADMIN']),
    schema: {
      tags: ['admin'],
      summary: "Edit a show's title, description, picture, venue, city or times",
      description: [
        'Only the fields given change. The seat map, prices and currency never change. A change that would break what is sold is',
        'refused with 409 CHANGE_NOT_ALLOWED: ending the sale before now, starting the show before the sale ends or in the past,',
        'moving the start of a running sale into the future once seats or places are held or sold. Two edits at once both apply',
        '(each is decided again on top of the other). Seat maps, their ETags and the catalog show the change at once.',
      ].join(' '),
      security: [{ bearer: [] }],
      params: ShowParams,
      body: ShowEditBody,
      response: { 200: Show, ...errorResponses(400, 401, 403, 404, 409, 422, 503) },
    },
  }, async (request) => {
    const actor = requireRole(tokens, request, ['ADMIN']);
    const { startsAt, saleStartsAt, saleEndsAt, ...words } = request.body;
    // Instants as epoch ms; a field left out stays out (the edit changes only what it names).
    const times = Object.fromEntries(Object.entries({ startsAt, saleStartsAt, saleEndsAt })
      .flatMap(([key, value]) => (value === undefined ? [] : [[key, Date.parse(value)]]))) as { startsAt?: number; saleStartsAt?: number; saleEndsAt?: number };
    const show = await editShow(ctx, request.params.showId, { ...words, ...times }, actor);
    return showView(show, ctx.clock.now(), ctx.policy.maxSeatsPerUserDefault, ctx.policy.currency);
  });

  app.get('/shows', {
    schema: { tags: ['catalog'], summary: 'Shows: on sale first, then upcoming, with countdowns', querystring: PageQuery, response: { 200: Type.Object({ shows: Type.Array(Show) }) } },
  }, async (request) => ({ shows: await listShows(ctx, request.query) }));

  app.get('/shows/:showId', {
    schema: {
      tags: ['catalog'],
      summary: 'One show, its sale status and seat counts',
      params: ShowParams,
      response: { 200: Type.Intersect([Show, Type.Object({ seatCounts: Type.Record(Type.String(), Type.Integer()), geometry: Type.Optional(VenueGeometrySchema) })]), ...errorResponses(404) },
    },
  }, async (request) => getShow(ctx, request.params.showId));

  app.get('/shows/:showId/availability', {
    schema: {
      tags: ['catalog'],
      summary: 'Every seat and section in a few kilobytes: a bitmap of free seats, or what changed since a version',
      description: [
        'Bit i of `seats` (base64; most significant bit of byte 0 first) is 1 when seat i is AVAILABLE, seats in the order of',
        'GET /shows/{showId}/seats (sections in map order, rows ascending, numbers ascending), counting only sections sold by seat:',
        'counted sections (general admission, or seated sold by quantity) have no bits; their `available` says what is left.',
        'Compressed (br or gzip) when the client accepts it. With `?since=<version>` the answer lists only the seats that changed',
        'after that version (`encoding: "changes"`), or is the full bitmap (`encoding: "bitmap"`) when that version is too old',
        'to answer from memory or the changes would be larger than the bitmap.',
      ].join(' '),
      params: ShowParams,
      querystring: Type.Object({
        since: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'a version this client already has (from an earlier answer)' })),
      }),
      headers: Type.Object({
        'if-none-match': Type.Optional(Type.String({ maxLength: 1024, description: 'ETag(s) of an answer you have; compared weakly' })),
      }),
      response: {
        // Sent pre-rendered (and pre-compressed) from the read model, so the schema documents, it does not serialize.
        200: Type.Unsafe<unknown>(Type.Union([
          Type.Object({
            version: Type.Integer({ description: 'Grows with every change of the show\'s inventory (the seat map\'s version)' }),
            encoding: Type.Literal('bitmap'),
            seats: Type.String({ description: 'base64 bitmap, one bit per seat of the sections sold by seat, 1 = AVAILABLE' }),
            sections: Type.Array(SectionAvailability),
          }, { title: 'Bitmap' }),
          Type.Object({
            version: Type.Integer(),
            encoding: Type.Literal('changes'),
            since: Type.Integer({ description: 'the version the changes start after' }),
            changes: Type.Array(Type.Object({ seatId: Type.String(), status: SeatStatusSchema })),
            sections: Type.Array(SectionAvailability),
          }, { title: 'Changes since a version' }),
        ], { description: 'Availability of every seat and section', headers: seatMapHeaders })),
        304: Type.Null({ description: 'Not modified: the answer is the one If-None-Match names. No body.', headers: seatMapHeaders }),
        ...errorResponses(400, 404),
      },
    },
  }, async (request, reply) => {
    const { showId } = request.params;
    const since = request.query.since;
    if (since !== undefined) {
      const changes = await availabilityChanges(ctx, showId, since);
      if (changes !== null) return reply.header('cache-control', 'no-cache').send(changes);
    }
    const body = await availabilityBody(ctx, showId);
    void reply.header('etag', body.etag).header('cache-control', 'no-cache').header('vary', 'accept-encoding');
    if (ifNoneMatchMatches(request.headers['if-none-match'], body.etag)) return reply.status(304).send(null);
    const coding = negotiate(request.headers['accept-encoding'] ?? '', ['br', 'gzip']) as ContentCoding | null;
    if (coding !== null) void reply.header('content-encoding', coding);
    return reply.type('application/json; charset=utf-8').send(body.body(coding ?? 'identity'));
  });

  let streaming = 0;
  const streamsMax = deps.seatMapStreamsMax ?? seatMapStreamsMaxDefault;
  app.get('/shows/:showId/seats', {
    schema: {
      tags: ['catalog'],
      summary: 'Seat map with live status, from memory; supports ETag / If-None-Match',
      description: [
        'Every seat of the show with its status, in the canonical order (sections in map order, rows ascending, numbers ascending).',
        'A 100,000-seat show is about 11 MB in the full form and 1.3 MB in the compact one (`format=compact`: the seat ids once and',
        'one letter per seat); clients that only need what is free should read GET /shows/{showId}/availability (a few kilobytes).',
        'Rendered incrementally and shared by every reader of a version; too many responses in flight at once answer 503 BUSY.',
      ].join(' '),
      params: ShowParams,
      querystring: Type.Object({ format: Type.Optional(Type.Union([Type.Literal('full'), Type.Literal('compact')], { default: 'full' })) }),
      headers: Type.Object({
        'if-none-match': Type.Optional(Type.String({ maxLength: 1024, description: 'ETag(s) of a map you have: one, a comma-separated list, or *; compared weakly' })),
      }),
      response: {
        // Sent pre-rendered from the read model (shared buffers), so the schema here documents, it does not serialize.
        200: Type.Unsafe<unknown>(Type.Object({
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
        ...errorResponses(404, 503),
      },
    },
  }, async (request, reply) => {
    const form = request.query.format === 'compact' ? 'compact' : 'full';
    // The ETag is known before anything is rendered, so a revalidation costs no rendering at all.
    const etag = await seatMapEtag(ctx, request.params.showId, form);
    void reply.header('etag', etag).header('cache-control', 'no-cache');
    // A 304 carries no body (app.ts strips what the serializer makes of null, and the framing headers).
    if (ifNoneMatchMatches(request.headers['if-none-match'], etag)) return reply.status(304).send(null);
    if (streaming >= streamsMax) throw new AppError('BUSY', 'too many seat maps are being sent; retry shortly', { retryAfterSeconds: limits.busyRetryAfterSeconds });
    const map = await renderSeatMap(ctx, request.params.showId, form);
    // Rendering may have taken a newer version than the one the ETag above named.
    void reply.header('etag', map.etag).type('application/json; charset=utf-8').header('content-length', map.length);
    
    // The parts are shared by every reader of this version: a slow reader holds references, never a copy.
    streaming++;
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      streaming--;
      clearTimeout(stall);
    };
    // A reader that stops reading is cut off, so it cannot hold a response (and its socket) for ever.
    const stall = setTimeout(() => reply.raw.destroy(), seatMapSendSecondsMax * 1000);
    stall.unref();
    reply.raw.once('close', finish);
    return reply.send(Readable.from(map.parts, { objectMode: false }));
  });
};
