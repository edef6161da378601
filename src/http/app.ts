import { randomUUID } from 'node:crypto';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { LogController, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { AppError } from '../app/errors.js';
import { StoreBusyError } from '../app/errors.js';
import { limits } from '../domain/index.js';
import { AllowedMethods } from './allowed-methods.js';
import { respondToClientError } from './client-errors.js';
import { defaultRequestTimeoutMs, type HttpDeps } from './deps.js';
import { errorStatus, type ErrorCode } from './error-registry.js';
import { HttpError } from './http-error.js';
import { defaultLoadShedding, installLoadShedding } from './load-shedding.js';
import { swaggerOptions } from './openapi.js';
import { ErrorBody } from './schemas.js';
import { accountRoutes } from './routes/accounts.js';
import { bookingRoutes } from './routes/booking.js';
import { campaignRoutes } from './routes/campaigns.js';
import { waitlistRoutes } from './routes/waitlist.js';
import { exchangeRoutes } from './routes/exchanges.js';
import { catalogRoutes } from './routes/catalog.js';
import { operationsRoutes } from './routes/operations.js';
import { paymentRoutes } from './routes/payments.js';
import { stripeWebhookRoutes } from './routes/stripe-webhook.js';
import { discountRoutes } from './routes/discounts.js';
import { ticketRoutes } from './routes/tickets.js';
import { ticketPrintRoutes } from './routes/ticket-print.js';
import { liveRoutes } from './routes/live.js';
import { organizerRoutes } from './routes/organizer.js';
import { doorRoutes } from './routes/door.js';
import { codePoolRoutes } from './routes/code-pools.js';
import { bargainRoutes } from './routes/bargains.js';
import { exportRoutes } from './routes/exports.js';
import { webhookRoutes } from './routes/webhooks.js';
import { notificationRoutes } from './routes/notifications.js';
import { blocklistRoutes } from './routes/blocklist.js';
import { sharedSchemaCompilers } from './schema-compilers.js';
import { installStrictBodies } from './strict-body.js';
import { waitingRoomRoutes } from './routes/waiting-rooms.js';
import { serveWeb } from './web.js';

export type HttpApp = FastifyInstance;

const requestIdPattern = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * One compact line per request instead of Fastify's two: in a rush, logs are work on the hot path.
 * A read that succeeded (GET or HEAD answered 2xx or 304: seat maps, availability, revalidations,
 * health checks, tens of thousands a second in an onsale) is logged at debug, where it costs
 * nothing unless asked for; every write, refusal and failure is logged at info or above. The
 * line was a third of a 304's cost (bench).
 */
const debugEnabled = (level: string): boolean => level === 'debug' || level === 'trace';

class OneLinePerRequest extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null, request: FastifyRequest, reply: FastifyReply): void {
    const quietRead = (request.method === 'GET' || request.method === 'HEAD') && reply.statusCode < 400 && (error === null || error === undefined);
    if (quietRead && !debugEnabled(reply.log.level)) return;
    const line = { method: request.method, url: request.url, statusCode: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10 };
    if (quietRead) reply.log.debug(line, 'request');
    else if (error === null || error === undefined) reply.log.info(line, 'request');
    else reply.log.error({ ...line, err: error }, 'request failed');
  }
}

