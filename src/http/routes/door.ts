import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { revokedTickets, syncOfflineScans } from '../../app/door-sync.js';
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
  seatId: Type.Union([Type.String(), Type.Null()]),
  usedAt: Type.Union([Type.String(), Type.Null()]),
  flagged: Type.Boolean({ description: 'the door admitted it offline but it had already been used: admitted twice' }),
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
};
