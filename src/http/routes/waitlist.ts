import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { joinWaitlist, leaveWaitlist, myWaitlist } from '../../app/waitlist.js';
import type { HttpDeps } from '../deps.js';
import { guard, requireUser } from '../auth.js';
import { buyerGate } from '../buyer-gate.js';
import { admissionHeaderDoc, admissionTokenOf } from '../admission.js';
import { ShowParams, errorResponses } from '../schemas.js';
import { JoinWaitlistBody, WaitlistEntryResponse } from '../waitlist-schemas.js';

/** The waitlist (issue 25 item 5, 候补): join, leave, see my entries. */
export const waitlistRoutes = (deps: HttpDeps): FastifyPluginAsyncTypebox => async (app) => {
  const { ctx, tokens } = deps;

  // Joining is a buying route: blocked buyers are refused and it is limited like a queue join.
  app.post('/shows/:showId/waitlist', {
    onRequest: [guard(tokens), buyerGate(deps, 'queue-join')],
    schema: {
      tags: ['booking'],
      summary: 'Join the waitlist of a show (one live entry per buyer and show); seats that come back are offered in order of joining as a hold',
      description: `Refusals: 403 BLOCKED, 429 RATE_LIMITED, 404 SHOW_NOT_FOUND, 409 WAITLIST_ALREADY_JOINED, 422 INVALID_WAITLIST_REQUEST, 422 SALE_NOT_OPEN, 409 SHOW_CANCELLED. When seats are free at once the entry comes back OFFERED with its hold; while the show's waiting room is on, offers pause. ${admissionHeaderDoc}`,
      security: [{ bearer: [] }],
      params: ShowParams,
      body: JoinWaitlistBody,
      response: { 201: WaitlistEntryResponse, ...errorResponses(400, 401, 403, 404, 409, 422, 429, 503) },
    },
  }, async (request, reply) => {
    const me = requireUser(tokens, request);
    return reply.status(201).send(await joinWaitlist(ctx, me.userId, request.params.showId, request.body, admissionTokenOf(request)));
  });

  app.delete('/shows/:showId/waitlist', {
    onRequest: guard(tokens),
    schema: {
      tags: ['booking'],
      summary: 'Leave the waitlist of a show (an offered hold stays until it lapses, then goes to the next in line)',
      security: [{ bearer: [] }],
      params: ShowParams,
      response: { 200: WaitlistEntryResponse, ...errorResponses(400, 401, 404, 503) },
    },
  }, async (request) => {
    const me = requireUser(tokens, request);
    return leaveWaitlist(ctx, me.userId, request.params.showId);
  });

  app.get('/me/waitlist', {
    onRequest: guard(tokens),
    schema: {
      tags: ['booking'],
      summary: 'My waitlist entries, newest first',
      security: [{ bearer: [] }],
      response: { 200: Type.Object({ entries: Type.Array(WaitlistEntryResponse) }), ...errorResponses(401, 503) },
    },
  }, async (request) => ({ entries: await myWaitlist(ctx, requireUser(tokens, request).userId) }));
};
