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
    schema: { tags: ['operations'], summary: 'Storage (and Redis, when configured) is reachable', response: { 200: Type.Object({ status: Type.Literal('ready') }), ...errorResponses(503) } },
  }, async () => {
    // Every dependency at once; the answer names each one that is down (several processes behind
    // a load balancer: the operator sees which service this process cannot reach).
    const checks = [{ name: deps.readiness?.store ?? 'storage', check: () => deps.ctx.store.ping() }, ...(deps.readiness?.others ?? [])];
    const results = await Promise.allSettled(checks.map((c) => c.check()));
    const down = checks.flatMap((c, i) => {
      const result = results[i];
      return result?.status === 'rejected' ? [`${c.name} is not reachable: ${result.reason instanceof Error ? result.reason.message : String(result.reason)}`] : [];
    });
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
