import { randomUUID } from 'node:crypto';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { LogController, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { AppError } from '../app/errors.js';
import { StoreConflictError } from '../ports/store.js';
import type { HttpDeps } from './deps.js';
import { errorStatus, type ErrorCode } from './error-registry.js';
import { HttpError } from './http-error.js';
import { ErrorBody } from './schemas.js';
import { accountRoutes } from './routes/accounts.js';
import { bookingRoutes } from './routes/booking.js';
import { catalogRoutes } from './routes/catalog.js';
import { operationsRoutes } from './routes/operations.js';
import { paymentRoutes } from './routes/payments.js';
import { ticketRoutes } from './routes/tickets.js';

export type HttpApp = FastifyInstance;

const requestIdPattern = /^[A-Za-z0-9._:-]{1,128}$/;

/** One compact line per request instead of Fastify's two: in a rush, logs are I/O on the hot path. */
class OneLinePerRequest extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null, request: FastifyRequest, reply: FastifyReply): void {
    const line = { method: request.method, url: request.url, statusCode: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10 };
    if (error === null || error === undefined) reply.log.info(line, 'request');
    else reply.log.error({ ...line, err: error }, 'request failed');
  }
}

/** Builds the HTTP API without listening, so tests can `inject()` requests with no socket. */
export async function buildHttpApp(deps: HttpDeps): Promise<FastifyInstance> {
  const app = Fastify({
    logger: deps.logger ?? false,
    logController: new OneLinePerRequest(),
    bodyLimit: deps.bodyLimitBytes,
    connectionTimeout: 30_000,
    requestTimeout: 30_000,
    keepAliveTimeout: 10_000,
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && requestIdPattern.test(given) ? given : randomUUID();
    },
    ajv: { customOptions: { removeAdditional: false, coerceTypes: 'array', useDefaults: true, allErrors: false } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.addSchema(ErrorBody);
  // JSON only: anything else is a clear 415 rather than a string that fails validation.
  app.removeContentTypeParser('text/plain');
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id);
    done(null, payload);
  });

  app.setErrorHandler((error, request, reply) => {
    const { status, body } = toErrorResponse(error);
    if (status >= 500) request.log.error({ err: error }, 'request failed');
    void reply.status(status).send(body);
  });
  app.setNotFoundHandler((request, reply) => {
    void reply.status(404).send({ code: 'ROUTE_NOT_FOUND', message: `no route for ${request.method} ${request.url.split('?')[0] ?? ''}` });
  });

  await app.register(swagger, {
    openapi: {
      info: { title: 'TicketRush API', version: '1', description: 'Seats, holds, orders, payments and tickets. Errors are {code, message}.' },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });

  await app.register(operationsRoutes(deps));
  await app.register(accountRoutes(deps), { prefix: '/api/v1' });
  await app.register(catalogRoutes(deps), { prefix: '/api/v1' });
  await app.register(bookingRoutes(deps), { prefix: '/api/v1' });
  await app.register(paymentRoutes(deps), { prefix: '/api/v1' });
  await app.register(ticketRoutes(deps), { prefix: '/api/v1' });
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
  if (error instanceof StoreConflictError) return response('CONCURRENT_UPDATE', 'someone else changed this at the same moment; try again');
  const fastifyError = error as Partial<FastifyError>;
  if (fastifyError.validation !== undefined) {
    return response('VALIDATION_FAILED', fastifyError.message ?? 'invalid request', { context: fastifyError.validationContext });
  }
  const mapped = fastifyError.code === undefined ? undefined : frameworkCodes[fastifyError.code];
  if (mapped !== undefined) return response(mapped, fastifyError.message ?? mapped);
  if (error instanceof SyntaxError) return response('INVALID_JSON', 'the body is not valid JSON');
  const status = fastifyError.statusCode;
  if (status !== undefined && status >= 400 && status < 500) return { status, body: { code: 'BAD_REQUEST', message: fastifyError.message ?? 'bad request' } };
  return response('INTERNAL_ERROR', 'something went wrong on our side');
}