/** Builds the HTTP API without listening, so tests can `inject()` requests with no socket. */
export async function buildHttpApp(deps: HttpDeps): Promise<FastifyInstance> {
  const requestTimeoutMs = deps.requestTimeoutMs ?? defaultRequestTimeoutMs;
  const app = Fastify({
    logger: deps.logger ?? false,
    logController: new OneLinePerRequest(),
    bodyLimit: deps.bodyLimitBytes,
    // Idle socket bound: a socket silent this long is dropped. Never below 30 s, so a handler
    // waiting on the payment provider (bounded at 15 s) keeps its socket whatever the request bound.
    connectionTimeout: Math.max(requestTimeoutMs, 30_000),
    // Whole-request bound (headers and body): a client that trickles a body is cut after this long.
    requestTimeout: requestTimeoutMs,
    keepAliveTimeout: 10_000,
    http: {
      headersTimeout: requestTimeoutMs,
      // Node enforces the two bounds above only when it sweeps its connections, every 30 s by
      // default, which let a slow body live up to a minute past the bound; sweep often enough that
      // the configured bound holds within a second.
      connectionsCheckingInterval: Math.min(1_000, Math.max(100, Math.floor(requestTimeoutMs / 4))),
    },
    clientErrorHandler: respondToClientError,
    // The router's own refusals (a malformed URL) come before any route or hook: answered here.
    frameworkErrors: (error, request, reply) => {
      const { status, body } = toErrorResponse(error.code === 'FST_ERR_BAD_URL' ? new HttpError('BAD_REQUEST', 'the URL is not valid (malformed percent-encoding)') : error);
      const text = JSON.stringify(body);
      request.log.info({ method: request.method, url: request.url, statusCode: status, code: body.code }, 'request refused by the router');
      reply.raw.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), 'x-request-id': request.id }).end(text);
    },
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && requestIdPattern.test(given) ? given : randomUUID();
    },
    // None by default: request.ip is the socket's address, so a forged X-Forwarded-For changes
    // nothing. Only the listed proxies' header is believed (TICKETRUSH_TRUST_PROXY).
    trustProxy: deps.trustProxy !== undefined && deps.trustProxy.length > 0 ? [...deps.trustProxy] : false,
    ajv: { customOptions: { removeAdditional: false, coerceTypes: 'array', useDefaults: true, allErrors: false } },
    // Route validators and serializers compiled once per process, not once per app built.
    schemaController: sharedSchemaCompilers,
  }).withTypeProvider<TypeBoxTypeProvider>();

  const allowedMethods = new AllowedMethods();
  app.addHook('onRoute', (route) => allowedMethods.add(route.url, route.method));

  // Before any route is registered: the bound learns each route's class as it is added.
  installLoadShedding(app, deps.loadShedding ?? defaultLoadShedding);
  // Bodies strictly typed; querystrings and params keep the validator's coercion (issue 33).
  installStrictBodies(app);

  app.addSchema(ErrorBody);
  let webServed = false;
  // JSON only: anything else is a clear 415 rather than a string that fails validation.
  app.removeContentTypeParser('text/plain');
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id);
    if (reply.statusCode !== 304) return done(null, payload);
    // Whatever a handler passed, a 304 has no body and so no body framing (RFC 9110 §15.4.5).
    reply.removeHeader('content-type').removeHeader('content-length');
    done(null, null);
  });

  app.setErrorHandler((error, request, reply) => {
    const { status, body } = toErrorResponse(error);
    // A busy store is an expected answer under contention, not a failure to log as one.
    if (body.code === 'BUSY') void reply.header('retry-after', String(limits.busyRetryAfterSeconds));
    else if (body.code === 'RATE_LIMITED' && typeof body.details?.retryAfterSeconds === 'number') void reply.header('retry-after', String(body.details.retryAfterSeconds));
    else if (status >= 500) request.log.error({ err: error }, 'request failed');
    void reply.status(status).send(body);
  });
  app.setNotFoundHandler((request, reply) => {
    // Client-side routes of the web front end (a page reload on /shows/x) get its index page.
    if (webServed && isPageRequest(request)) return reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').sendFile('index.html');
    const path = request.url.split('?')[0] ?? '';
    const allowed = allowedMethods.forPath(path);
    if (allowed.length > 0 && !allowed.includes(request.method)) {
      return reply.status(405).header('allow', allowed.join(', ')).send({ code: 'METHOD_NOT_ALLOWED', message: `${request.method} is not allowed on ${path}; use ${allowed.join(', ')}` });
    }
    return reply.status(404).send({ code: 'ROUTE_NOT_FOUND', message: `no route for ${request.method} ${path}` });
  });

  await app.register(swagger, swaggerOptions);
  await app.register(swaggerUi, { routePrefix: '/docs' });

  await app.register(operationsRoutes(deps));
  await app.register(accountRoutes(deps), { prefix: '/api/v1' });
  await app.register(catalogRoutes(deps), { prefix: '/api/v1' });
  await app.register(bookingRoutes(deps), { prefix: '/api/v1' });
  await app.register(paymentRoutes(deps), { prefix: '/api/v1' });
  await app.register(stripeWebhookRoutes(deps), { prefix: '/api/v1' });
  await app.register(discountRoutes(deps), { prefix: '/api/v1' });
  await app.register(ticketRoutes(deps), { prefix: '/api/v1' });
  await app.register(ticketPrintRoutes(deps), { prefix: '/api/v1' });
  await app.register(liveRoutes(deps), { prefix: '/api/v1' });
  await app.register(organizerRoutes(deps), { prefix: '/api/v1' });
  await app.register(doorRoutes(deps), { prefix: '/api/v1' });
  await app.register(codePoolRoutes(deps), { prefix: '/api/v1' });
  await app.register(bargainRoutes(deps), { prefix: '/api/v1' });
  await app.register(exportRoutes(deps), { prefix: '/api/v1' });
  await app.register(webhookRoutes(deps), { prefix: '/api/v1' });
  await app.register(notificationRoutes(deps), { prefix: '/api/v1' });
  await app.register(campaignRoutes(deps), { prefix: '/api/v1' });
  await app.register(blocklistRoutes(deps), { prefix: '/api/v1' });
  await app.register(waitlistRoutes(deps), { prefix: '/api/v1' });
  await app.register(exchangeRoutes(deps), { prefix: '/api/v1' });
  await app.register(waitingRoomRoutes(deps), { prefix: '/api/v1' });
  webServed = await serveWeb(app, deps.webRoot ?? null);
  return app;
}

