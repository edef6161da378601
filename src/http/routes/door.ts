import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { attendeeQueryMax, doorStats, searchAttendees } from '../../app/attendees.js';
import { revokedTickets, syncOfflineScans } from '../../app/door-sync.js';
import { limits } from '../../domain/index.js';
import { iso } from '../../app/views.js';
import type { HttpDeps } from '../deps.js';
import { requireUser, roleGuard } from '../auth.js';
import { ShowParams, errorResponses } from '../schemas.js';

/** Scans one upload may carry; a door that was offline longer sends several. */
export const offlineScansPerUploadMax = 500;

const OfflineScanBody = Type.Object(
  {
    scans: Type.Array(
      Type.Object(
        {
          qr: Type.String({ minLength: 1, maxLength: 1024 }),
          nonce: Type.String({ minLength: 1, maxLength: 64, description: 'Scanner-chosen, unique per scan; a re-upload of the same scan is not a second use' }),
          scannedAt: Type.String({ format: 'date-time', maxLength: 40, description: 'when the door scanned it (ISO 8601)' }),
          gate: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
          deviceId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
          offlineVerdict: Type.Union([Type.Literal('ADMITTED'), Type.Literal('ALREADY_USED'), Type.Literal('INVALID')], { description: 'what the door answered offline' }),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: offlineScansPerUploadMax },
    ),
  },
  { additionalProperties: false },
);

const SyncResult = Type.Object({
  nonce: Type.String(),
  outcome: Type.String({ description: 'ADMITTED, ALREADY_ADMITTED_SAME_SCAN, TICKET_ALREADY_USED, TICKET_NOT_VALID or TICKET_INVALID' }),
  ticketId: Type.Union([Type.String(), Type.Null()]),
  showId: Type.Union([Type.String(), Type.Null()]),
  sectionId: Type.Union([Type.String(), Type.Null()], { description: 'null for a forged QR or one issued before QRs named the section' }),
  seatId: Type.Union([Type.String(), Type.Null()], { description: 'empty for general admission' }),
  usedAt: Type.Union([Type.String(), Type.Null()]),
  flagged: Type.Boolean({ description: 'the door admitted it offline but it had already been used: admitted twice' }),
});

const AttendeesQuery = Type.Unsafe<{ q: string; limit: number; offset: number }>(Type.Object({
  q: Type.Optional(Type.String({ maxLength: attendeeQueryMax, default: '', description: 'Start of the buyer\'s username (case ignored) or a ticket\'s exact short code; empty for everyone' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: limits.listPageSizeMax, default: 20, description: 'Page size' })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000, default: 0, description: 'Items to skip' })),
}, { additionalProperties: false }));

const AttendeeResponse = Type.Object({
  ticketId: Type.String(),
  orderId: Type.String(),
  username: Type.String({ description: 'The buyer' }),
  sectionId: Type.String(),
  seatId: Type.Union([Type.String(), Type.Null()], { description: 'null for general admission' }),
  code: Type.String({ description: 'The short code printed on the ticket; POST /checkin takes it with the show' }),
  status: Type.String({ description: 'VALID, USED (checked in) or INVALID' }),
  checkedIn: Type.Boolean(),
  usedAt: Type.Union([Type.String(), Type.Null()]),
});

export const doorRoutes = (deps: HttpDeps): FastifyPluginAsyncTypebox => async (app) => {
  const { ctx } = deps;

  app.post('/checkin/offline-scans', {
    onRequest: roleGuard(deps, ['STAFF', 'ADMIN']),
    schema: {
      tags: ['tickets'],
      summary: 'Upload scans a door made offline (STAFF or ADMIN); applied in scan-time order, one result per scan',
      security: [{ bearer: [] }],
      body: OfflineScanBody,
      response: { 200: Type.Object({ results: Type.Array(SyncResult) }), ...errorResponses(400, 401, 403) },
    },
  }, async (request) => {
    // The uploading steward is the scanning account: a nonce is the same scan only from them.
    const results = await syncOfflineScans(ctx, requireUser(deps.tokens, request).userId, request.body.scans.map((s) => ({
      qr: s.qr,
      nonce: s.nonce,
      scannedAt: Date.parse(s.scannedAt),
      gate: s.gate ?? null,
      deviceId: s.deviceId ?? null,
      offlineVerdict: s.offlineVerdict,
    })));
    return { results: results.map((r) => ({ ...r, usedAt: r.usedAt === null ? null : iso(r.usedAt) })) };
  });

  app.get('/shows/:showId/revoked-tickets', {
    onRequest: roleGuard(deps, ['STAFF', 'ADMIN']),
    schema: {
      tags: ['tickets'],
      summary: 'Ticket ids of a show that are no longer valid, for door scanners working offline (STAFF or ADMIN)',
      security: [{ bearer: [] }],
      params: ShowParams,
      response: { 200: Type.Object({ showId: Type.String(), ticketIds: Type.Array(Type.String()) }), ...errorResponses(401, 403, 404) },
    },
  }, async (request) => ({ showId: request.params.showId, ticketIds: await revokedTickets(ctx, request.params.showId) }));

  app.get('/shows/:showId/checkin-stats', {
    onRequest: roleGuard(deps, ['STAFF', 'ADMIN']),
    schema: {
      tags: ['tickets'],
      summary: 'The door\'s live count: tickets of the show that admit, and how many were checked in (STAFF or ADMIN)',
      security: [{ bearer: [] }],
      params: ShowParams,
      response: {
        200: Type.Object({ showId: Type.String(), tickets: Type.Integer({ description: 'issued tickets that admit (VALID or USED)' }), checkedIn: Type.Integer() }),
        ...errorResponses(401, 403, 404),
      },
    },
  }, async (request) => doorStats(ctx, request.params.showId));

  app.get('/admin/shows/:showId/attendees', {
    onRequest: roleGuard(deps, ['STAFF', 'ADMIN']),
    schema: {
      tags: ['tickets'],
      summary: 'A show\'s attendees, one row per ticket, searched by username prefix or exact ticket code, paged (STAFF or ADMIN)',
      security: [{ bearer: [] }],
      params: ShowParams,
      querystring: AttendeesQuery,
      response: { 200: Type.Object({ showId: Type.String(), attendees: Type.Array(AttendeeResponse) }), ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request) => {
    const { q, limit, offset } = request.query;
    const rows = await searchAttendees(ctx, request.params.showId, q, limit, offset);
    return {
      showId: request.params.showId,
      attendees: rows.map(({ ticket, username }) => ({
        ticketId: ticket.ticketId, orderId: ticket.orderId, username, sectionId: ticket.sectionId, seatId: ticket.seatId, code: ticket.code,
        status: ticket.status, checkedIn: ticket.status === 'USED', usedAt: ticket.usedAt === null ? null : iso(ticket.usedAt),
      })),
    };
  });
};
