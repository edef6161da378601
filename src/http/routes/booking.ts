import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { extendHoldFor, holdSeats, listMyHolds, releaseHold, type HoldRequest } from '../../app/holds.js';
import { cancelOrder, createOrder, paymentDueAt } from '../../app/orders.js';
import { orderRefunds, requestOrderRefund } from '../../app/refunds.js';
import { getOrderWithTickets, listMyOrders } from '../../app/tickets.js';
import { holdTermsView, holdView } from '../../app/views.js';
import { admissionHeaderDoc, admissionTokenOf } from '../admission.js';
import { holdSeatsOnce } from '../../app/idempotent-holds.js';
import type { Hold } from '../../domain/index.js';
import { checkContact, limits } from '../../domain/index.js';
import { unwrap } from '../../app/errors.js';
import type { HttpDeps } from '../deps.js';
import { buyerGate } from '../buyer-gate.js';
import { guard, requireUser } from '../auth.js';
import { HttpError } from '../http-error.js';
import { countAnswers, holdResultOf } from '../outcome-counting.js';
import {
  ExtendHoldBody, HoldBody, HoldHeaders, HoldParams, HoldResponse, MyHoldResponse, MyHoldsQuery, OrderBody, OrderHeaders, OrderParams, OrderResponse, PageQuery, RefundBody, RefundResponse,
  ShowParams, TicketResponse, errorResponses,
} from '../schemas.js';

const idempotencyKeyPattern = /^[A-Za-z0-9._:-]+$/;

