import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { exchangeOrder } from '../../app/exchanges.js';
import { exchangeOrderOnce } from '../../app/idempotent-exchanges.js';
import type { HoldRequest } from '../../app/holds.js';
import type { HttpDeps } from '../deps.js';
import { admissionHeaderDoc, admissionTokenOf } from '../admission.js';
import { guard, requireUser } from '../auth.js';
import { buyerGate } from '../buyer-gate.js';
import { ExchangeBody, ExchangeResponse } from '../exchange-schemas.js';
import { ExchangeHeaders, OrderParams, errorResponses } from '../schemas.js';

export const exchangeRoutes = (deps: HttpDeps): FastifyPluginAsyncTypebox => async (app) => {
  const { ctx, tokens } = deps;

  app.post('/orders/:orderId/exchange', {
    // It takes seats like a hold: the blocklist and the hold limit guard it as they guard a hold.
    onRequest: [guard(tokens), buyerGate(deps, 'hold')],
    schema: {
      tags: ['booking'],
      summary: 'Exchange (改签) a ticketed order, or some of its tickets, for other seats, same show or another: all or nothing',
      description: [
        'The new seats are held first (the ordinary hold claim; 409 SEAT_UNAVAILABLE / NOT_ENOUGH_SEATS as for a hold), then one',
        'transaction revokes the old tickets (INVALID, on the door\'s revocation list), frees their seats, and issues the new tickets',
        'on a new TICKETED order. The buyer may exchange until the show\'s exchangeUntilHoursBefore (else 409 EXCHANGE_NOT_ALLOWED);',
        'an admin (organizer) any time. Someone else\'s order is 404 ORDER_NOT_FOUND; an order not TICKETED (or with a used ticket)',
        '409 ORDER_NOT_TICKETED. ticketIds gives up only those tickets (the others stay on the order); one that is not a valid ticket of the order is 409',
        'TICKET_NOT_EXCHANGEABLE. The new order carries the paid value of the tickets given up. Even and cheaper swaps: a cheaper one\'s list difference',
        '(never more than the value carried) goes back to the payment that brought the money in as a refund of the old order (refund in the answer,',
        'PENDING until the provider confirms it). Dearer seats answer 202: the exchange PENDING and the new order PENDING_PAY, its amountCents the difference,',
        'paid on its own payment (paymentId, checkoutUrl; sandbox-pay and the signed callback as for any order) before the new hold expires. The old tickets stay',
        'VALID until it is paid; its success swaps them (exchange COMPLETED, the new tickets carry the value carried plus the difference); a decline or a lapse',
        'cancels the new order and releases its hold (exchange ABANDONED, nothing else changed); a payment that comes when the old tickets changed meanwhile is refunded. If the new hold lapses before the',
        'swap, 409 HOLD_EXPIRED and nothing changed: the buyer keeps the old tickets. 403 BLOCKED for a blocked buyer or address;',
        '429 RATE_LIMITED as for holds. With X-Idempotency-Key a retry answers the first exchange again (idempotent-replayed: true)',
        'and takes nothing twice; the same key with another body is 422 IDEMPOTENCY_KEY_REUSED.', admissionHeaderDoc,
      ].join(' '),
      security: [{ bearer: [] }],
      headers: ExchangeHeaders,
      params: OrderParams,
      body: ExchangeBody,
      response: {
        201: Type.Object(ExchangeResponse.properties, {
          description: 'The exchange done: the new order (TICKETED) and its tickets; the old tickets are INVALID (also when replayed for a retried key)',
          headers: { 'idempotent-replayed': { type: 'string', enum: ['true'], description: 'Present when this is the exchange an earlier request with the same key made' } },
        }),
        202: Type.Object(ExchangeResponse.properties, {
          description: 'A dearer swap begun: the exchange PENDING, the new order PENDING_PAY for the difference (pay it as any order); no tickets yet, the old ones still VALID',
          headers: { 'idempotent-replayed': { type: 'string', enum: ['true'], description: 'Present when this is the exchange an earlier request with the same key began' } },
        }),
        ...errorResponses(400, 401, 403, 404, 409, 422, 429, 503),
      },
    },
  }, async (request, reply) => {
    const me = requireUser(tokens, request);
    const body = request.body;
    const holdRequest: HoldRequest = 'seatIds' in body
      ? { kind: 'seats', seatIds: body.seatIds }
      : { kind: 'best', quantity: body.quantity, adjacent: false, section: body.section };
    const command = {
      userId: me.userId, orderId: request.params.orderId, showId: body.showId ?? null, request: holdRequest, ticketIds: body.ticketIds ?? null, admissionToken: admissionTokenOf(request),
    };
    const key = request.headers['x-idempotency-key'];
    // Without a key, as before: one exchange per request.
    const statusOf = (r: { exchange: { status: string } }): 201 | 202 => (r.exchange.status === 'COMPLETED' ? 201 : 202);
    if (key === undefined) {
      const result = await exchangeOrder(ctx, command);
      return reply.status(statusOf(result)).send(result);
    }
    const keyed = await exchangeOrderOnce(ctx, command, key);
    if (keyed.replayed) void reply.header('idempotent-replayed', 'true');
    return reply.status(statusOf(keyed.result)).send(keyed.result);
  });
};
