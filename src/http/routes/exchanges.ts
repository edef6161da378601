import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { exchangeOrder } from '../../app/exchanges.js';
import type { HoldRequest } from '../../app/holds.js';
import type { HttpDeps } from '../deps.js';
import { admissionHeaderDoc, admissionTokenOf } from '../admission.js';
import { guard, requireUser } from '../auth.js';
import { buyerGate } from '../buyer-gate.js';
import { ExchangeBody, ExchangeResponse } from '../exchange-schemas.js';
import { OrderParams, errorResponses } from '../schemas.js';

export const exchangeRoutes = (deps: HttpDeps): FastifyPluginAsyncTypebox => async (app) => {
  const { ctx, tokens } = deps;

  app.post('/orders/:orderId/exchange', {
    // It takes seats like a hold: the blocklist and the hold limit guard it as they guard a hold.
    onRequest: [guard(tokens), buyerGate(deps, 'hold')],
    schema: {
      tags: ['booking'],
      summary: 'Exchange (改签) a ticketed order for other seats, same show or another: all or nothing',
      description: [
        'The new seats are held first (the ordinary hold claim; 409 SEAT_UNAVAILABLE / NOT_ENOUGH_SEATS as for a hold), then one',
        'transaction revokes the old tickets (INVALID, on the door\'s revocation list), frees their seats, and issues the new tickets',
        'on a new TICKETED order. The buyer may exchange until the show\'s exchangeUntilHoursBefore (else 409 EXCHANGE_NOT_ALLOWED);',
        'an admin (organizer) any time. Someone else\'s order is 404 ORDER_NOT_FOUND; an order not TICKETED (or with a used ticket)',
        '409 ORDER_NOT_TICKETED. Only even swaps: a different list price (the new seats against the order\'s valid tickets) is 409 EXCHANGE_PRICE_DIFFERS; the new order carries the paid value. If the new hold lapses before the',
        'swap, 409 HOLD_EXPIRED and nothing changed: the buyer keeps the old tickets. 403 BLOCKED for a blocked buyer or address;',
        '429 RATE_LIMITED as for holds.', admissionHeaderDoc,
      ].join(' '),
      security: [{ bearer: [] }],
      params: OrderParams,
      body: ExchangeBody,
      response: { 201: ExchangeResponse, ...errorResponses(400, 401, 403, 404, 409, 422, 429, 503) },
    },
  }, async (request, reply) => {
    const me = requireUser(tokens, request);
    const body = request.body;
    const holdRequest: HoldRequest = 'seatIds' in body
      ? { kind: 'seats', seatIds: body.seatIds }
      : { kind: 'best', quantity: body.quantity, adjacent: false, section: body.section };
    const result = await exchangeOrder(ctx, { userId: me.userId, orderId: request.params.orderId, showId: body.showId ?? null, request: holdRequest, admissionToken: admissionTokenOf(request) });
    return reply.status(201).send(result);
  });
};
