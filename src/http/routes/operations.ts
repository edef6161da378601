import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { HttpDeps } from '../deps.js';
import { HttpError } from '../http-error.js';
import { errorResponses } from '../schemas.js';

export const operationsRoutes = (deps: HttpDeps): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/healthz', {
    schema: { tags: ['operations'], summary: 'The process is up', response: { 200: Type.Object({ status: Type.Literal('ok') }) } },
  }, async () => ({ status: 'ok' as const }));

  app.get('/readyz', {
    schema: {
      tags: ['operations'],
      summary: 'Storage is reachable',
      response: {
        200: Type.Object({
          status: Type.Literal('ready'),
          // The Redis gate is an accelerator: away, holds go to the database (degraded, still ready).
          redis: Type.Union([Type.Literal('up'), Type.Literal('down'), Type.Literal('off')]),
        }),
        ...errorResponses(503),
      },
    },
  }, async () => {
    try {
      await deps.ctx.store.ping();
    } catch (error) {
      throw new HttpError('STORAGE_UNAVAILABLE', `storage is not reachable: ${error instanceof Error ? error.message : String(error)}`);
    }
    return { status: 'ready' as const, redis: deps.ctx.gate?.health() ?? ('off' as const) };
  });

  app.get('/metrics', {
    schema: {
      tags: ['operations'],
      summary: 'Prometheus metrics',
      response: { 200: { description: 'Prometheus text exposition format 0.0.4', content: { 'text/plain': { schema: Type.String() } } } },
    },
  }, async (_request, reply) => {
    return reply.type(deps.metrics.contentType).send(await deps.metrics.render());
  });
};
