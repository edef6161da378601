import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { liveSeatFeed, liveStart, loadedSectionCounts } from '../../app/live-seats.js';
import type { HttpDeps } from '../deps.js';
import { HttpError } from '../http-error.js';
import { LiveHub } from '../live/live-hub.js';
import { ShowParams, errorResponses } from '../schemas.js';

/** Connections per process when the configuration does not say. */
export const liveConnectionsMaxDefault = 1000;
const versionPattern = /^\d{1,10}$/;

export const liveRoutes = (deps: HttpDeps): FastifyPluginAsyncTypebox => async (app) => {
  const { ctx } = deps;
  const hub = new LiveHub(liveSeatFeed(ctx), {
    connectionsMax: deps.liveConnectionsMax ?? liveConnectionsMaxDefault,
    sectionsOf: (showId) => loadedSectionCounts(ctx, showId),
  });
  // Open streams would keep the server from closing; they end first (clients reconnect elsewhere).
  app.addHook('preClose', (done) => {
    hub.closeAll();
    done();
  });

  app.get('/shows/:showId/events', {
    schema: {
      tags: ['catalog'],
      summary: 'Live seat changes (text/event-stream), batched a few times a second',
      description: [
        'Events: `hello` {version, epoch} first; `seats` {from, to, changes: [[seatId, "A"|"H"|"S"|"R"]], sections: [{id, available}]} with `id:` = the version it leads to',
        '(`sections` is what is left of every section, counted or seated, at that version);',
        '`reload` {version} when the changes asked for are no longer remembered (fetch the seat map again). Comment lines are heartbeats.',
        'Resume with the Last-Event-ID header (EventSource does it by itself) or, on the first connect, `?since=<seat map version>`.',
      ].join(' '),
      params: ShowParams,
      querystring: Type.Object({ since: Type.Optional(Type.Integer({ minimum: 0, maximum: 4_294_967_295, description: 'the version of the seat map the client holds' })) }),
      headers: Type.Object({ 'last-event-id': Type.Optional(Type.String({ maxLength: 32 })) }),
      response: {
        200: Type.Unsafe<string>(Type.String({ description: 'text/event-stream' })),
        ...errorResponses(400, 404, 503),
      },
    },
  }, async (request, reply) => {
    const start = await liveStart(ctx, request.params.showId);
    if (hub.full) throw new HttpError('LIVE_CONNECTIONS_FULL', 'too many live connections on this server; retry shortly');
    const lastEventId = request.headers['last-event-id'];
    const resumeFrom = typeof lastEventId === 'string' && versionPattern.test(lastEventId) ? Number(lastEventId) : (request.query.since ?? null);
    reply.hijack();
    reply.raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
      'x-request-id': request.id,
    });
    hub.add(start.showId, start.version, start.epoch, reply.raw, resumeFrom);
  });
};
