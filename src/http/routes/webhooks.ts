import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { createWebhook, deleteWebhook, listDeliveries, listWebhooks, webhookEventTypes } from '../../app/webhooks.js';
import { webhookUrlLengthMax } from '../../domain/index.js';

import type { HttpDeps } from '../deps.js';
import { requireRole, roleGuard } from '../auth.js';
import { PageQuery, errorResponses } from '../schemas.js';

const eventNames = webhookEventTypes.join(', ');

// The URL's own limit (2 KB) is checked by the application, to answer WEBHOOK_URL_TOO_LONG; the
// schema's bound only keeps an absurd body from being parsed as a URL at all.
const NewWebhookBody = Type.Object({
  url: Type.String({ minLength: 1, maxLength: webhookUrlLengthMax * 4, description: `http(s) URL of the receiver, at most ${webhookUrlLengthMax} characters; not this server itself` }),
  events: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { minItems: 1, maxItems: 32, description: `event types to receive: ${eventNames}` }),
}, { additionalProperties: false });

const WebhookParams = Type.Object({ webhookId: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$', description: 'webhook id' }) });

const EventType = Type.String({ description: `one of ${eventNames}` });
const Instant = Type.String({ description: 'ISO 8601' });
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

const WebhookView = Type.Object({
  webhookId: Type.String(),
  url: Type.String(),
  events: Type.Array(EventType),
  status: Type.Union([Type.Literal('ACTIVE'), Type.Literal('DISABLED')], { description: 'DISABLED: the receiver answered 410 Gone; nothing more is sent' }),
  disabledReason: Nullable(Type.String()),
  createdAt: Instant,
});

const Attempt = Type.Object({
  attempt: Type.Integer({ minimum: 1 }),
  at: Instant,
  statusCode: Nullable(Type.Integer({ description: "the receiver's HTTP status; null: no answer (timeout, refused)" })),
  durationMs: Type.Integer(),
  error: Nullable(Type.String()),
  outcome: Type.Union([Type.Literal('DELIVERED'), Type.Literal('RETRY'), Type.Literal('FAILED'), Type.Literal('GONE')]),
  nextAttemptAt: Nullable(Instant),
});

const DeliveryList = Type.Object({
  deliveries: Type.Array(Type.Object({
    deliveryId: Type.String(),
    eventId: Type.String({ description: 'the X-TicketRush-Event-Id header and the body\'s id' }),
    type: EventType,
    status: Type.Union([Type.Literal('PENDING'), Type.Literal('DELIVERED'), Type.Literal('FAILED'), Type.Literal('DISABLED')]),
    attempts: Type.Array(Attempt, { description: 'every attempt, oldest first' }),
    nextAttemptAt: Nullable(Instant),
    lastStatusCode: Nullable(Type.Integer()),
    lastDurationMs: Nullable(Type.Integer()),
    lastError: Nullable(Type.String()),
    createdAt: Instant,
    updatedAt: Instant,
  })),
  more: Type.Boolean({ description: 'another page follows' }),
});

export const webhookRoutes = (deps: HttpDeps): FastifyPluginAsyncTypebox => async (app) => {
  const { ctx, tokens, webhooks } = deps;

  app.post('/admin/webhooks', {
    onRequest: roleGuard(deps, ['ADMIN']),
    schema: {
      tags: ['admin'],
      summary: 'Register a webhook receiver for some event types; the answer carries its signing secret, shown only this once',
      security: [{ bearer: [] }],
      body: NewWebhookBody,
      response: {
        201: Type.Object({ webhookId: Type.String(), secret: Type.String({ description: 'HMAC-SHA256 key of X-TicketRush-Signature; not shown again' }) }),
        ...errorResponses(400, 401, 403, 409),
      },
    },
  }, async (request, reply) => {
    const actor = requireRole(tokens, request, ['ADMIN']);
    return reply.status(201).send(await createWebhook(ctx, webhooks, request.body, actor));
  });

  app.get('/admin/webhooks', {
    onRequest: roleGuard(deps, ['ADMIN']),
    schema: {
      tags: ['admin'],
      summary: 'Webhook receivers, oldest first, paged (no secrets)',
      security: [{ bearer: [] }],
      querystring: PageQuery,
      response: { 200: Type.Object({ webhooks: Type.Array(WebhookView), more: Type.Boolean() }), ...errorResponses(400, 401, 403) },
    },
  }, async (request) => {
    requireRole(tokens, request, ['ADMIN']);
    return listWebhooks(ctx, request.query);
  });

  app.delete('/admin/webhooks/:webhookId', {
    onRequest: roleGuard(deps, ['ADMIN']),
    schema: {
      tags: ['admin'],
      summary: 'Remove a webhook receiver with its deliveries; nothing more is sent to it',
      security: [{ bearer: [] }],
      params: WebhookParams,
      response: { 204: Type.Null({ description: 'removed' }), ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => {
    const actor = requireRole(tokens, request, ['ADMIN']);
    await deleteWebhook(ctx, request.params.webhookId, actor);
    return reply.status(204).send(null);
  });

  app.get('/admin/webhooks/:webhookId/deliveries', {
    onRequest: roleGuard(deps, ['ADMIN']),
    schema: {
      tags: ['admin'],
      summary: "A webhook's deliveries, newest first, paged, each with every attempt (status, duration, time, next retry)",
      security: [{ bearer: [] }],
      params: WebhookParams,
      querystring: PageQuery,
      response: { 200: DeliveryList, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request) => {
    requireRole(tokens, request, ['ADMIN']);
    return listDeliveries(ctx, request.params.webhookId, request.query);
  });
};