export const bookingRoutes = (deps: HttpDeps): FastifyPluginAsyncTypebox => async (app) => {
  const { ctx, tokens } = deps;
  /** A hold as every booking route answers it: with what the buyer needs to extend it. */
  const holdAnswer = (hold: Hold) => ({ ...holdView(hold), ...holdTermsView(hold, ctx.policy) });

  app.post('/shows/:showId/holds', {
    onRequest: [guard(tokens), buyerGate(deps, 'hold')],
    // Classed at the edge, so a refusal decided before the use case (sign-in, validation) and a
    // failure after it (a 5xx, BUSY, the request timeout) count too.
    onSend: async (_request, reply, payload) => {
      ctx.telemetry.holdResult(holdResultOf(reply.statusCode));
      return payload;
    },
    schema: {
      tags: ['booking'],
      summary: 'Hold specific seats, N best-available seats, or N places of a counted section, all or nothing, for a bounded time',
      description: admissionHeaderDoc,
      security: [{ bearer: [] }],
      params: ShowParams,
      headers: HoldHeaders,
      body: HoldBody,
      response: {
        201: Type.Object(HoldResponse.properties, {
          description: 'The hold (also when replayed for a retried X-Idempotency-Key)',
          headers: { 'idempotent-replayed': { type: 'string', enum: ['true'], description: 'Present when this answers an earlier request with the same key' } },
        }),
        ...errorResponses(400, 401, 403, 404, 409, 422, 429, 503),
      },
    },
  }, async (request, reply) => {
    const me = requireUser(tokens, request);
    const body = request.body;
    const holdRequest: HoldRequest = 'seatIds' in body
      ? { kind: 'seats', seatIds: body.seatIds }
      : {
        kind: 'best',
        quantity: body.quantity,
        adjacent: body.adjacent ?? true,
        ...(body.section === undefined ? {} : { section: body.section }),
        ...(body.near === undefined ? {} : { near: body.near }),
        ...(body.accessible === undefined ? {} : { accessible: body.accessible }),
      };
    const command = {
      userId: me.userId,
      showId: request.params.showId,
      request: holdRequest,
      gate: { path: 'hold' as const, admissionToken: admissionTokenOf(request) },
      ...(body.holdSeconds === undefined ? {} : { holdSeconds: body.holdSeconds }),
    };
    const key = request.headers['x-idempotency-key'];
    // Without a key the hot path is as before: one claim, no key record.
    if (key === undefined) {
      const placed = await holdSeats(ctx, command);
      return reply.status(201).send({ ...holdAnswer(placed.hold), adjacent: placed.adjacent });
    }
    const placed = await holdSeatsOnce(ctx, command, key);
    if (placed.replayed) void reply.header('idempotent-replayed', 'true');
    return reply.status(201).send({ ...holdAnswer(placed.hold), adjacent: placed.adjacent });
  });

  app.delete('/holds/:holdId', {
    onRequest: guard(tokens),
    schema: {
      tags: ['booking'],
      summary: 'Release a hold (owner only); an unpaid order on it is cancelled',
      security: [{ bearer: [] }],
      params: HoldParams,
      response: { 200: HoldResponse, ...errorResponses(401, 403, 404, 409) },
    },
  }, async (request) => {
    const me = requireUser(tokens, request);
    return holdAnswer(await releaseHold(ctx, me.userId, request.params.holdId));
  });

  app.post('/holds/:holdId/extend', {
    onRequest: guard(tokens),
    schema: {
      tags: ['booking'],
      summary: 'Give the buyer more time on an active hold, a bounded number of times, never past its total life cap',
      security: [{ bearer: [] }],
      params: HoldParams,
      body: ExtendHoldBody,
      response: { 200: HoldResponse, ...errorResponses(400, 401, 403, 404, 409, 422) },
    },
  }, async (request) => {
    const me = requireUser(tokens, request);
    const seconds = request.body?.seconds ?? ctx.policy.holdSecondsDefault;
    return holdAnswer(await extendHoldFor(ctx, me.userId, request.params.holdId, seconds));
  });

  app.post('/orders', {
    onRequest: [guard(tokens), buyerGate(deps, 'order')],
    onSend: countAnswers((outcome) => ctx.telemetry.orderAttempt(outcome), (reply) => (reply.getHeader('idempotent-replayed') === 'true' ? 'REPLAYED' : 'PENDING_PAY')),
    schema: {
      tags: ['booking'],
      summary: 'Turn an active hold into an order awaiting payment (X-Idempotency-Key required)',
      description: admissionHeaderDoc,
      security: [{ bearer: [] }],
      headers: OrderHeaders,
      body: OrderBody,
      response: {
        201: Type.Object(OrderResponse.properties, {
          description: 'The order (also when replayed for a retried key)',
          headers: { 'idempotent-replayed': { type: 'string', enum: ['true'], description: 'Present when this is the stored answer to an earlier request with the same key' } },
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
    const { discountCode, contact } = request.body;
    const result = await createOrder(ctx, {
      userId: me.userId, holdId: request.body.holdId, idempotencyKey: key, admissionToken: admissionTokenOf(request),
      ...(discountCode === undefined ? {} : { discountCode }),
      ...(contact === undefined ? {} : { contact: unwrap(checkContact(contact)) }),
    });
    if (result.replayed) void reply.header('idempotent-replayed', 'true');
    return reply.status(201).send(result.order);
  });

  app.get('/orders/:orderId', {
    onRequest: guard(tokens),
    schema: {
      tags: ['booking'],
      summary: 'An order with its tickets (owner or admin)',
      security: [{ bearer: [] }],
      params: OrderParams,
      response: {
        200: Type.Intersect([OrderResponse, Type.Object({
          tickets: Type.Array(TicketResponse),
          paymentDueAt: Type.Union([Type.String(), Type.Null()], { description: 'While the order is unpaid: when its hold expires and the order is cancelled with it' }),
        })]),
        ...errorResponses(401, 404),
      },
    },
  }, async (request) => {
    // Not the token's role: the stored one decides, read only when the order is someone else's.
    const order = await getOrderWithTickets(ctx, requireUser(tokens, request).userId, request.params.orderId);
    return { ...order, paymentDueAt: await paymentDueAt(ctx, order) };
  });

  app.post('/orders/:orderId/cancel', {
    onRequest: guard(tokens),
    schema: {
      tags: ['booking'],
      summary: 'Cancel my unpaid order (INIT or PENDING_PAY): its hold is released at once and the seats are free again',
      description: 'A paid order is 409 ORDER_ALREADY_PAID; one already cancelled or refunded 409 ORDER_NOT_CANCELLABLE; someone else\'s 404 ORDER_NOT_FOUND.',
      security: [{ bearer: [] }],
      params: OrderParams,
      response: { 200: OrderResponse, ...errorResponses(401, 404, 409, 503) },
    },
  }, async (request) => {
    const me = requireUser(tokens, request);
    return cancelOrder(ctx, me.userId, request.params.orderId);
  });

  app.post('/orders/:orderId/refund', {
    onRequest: guard(tokens),
    schema: {
      tags: ['booking'],
      summary: 'Refund an order, whole or chosen tickets (X-Idempotency-Key required): the tickets are revoked at once, the money follows',
      description: [
        'The buyer may refund until the show\'s refundUntilHoursBefore (else 409 REFUND_NOT_ALLOWED); an admin (organizer) any time.',
        'Someone else\'s order is 404 ORDER_NOT_FOUND. The tickets become INVALID at once (the door\'s revocation list) and their seats',
        'REFUND_PENDING; the provider is asked in the background under the refund\'s own key, then the seats are free again (REFUNDED)',
        'or, if it refuses, the tickets are valid again (REFUSED, with the reason). A used or already refunded ticket is 409',
        'TICKET_NOT_REFUNDABLE; an order whose whole refund is pending or done 409 ORDER_NOT_REFUNDABLE. The same key answers the same refund.',
      ].join(' '),
      security: [{ bearer: [] }],
      headers: OrderHeaders,
      params: OrderParams,
      body: Type.Union([RefundBody, Type.Null()]),
      response: {
        202: Type.Object(RefundResponse.properties, {
          description: 'The refund, PENDING until the provider answers (also when replayed for a retried key)',
          headers: { 'idempotent-replayed': { type: 'string', enum: ['true'], description: 'Present when this is the refund an earlier request with the same key made' } },
        }),
        ...errorResponses(400, 401, 404, 409, 503),
      },
    },
  }, async (request, reply) => {
    const me = requireUser(tokens, request);
    const key = request.headers['x-idempotency-key'];
    const ticketIds = request.body?.ticketIds ?? null;
    const result = await requestOrderRefund(ctx, { userId: me.userId, orderId: request.params.orderId, ticketIds, idempotencyKey: key });
    if (result.replayed) void reply.header('idempotent-replayed', 'true');
    return reply.status(202).send(result.refund);
  });

  app.get('/orders/:orderId/refunds', {
    onRequest: guard(tokens),
    schema: {
      tags: ['booking'],
      summary: 'An order\'s refunds, oldest first, and until when its buyer may refund (owner or admin)',
      security: [{ bearer: [] }],
      params: OrderParams,
      response: {
        200: Type.Object({
          refunds: Type.Array(RefundResponse),
          refundUntil: Type.Union([Type.String(), Type.Null()], { description: 'The buyer\'s deadline under the show\'s policy; null: no buyer refunds' }),
        }),
        ...errorResponses(401, 404),
      },
    },
  }, async (request) => orderRefunds(ctx, requireUser(tokens, request).userId, request.params.orderId));

  app.get('/me/holds', {
    onRequest: guard(tokens),
    schema: {
      tags: ['booking'],
      summary: 'My active holds that have not expired, soonest to expire first, each with its show and how far it can still be extended',
      security: [{ bearer: [] }],
      querystring: MyHoldsQuery,
      response: { 200: Type.Object({ holds: Type.Array(MyHoldResponse) }), ...errorResponses(401) },
    },
  }, async (request) => {
    const me = requireUser(tokens, request);
    return { holds: await listMyHolds(ctx, me.userId, request.query) };
  });

  app.get('/me/orders', {
    onRequest: guard(tokens),
    schema: {
      tags: ['booking'],
      summary: 'My orders, newest first',
      security: [{ bearer: [] }],
      querystring: PageQuery,
      response: { 200: Type.Object({ orders: Type.Array(OrderResponse) }), ...errorResponses(401) },
    },
  }, async (request) => {
    const me = requireUser(tokens, request);
    return { orders: await listMyOrders(ctx, me.userId, request.query) };
  });
};
