import { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { exportBargainOrders, exportFlashSaleOrders, exportOrders, exportTickets, exportWinners, type CsvExport } from '../../app/exports.js';
import { BargainParams } from '../bargain-schemas.js';
import { FlashSaleParams } from '../campaign-schemas.js';
import type { HttpDeps } from '../deps.js';
import { requireRole, roleGuard } from '../auth.js';
import { PoolParams } from '../code-pool-schemas.js';
import { ShowParams, errorResponses } from '../schemas.js';

const csvResponse = (description: string) => ({
  200: {
    description,
    content: { 'text/csv': { schema: Type.String({ description: 'RFC 4180 CSV, UTF-8 with a byte-order mark, a header row; formula-like fields start with an apostrophe' }) } },
  },
  ...errorResponses(400, 401, 403, 404),
});

/**
 * The CSV exports (issue 23 item 5), for organizers (ADMIN): streamed a page at a time from the
 * store (Readable.from waits for the socket to drain before reading the next page), so memory
 * stays flat whatever the number of rows.
 */
export const exportRoutes = (deps: HttpDeps): FastifyPluginAsyncTypebox => async (app) => {
  const { ctx, tokens } = deps;
  const send = (csv: CsvExport, reply: import('fastify').FastifyReply) =>
    reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="${csv.filename}"`)
      .header('cache-control', 'no-store')
      .send(Readable.from(csv.chunks));

  app.get('/admin/shows/:showId/orders.csv', {
    onRequest: roleGuard(deps, ['ADMIN']),
    schema: {
      tags: ['admin', 'exports'], summary: "A show's orders as CSV (orderId, username, status, amountCents, paymentId, createdAt, updatedAt, contact, discount, grossCents, refundedCents, netCents)",
      security: [{ bearer: [] }], params: ShowParams, response: csvResponse('the orders, oldest first'),
    },
  }, async (request, reply) => {
    requireRole(tokens, request, ['ADMIN']);
    return send(await exportOrders(ctx, request.params.showId), reply);
  });

  app.get('/admin/shows/:showId/tickets.csv', {
    onRequest: roleGuard(deps, ['ADMIN']),
    schema: {
      tags: ['admin', 'exports'], summary: "A show's tickets as CSV (ticketId, orderId, username, code, sectionId, seatId, status, issuedAt, usedAt)",
      security: [{ bearer: [] }], params: ShowParams, response: csvResponse('the tickets, in the order they were issued'),
    },
  }, async (request, reply) => {
    requireRole(tokens, request, ['ADMIN']);
    return send(await exportTickets(ctx, request.params.showId), reply);
  });

  app.get('/admin/code-pools/:poolId/winners.csv', {
    onRequest: roleGuard(deps, ['ADMIN']),
    schema: {
      tags: ['admin', 'exports', 'code pools'], summary: "A code pool's winners as CSV (username, code, grabbedAt)",
      security: [{ bearer: [] }], params: PoolParams, response: csvResponse('who got which code, in the order they grabbed'),
    },
  }, async (request, reply) => {
    requireRole(tokens, request, ['ADMIN']);
    return send(await exportWinners(ctx, request.params.poolId), reply);
  });

  app.get('/admin/flash-sales/:flashSaleId/orders.csv', {
    onRequest: roleGuard(deps, ['ADMIN']),
    schema: {
      tags: ['admin', 'exports'], summary: "A flash sale's orders as CSV (orderId, username, status, amountCents, paymentId, createdAt, updatedAt, contact, discount, grossCents, refundedCents, netCents)",
      security: [{ bearer: [] }], params: FlashSaleParams, response: csvResponse('the orders, oldest first'),
    },
  }, async (request, reply) => {
    requireRole(tokens, request, ['ADMIN']);
    return send(await exportFlashSaleOrders(ctx, request.params.flashSaleId), reply);
  });

  app.get('/admin/bargains/:bargainId/orders.csv', {
    onRequest: roleGuard(deps, ['ADMIN']),
    schema: {
      tags: ['admin', 'exports'], summary: "A bargain's bargain orders as CSV (bargainOrderId, username, currentPriceCents, cuts, orderId, orderStatus, createdAt)",
      security: [{ bearer: [] }], params: BargainParams, response: csvResponse('the bargain orders, oldest first'),
    },
  }, async (request, reply) => {
    requireRole(tokens, request, ['ADMIN']);
    return send(await exportBargainOrders(ctx, request.params.bargainId), reply);
  });
};
