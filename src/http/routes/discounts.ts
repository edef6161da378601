import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { createDiscountCode, disableDiscountCode, listDiscountCodes } from '../../app/discounts.js';
import type { HttpDeps } from '../deps.js';
import { requireRole, roleGuard } from '../auth.js';
import { DiscountParams, DiscountResponse, NewDiscountBody } from '../discount-schemas.js';
import { PageQuery, errorResponses } from '../schemas.js';

/** An organizer's discount codes (issue 25 item 6). Buyers use them through POST /orders' discountCode. */
export const discountRoutes = (deps: HttpDeps): FastifyPluginAsyncTypebox => async (app) => {
  const { ctx, tokens } = deps;

  app.post('/admin/discounts', {
    onRequest: roleGuard(deps, ['ADMIN']),
    schema: {
      tags: ['admin'],
      summary: 'Create a discount code: percentOff or amountOffCents, a validity window, maxUses in all and perUserMax per buyer',
      security: [{ bearer: [] }],
      body: NewDiscountBody,
      response: { 201: DiscountResponse, ...errorResponses(400, 401, 403, 409, 422) },
    },
  }, async (request, reply) => {
    requireRole(tokens, request, ['ADMIN']);
    const b = request.body;
    const created = await createDiscountCode(ctx, {
      code: b.code, validFrom: Date.parse(b.validFrom), validUntil: Date.parse(b.validUntil), maxUses: b.maxUses, perUserMax: b.perUserMax,
      ...(b.percentOff === undefined ? {} : { percentOff: b.percentOff }),
      ...(b.amountOffCents === undefined ? {} : { amountOffCents: b.amountOffCents }),
      ...(b.showIds === undefined ? {} : { showIds: b.showIds }),
    });
    return reply.status(201).send(created);
  });

  app.get('/admin/discounts', {
    onRequest: roleGuard(deps, ['ADMIN']),
    schema: {
      tags: ['admin'],
      summary: 'The discount codes, newest first, with the uses held now',
      security: [{ bearer: [] }],
      querystring: PageQuery,
      response: { 200: Type.Object({ discounts: Type.Array(DiscountResponse) }), ...errorResponses(400, 401, 403) },
    },
  }, async (request) => {
    requireRole(tokens, request, ['ADMIN']);
    return { discounts: await listDiscountCodes(ctx, { limit: request.query.limit ?? 50, offset: request.query.offset ?? 0 }) };
  });

  app.post('/admin/discounts/:code/disable', {
    onRequest: roleGuard(deps, ['ADMIN']),
    schema: {
      tags: ['admin'],
      summary: 'Disable a discount code: no new order takes it (orders holding a use keep it)',
      security: [{ bearer: [] }],
      params: DiscountParams,
      response: { 200: DiscountResponse, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request) => {
    requireRole(tokens, request, ['ADMIN']);
    return disableDiscountCode(ctx, request.params.code);
  });
};
