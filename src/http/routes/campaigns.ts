import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { changeActivity, getActivity, listActivities } from '../../app/activities.js';
import { createFlashSale, getFlashSale, placeFlashOrder } from '../../app/flash-sales.js';
import { limits } from '../../domain/index.js';
import { admissionTokenOf } from '../admission.js';
import type { HttpDeps } from '../deps.js';
import { buyerGate } from '../buyer-gate.js';
import { guard, requireRole, requireUser, roleGuard } from '../auth.js';
import { HttpError } from '../http-error.js';
import {
  ActivitiesQuery, ActivityChangeBody, ActivityDetailResponse, ActivityParams, ActivityResponse, FlashOrderBody, FlashSaleParams, FlashSaleResponse, NewFlashSaleBody,
} from '../campaign-schemas.js';
import { OrderHeaders, OrderResponse, errorResponses } from '../schemas.js';

const idempotencyKeyPattern = /^[A-Za-z0-9._:-]+$/;

/** The activity catalog and flash sales (issue 23). */
export const campaignRoutes = (deps: HttpDeps): FastifyPluginAsyncTypebox => async (app) => {
  const { ctx, tokens } = deps;

  app.get('/activities', {
    schema: {
      tags: ['catalog'],
      summary: 'Shows and campaigns together: on sale first (closing soonest), then upcoming (opening soonest), then with include=ended the ended and offline ones',
      querystring: ActivitiesQuery,
      response: { 200: Type.Object({ activities: Type.Array(ActivityResponse) }), ...errorResponses(400, 503) },
    },
  }, async (request) => ({
    activities: await listActivities(ctx, { limit: request.query.limit, offset: request.query.offset, includeEnded: request.query.include === 'ended' }),
  }));

  app.get('/activities/:activityId', {
    schema: {
      tags: ['catalog'],
      summary: 'One show or campaign with its countdowns; with a bearer token, whether the caller has taken part',
      params: ActivityParams,
      response: { 200: ActivityDetailResponse, ...errorResponses(400, 404, 503) },
    },
  }, async (request) => {
    // Anonymous callers are welcome: a token only adds `participated`.
    const viewer = tokens.principal(request.headers.authorization);
    return getActivity(ctx, request.params.activityId, viewer?.userId ?? null);
  });

  app.patch('/admin/activities/:activityId', {
    onRequest: roleGuard(deps, ['ADMIN']),
    schema: {
      tags: ['admin'],
      summary: 'Change a show or campaign after creation: title, description, picture, end of sale; take a campaign OFFLINE at once or put it back ON_SALE',
      description: 'A show follows the rules of PATCH /admin/shows/{showId} (409 CHANGE_NOT_ALLOWED where a change would break what was sold; a show has no offline state).',
      security: [{ bearer: [] }],
      params: ActivityParams,
      body: ActivityChangeBody,
      response: { 200: Type.Omit(ActivityDetailResponse, ['participated']), ...errorResponses(400, 401, 403, 404, 409, 422, 503) },
    },
  }, async (request) => {
    const actor = requireRole(tokens, request, ['ADMIN']);
    const { saleEndsAt, ...rest } = request.body;
    return changeActivity(ctx, request.params.activityId, { ...rest, ...(saleEndsAt === undefined ? {} : { saleEndsAt: Date.parse(saleEndsAt) }) }, actor);
  });

  app.post('/admin/flash-sales', {
    onRequest: roleGuard(deps, ['ADMIN']),
    schema: {
      tags: ['admin'],
      summary: 'Create a flash sale (seed 001 秒杀): items with a sale price, an original price and stock, a window, a per-buyer limit',
      security: [{ bearer: [] }],
      body: NewFlashSaleBody,
      response: { 201: Type.Object({ flashSaleId: Type.String() }), ...errorResponses(400, 401, 403, 422, 503) },
    },
  }, async (request, reply) => {
    const actor = requireRole(tokens, request, ['ADMIN']);
    const body = request.body;
    const created = await createFlashSale(ctx, { ...body, saleStartsAt: Date.parse(body.saleStartsAt), saleEndsAt: Date.parse(body.saleEndsAt) }, actor);
    return reply.status(201).send(created);
  });

  app.get('/flash-sales/:flashSaleId', {
    schema: {
      tags: ['catalog'],
      summary: 'A flash sale with its items, prices, what is left and its countdowns',
      params: FlashSaleParams,
      response: { 200: FlashSaleResponse, ...errorResponses(400, 404, 503) },
    },
  }, async (request) => getFlashSale(ctx, request.params.flashSaleId));

  app.post('/flash-sales/:flashSaleId/orders', {
    onRequest: [guard(tokens), buyerGate(deps, 'campaign-order')],
    schema: {
      tags: ['booking'],
      summary: 'Buy units of a flash-sale item: the units and an order awaiting payment in one step (X-Idempotency-Key required); a zero-price item is PAID at once',
      description: 'With a waiting room on: X-Admission-Token (403 ADMISSION_REQUIRED / ADMISSION_INVALID). Refusals: 409 SOLD_OUT, 409 PURCHASE_LIMIT_REACHED (maxPerUser counts units across your live orders of the sale), 422 SALE_NOT_OPEN, 409 ACTIVITY_OFFLINE. An unpaid order lapses at expiresAt and its units go back.',
      security: [{ bearer: [] }],
      params: FlashSaleParams,
      headers: OrderHeaders,
      body: FlashOrderBody,
      response: {
        201: Type.Object({ ...OrderResponse.properties, expiresAt: Type.Union([Type.String(), Type.Null()], { description: 'While unpaid: when the order lapses and its units go back' }) }, {
          description: 'The order (also when replayed for a retried key)',
          headers: { 'idempotent-replayed': { type: 'string', enum: ['true'], description: 'Present when this answers an earlier request with the same key' } },
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
    const result = await placeFlashOrder(ctx, { userId: me.userId, flashSaleId: request.params.flashSaleId, idempotencyKey: key, ...request.body, admissionToken: admissionTokenOf(request) });
    if (result.replayed) void reply.header('idempotent-replayed', 'true');
    return reply.status(201).send(result.order);
  });
};
