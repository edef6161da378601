import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { readiness } from '../../app/readiness.js';
import type { HttpDeps } from '../deps.js';
import { HttpError } from '../http-error.js';
import { errorResponses } from '../schemas.js';

export const operationsRoutes = (deps: HttpDeps): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/healthz', {
    schema: { tags: ['operations'], summary: 'The process is up', response: { 200: Type.Object({ status: Type.Literal('ok') }) } },
  }, async () => ({ status: 'ok' as const }));

  app.get('/readyz', {
    schema: { tags: ['operations'], summary: 'Storage (and Redis, when configured) is reachable', response: { 200: Type.Object({ status: Type.Literal('ready') }), ...errorResponses(503) } },
  }, async () => {
    const { down } = await readiness(deps.ctx, deps.readiness?.store ?? 'storage', deps.readiness?.others ?? []);
    if (down.length > 0) throw new HttpError('STORAGE_UNAVAILABLE', down.join('; '));
    return { status: 'ready' as const };
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
