import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { readiness } from '../../app/readiness.js';
import type { HttpDeps } from '../deps.js';
import { HttpError } from '../http-error.js';
import { errorResponses } from '../schemas.js';

/** Compares in constant time (over equal-length digests), so the token does not leak by timing. */
function bearerMatches(header: string | undefined, token: string): boolean {
  const given = /^Bearer (.+)$/i.exec(header ?? '')?.[1] ?? '';
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(given), digest(token));
}

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
      response: { 200: { description: 'Prometheus text exposition format 0.0.4', content: { 'text/plain': { schema: Type.String() } } }, ...errorResponses(401) },
    },
  }, async (request, reply) => {
    const token = deps.metrics.token ?? null;
    if (token !== null && !bearerMatches(request.headers.authorization, token)) {
      throw new HttpError('UNAUTHORIZED', 'GET /metrics needs the metrics bearer token (TICKETRUSH_METRICS_TOKEN)');
    }
    return reply.type(deps.metrics.contentType).send(await deps.metrics.render());
  });
};
