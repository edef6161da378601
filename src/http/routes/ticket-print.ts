import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { printableTickets } from '../../app/ticket-print.js';
import type { HttpDeps } from '../deps.js';
import { guard, requireUser } from '../auth.js';
import { OrderParams, errorResponses } from '../schemas.js';
import { ticketsPdf } from '../tickets-pdf.js';

/** Dates on a printed ticket are in the server's time zone (the venue's, as deployed), named on the page. */
const timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone;

export const ticketPrintRoutes = (deps: HttpDeps): FastifyPluginAsyncTypebox => async (app) => {
  const { ctx, tokens } = deps;

  app.get('/orders/:orderId/tickets.pdf', {
    onRequest: guard(tokens),
    schema: {
      tags: ['tickets'],
      summary: "An order's tickets as a PDF, one ticket a page with its QR code (owner or admin)",
      description: 'For printing or a phone: each page names the show, its date, the venue, the section, row and seat, the ticket code, and the QR code of the same signed payload as GET /tickets/{ticketId}. An order without tickets yet answers 409 ORDER_NOT_TICKETED.',
      security: [{ bearer: [] }],
      params: OrderParams,
      response: {
        200: { description: 'The tickets, one a page (A6)', content: { 'application/pdf': { schema: { type: 'string', format: 'binary' } } } },
        ...errorResponses(401, 404, 409),
      },
    },
  }, async (request, reply) => {
    const order = await printableTickets(ctx, requireUser(tokens, request).userId, request.params.orderId);
    return reply
      .type('application/pdf')
      .header('content-disposition', `attachment; filename="tickets-${order.orderId}.pdf"`)
      .header('cache-control', 'private, no-store')
      .send(ticketsPdf(order, timeZone, deps.ticketFont ?? null));
  });
};