interface ErrorResponse {
  readonly status: number;
  readonly body: { code: string; message: string; details?: Readonly<Record<string, unknown>> };
}

function response(code: ErrorCode, message: string, details?: Readonly<Record<string, unknown>>): ErrorResponse {
  return { status: errorStatus[code], body: details === undefined ? { code, message } : { code, message, details } };
}

/** Framework errors by their Fastify code; anything else with a 4xx status is a plain BAD_REQUEST. */
const frameworkCodes: Readonly<Record<string, ErrorCode>> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'BAD_REQUEST',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'INVALID_JSON',
  FST_ERR_CTP_INVALID_JSON_BODY: 'INVALID_JSON',
};

export function toErrorResponse(error: unknown): ErrorResponse {
  if (error instanceof AppError || error instanceof HttpError) return response(error.code, error.message, error.details);
  if (error instanceof StoreBusyError) return response('BUSY', 'the store is busy with other buyers; try again shortly', { retryAfterSeconds: limits.busyRetryAfterSeconds });
  const fastifyError = error as Partial<FastifyError>;
  if (fastifyError.validation !== undefined) {
    return response('VALIDATION_FAILED', fastifyError.message ?? 'invalid request', { context: fastifyError.validationContext });
  }
  const mapped = fastifyError.code === undefined ? undefined : frameworkCodes[fastifyError.code];
  if (mapped !== undefined) return response(mapped, fastifyError.message ?? mapped);
  if (error instanceof SyntaxError) return response('INVALID_JSON', 'the body is not valid JSON');
  const status = fastifyError.statusCode;
  if (status !== undefined && status >= 400 && status < 500) return response('BAD_REQUEST', fastifyError.message ?? 'bad request');
  return response('INTERNAL_ERROR', 'something went wrong on our side');
}

/** A browser asking for a page: GET, wants HTML, and not one of the API's own paths. */
function isPageRequest(request: FastifyRequest): boolean {
  const path = request.url.split('?')[0] ?? '';
  return request.method === 'GET' && (request.headers.accept ?? '').includes('text/html') && !/^\/(api|docs|metrics|healthz|readyz)(\/|$)/.test(path);
}
