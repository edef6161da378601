import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { saleStats } from '../../app/sale-stats.js';
import type { HttpDeps } from '../deps.js';
import { roleGuard } from '../auth.js';
import { ShowParams, errorResponses } from '../schemas.js';

const SaleStatsResponse = Type.Object({
  showId: Type.String(),
  version: Type.Integer({ description: 'seat map version these figures are from' }),
  capacity: Type.Integer(),
  sold: Type.Integer(),
  held: Type.Integer(),
  available: Type.Integer(),
  refundPending: Type.Integer(),
  moneyTakenCents: Type.Integer({ description: 'price of every seat sold, integer cents' }),
  holdsPerMinute: Type.Integer({ description: 'seats put on hold in the last minute' }),
});

export const organizerRoutes = (deps: HttpDeps): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/admin/shows/:showId/stats', {
    onRequest: roleGuard(deps, ['ADMIN']),
    schema: {
      tags: ['admin'],
      summary: 'Live sale figures of a show (from memory): sold, held, available, holds per minute, money taken',
      security: [{ bearer: [] }],
      params: ShowParams,
      response: { 200: SaleStatsResponse, ...errorResponses(401, 403, 404) },
    },
  }, async (request) => saleStats(deps.ctx, request.params.showId));
};
