import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { createBargain, cutBargain, getBargain, getBargainOrder, placeBargainOrder, startBargain } from '../../app/bargains.js';
import { limits } from '../../domain/index.js';
import { admissionTokenOf } from '../admission.js';
import type { HttpDeps } from '../deps.js';
import { buyerGate } from '../buyer-gate.js';
import { guard, requireRole, requireUser, roleGuard } from '../auth.js';
import { HttpError } from '../http-error.js';
import {
  BargainOrderParams, BargainOrderResponse, BargainParams, BargainResponse, CutResponse, NewBargainBody, StartedBargainResponse,
} from '../bargain-schemas.js';
import { OrderHeaders, OrderResponse, errorResponses } from '../schemas.js';

const idempotencyKeyPattern = /^[A-Za-z0-9._:-]+$/;

/** Bargains (issue 23 item 4, seed 001 砍价): create, start, cut, see, order. */
export const bargainRoutes = (deps: HttpDeps): FastifyPluginAsyncTypebox => async (app) => {
  const { ctx, tokens } = deps;

  app.post('/admin/bargains', {
    onRequest: roleGuard(deps, ['ADMIN']),
    schema: {
      tags: ['admin'],
      summary: 'Create a bargain (seed 001 砍价): goods, an original price, a floor, the range of a friend\'s random cut, the cuts needed, stock, a window',
      security: [{ bearer: [] }],
      body: NewBargainBody,
      response: { 201: Type.Object({ bargainId: Type.String() }), ...errorResponses(400, 401, 403, 422, 503) },
    },
  }, async (request, reply) => {
    const actor = requireRole(tokens, request, ['ADMIN']);
    const body = request.body;
    const created = await createBargain(ctx, { ...body, saleStartsAt: Date.parse(body.saleStartsAt), saleEndsAt: Date.parse(body.saleEndsAt) }, actor);
    return reply.status(201).send(created);
  });

  app.get('/bargains/:bargainId', {
    schema: {
      tags: ['catalog'],
      summary: 'A bargain with its rules, what is left and its countdowns',
      params: BargainParams,
      response: { 200: BargainResponse, ...errorResponses(400, 404, 503) },
    },
  }, async (request) => getBargain(ctx, request.params.bargainId));

  app.post('/bargains/:bargainId/start', {
    onRequest: [guard(tokens), buyerGate(deps, 'campaign-order')],
    schema: {
      tags: ['booking'],
      summary: 'Start my bargain order at the original price (201); started already: the same one (200)',
      description: 'Refusals: 404 ACTIVITY_NOT_FOUND, 409 ACTIVITY_OFFLINE, 422 SALE_NOT_OPEN.',
      security: [{ bearer: [] }],
      params: BargainParams,
      response: { 200: StartedBargainResponse, 201: StartedBargainResponse, ...errorResponses(400, 401, 403, 404, 409, 422, 429, 503) },
    },
  }, async (request, reply) => {
    const me = requireUser(tokens, request);
    const { created, started } = await startBargain(ctx, me.userId, request.params.bargainId);
    return reply.status(created ? 201 : 200).send(started);
  });

  app.get('/bargain-orders/:bargainOrderId', {
    schema: {
      tags: ['catalog'],
      summary: 'A bargain order: its price, progress to the floor and every cut (helper, amount, time); with a bearer token, whether it is yours and whether you cut it',
      params: BargainOrderParams,
      response: { 200: BargainOrderResponse, ...errorResponses(400, 404, 503) },
    },
  }, async (request) => {
    // Anonymous callers are welcome (the share page): a token only adds `mine` and `cutByMe`.
    const viewer = tokens.principal(request.headers.authorization);
    return getBargainOrder(ctx, request.params.bargainOrderId, viewer?.userId ?? null);
  });

  app.post('/bargain-orders/:bargainOrderId/cuts', {
    onRequest: [guard(tokens), buyerGate(deps, 'cut')],
    schema: {
      tags: ['booking'],
      summary: 'Cut a friend\'s bargain order once by a random amount in [cutMinCents, cutMaxCents], never below the floor',
      description: 'Refusals: 409 ALREADY_CUT (one cut per helper), 409 CANNOT_CUT_OWN, 409 FLOOR_REACHED, 409 BARGAIN_CLOSED (ordered), 409 ACTIVITY_OFFLINE, 422 SALE_NOT_OPEN (lapsed), 404 BARGAIN_ORDER_NOT_FOUND.',
      security: [{ bearer: [] }],
      params: BargainOrderParams,
      response: { 201: CutResponse, ...errorResponses(400, 401, 403, 404, 409, 422, 429, 503) },
    },
  }, async (request, reply) => {
    const me = requireUser(tokens, request);
    return reply.status(201).send(await cutBargain(ctx, me.userId, request.params.bargainOrderId));
  });

  app.post('/bargain-orders/:bargainOrderId/order', {
    onRequest: [guard(tokens), buyerGate(deps, 'campaign-order')],
    schema: {
      tags: ['booking'],
      summary: 'Order my bargain at the price reached (X-Idempotency-Key required): one unit and an order awaiting payment in one step',
      description: 'Allowed once the floor is reached or cuts >= minCuts (409 BARGAIN_NOT_READY before); 409 SOLD_OUT; one order per bargain order (ordering again answers that order). An unpaid order lapses at expiresAt and its unit goes back.',
      security: [{ bearer: [] }],
      params: BargainOrderParams,
      headers: OrderHeaders,
      response: {
        201: Type.Object({ ...OrderResponse.properties, expiresAt: Type.Union([Type.String(), Type.Null()], { description: 'While unpaid: when the order lapses and its unit goes back' }) }, {
          description: 'The order (also when replayed)',
          headers: { 'idempotent-replayed': { type: 'string', enum: ['true'], description: 'Present when this answers an earlier request' } },
        }),
        ...errorResponses(400, 401, 403, 404, 409, 422, 429, 502, 503),
      },
    },
  }, async (request, reply) => {
    const me = requireUser(tokens, request);
    const key = request.headers['x-idempotency-key'];
    if (key === undefined || key.length === 0 || key.length > limits.idempotencyKeyLengthMax || !idempotencyKeyPattern.test(key)) {
      throw new HttpError('VALIDATION_FAILED', `X-Idempotency-Key is required: 1-${limits.idempotencyKeyLengthMax} characters of A-Z a-z 0-9 . _ : -`);
    }
    const result = await placeBargainOrder(ctx, { userId: me.userId, bargainOrderId: request.params.bargainOrderId, idempotencyKey: key, admissionToken: admissionTokenOf(request) });
    if (result.replayed) void reply.header('idempotent-replayed', 'true');
    return reply.status(201).send(result.order);
  });
};
