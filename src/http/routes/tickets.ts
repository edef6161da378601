import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { checkInTicket, getMyTicket, listMyTickets } from '../../app/tickets.js';
import type { HttpDeps } from '../deps.js';
import { guard, roleGuard, requireRole, requireUser } from '../auth.js';
import { CheckInBody, CheckInOutcomeSchema, PageQuery, TicketParams, TicketResponse, errorResponses } from '../schemas.js';

export const ticketRoutes = (deps: HttpDeps): FastifyPluginAsyncTypebox => async (app) => {
  const { ctx, tokens } = deps;

  app.get('/tickets/public-key', {
    schema: {
      tags: ['tickets'],
      summary: 'The key that verifies ticket QR payloads offline',
      response: { 200: Type.Object({ algorithm: Type.String(), publicKeyPem: Type.String(), qrFormat: Type.String() }) },
    },
  }, async () => ({
    algorithm: ctx.signer.algorithm,
    publicKeyPem: ctx.signer.publicKeyPem,
    qrFormat: 'TR1.<base64url JSON {tid,code,show,seat,sec}>.<base64url Ed25519 signature of "TR1.<payload>">',
  }));

  app.get('/me/tickets', {
    onRequest: guard(tokens),
    schema: {
      tags: ['tickets'],
      summary: 'My tickets, newest first',
      security: [{ bearer: [] }],
      querystring: PageQuery,
      response: { 200: Type.Object({ tickets: Type.Array(TicketResponse) }), ...errorResponses(401) },
    },
  }, async (request) => {
    const me = requireUser(tokens, request);
    return { tickets: await listMyTickets(ctx, me.userId, request.query) };
  });

  app.get('/tickets/:ticketId', {
    onRequest: guard(tokens),
    schema: {
      tags: ['tickets'],
      summary: 'One of my tickets (anyone else gets 404)',
      security: [{ bearer: [] }],
      params: TicketParams,
      response: { 200: TicketResponse, ...errorResponses(401, 404) },
    },
  }, async (request) => {
    const me = requireUser(tokens, request);
    return getMyTicket(ctx, me.userId, request.params.ticketId);
  });

  app.post('/checkin', {
    onRequest: roleGuard(deps, ['STAFF', 'ADMIN']),
    schema: {
      tags: ['tickets'],
      summary: 'Door check-in (STAFF or ADMIN) by QR payload or by the printed short code and show: admits a ticket exactly once',
      security: [{ bearer: [] }],
      body: CheckInBody,
      response: { 200: Type.Object({ outcome: CheckInOutcomeSchema, ticket: TicketResponse }), ...errorResponses(400, 401, 403, 409) },
    },
  }, async (request) => {
    const steward = requireRole(tokens, request, ['STAFF', 'ADMIN']);
    const body = request.body;
    const ref = 'qr' in body ? { qr: body.qr } : { code: body.code, showId: body.showId };
    return checkInTicket(ctx, ref, { nonce: body.nonce ?? null, staffUserId: steward.userId, gate: body.gate ?? null, deviceId: body.deviceId ?? null });
  });
};
