import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { ServerResponse } from 'node:http';
import { getQueuePlace, getWaitingRoom, joinQueue, leaveQueue, setWaitingRoom, type QueueView } from '../../app/waiting-rooms.js';
import { AppError } from '../../app/errors.js';
import type { HttpDeps } from '../deps.js';
import { guard, requireUser, roleGuard } from '../auth.js';
import { buyerGate } from '../buyer-gate.js';
import { HttpError } from '../http-error.js';
import { errorResponses } from '../schemas.js';
import { QueueParams, QueueResponse, RoomParams, WaitingRoomBody, WaitingRoomResponse } from '../waiting-room-schemas.js';

/** Queue streams this process keeps open at once; one per place (a second one replaces the first). */
export const queueStreamsMax = 10_000;
/** How often a stream looks at its place, and how often it says it is alive. */
const queuePollMs = 1_000;
const heartbeatMs = 15_000;
/** A stream ends after this long anyway (the client reconnects): nothing stays open forever. */
const streamLifeMsMax = 30 * 60_000;
const terminal = new Set(['EXPIRED', 'LEFT', 'BLOCKED', 'SOLD_OUT']);

export const waitingRoomRoutes = (deps: HttpDeps): FastifyPluginAsyncTypebox => async (app) => {
  const { ctx, tokens } = deps;
  const streams = new Map<string, { close(): void }>();
  app.addHook('preClose', (done) => {
    [...streams.values()].forEach((s) => s.close());
    done();
  });

  app.put('/admin/activities/:activityId/waiting-room', {
    onRequest: roleGuard(deps, ['ADMIN']),
    schema: {
      tags: ['waiting room'],
      summary: 'Turn the activity\'s waiting room on or off, set its admission rate and window; changes apply live (0 per minute pauses)',
      security: [{ bearer: [] }],
      params: RoomParams,
      body: WaitingRoomBody,
      response: { 200: WaitingRoomResponse, ...errorResponses(400, 401, 403, 404, 503) },
    },
  }, async (request) => setWaitingRoom(ctx, request.params.activityId, request.body));

  app.get('/admin/activities/:activityId/waiting-room', {
    onRequest: roleGuard(deps, ['ADMIN']),
    schema: {
      tags: ['waiting room'],
      summary: 'The activity\'s waiting room with its live queue length and admissions per minute',
      security: [{ bearer: [] }],
      params: RoomParams,
      response: { 200: WaitingRoomResponse, ...errorResponses(400, 401, 403, 404, 503) },
    },
  }, async (request) => getWaitingRoom(ctx, request.params.activityId));

  app.post('/activities/:activityId/queue', {
    // A buying route: a blocked buyer gets 403 BLOCKED, and joins count against the queue-join limit.
    onRequest: [guard(tokens), buyerGate(deps, 'queue-join')],
    schema: {
      tags: ['waiting room'],
      summary: 'Join the activity\'s queue: 201 with a new place, 200 with the place the caller already has (one per buyer). A place is not a reservation.',
      description: 'Refusals: 409 WAITING_ROOM_OFF (no room: buy directly), 409 SOLD_OUT (nothing left: no place is given), 404 ACTIVITY_NOT_FOUND.',
      security: [{ bearer: [] }],
      params: RoomParams,
      response: { 200: QueueResponse, 201: QueueResponse, ...errorResponses(400, 401, 403, 404, 409, 429, 503) },
    },
  }, async (request, reply) => {
    const me = requireUser(tokens, request);
    const joined = await joinQueue(ctx, me.userId, request.params.activityId);
    return reply.status(joined.created ? 201 : 200).send(joined.view);
  });

  app.get('/activities/:activityId/queue/:queueId', {
    onRequest: guard(tokens),
    schema: {
      tags: ['waiting room'],
      summary: 'The caller\'s place: state, position, estimated wait; once ADMITTED the admission token and its window',
      security: [{ bearer: [] }],
      params: QueueParams,
      response: { 200: QueueResponse, ...errorResponses(400, 401, 404, 503) },
    },
  }, async (request) => {
    const me = requireUser(tokens, request);
    return getQueuePlace(ctx, me.userId, request.params.activityId, request.params.queueId);
  });

  app.delete('/activities/:activityId/queue/:queueId', {
    onRequest: guard(tokens),
    schema: {
      tags: ['waiting room'],
      summary: 'Leave the queue (a waiting or admitted place becomes LEFT; an ended place is answered as it is)',
      security: [{ bearer: [] }],
      params: QueueParams,
      response: { 200: QueueResponse, ...errorResponses(400, 401, 404, 503) },
    },
  }, async (request) => {
    const me = requireUser(tokens, request);
    return leaveQueue(ctx, me.userId, request.params.activityId, request.params.queueId);
  });

  app.get('/activities/:activityId/queue/:queueId/events', {
    onRequest: guard(tokens),
    schema: {
      tags: ['waiting room'],
      summary: 'The caller\'s place as server-sent events: `place` {the GET answer} whenever it changes; comment lines are heartbeats; the stream ends on EXPIRED, LEFT, BLOCKED or SOLD_OUT',
      description: 'One stream per place: opening a second one closes the first. Streams end after 30 minutes at most (reconnect).',
      security: [{ bearer: [] }],
      params: QueueParams,
      response: { 200: Type.Unsafe<string>(Type.String({ description: 'text/event-stream' })), ...errorResponses(400, 401, 404, 503) },
    },
  }, async (request, reply) => {
    const me = requireUser(tokens, request);
    const { activityId, queueId } = request.params;
    const first = await getQueuePlace(ctx, me.userId, activityId, queueId);
    streams.get(queueId)?.close();
    if (streams.size >= queueStreamsMax) throw new HttpError('LIVE_CONNECTIONS_FULL', 'too many queue streams on this server; poll GET instead, or retry shortly');
    reply.hijack();
    const res: ServerResponse = reply.raw;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive', 'x-accel-buffering': 'no', 'x-request-id': request.id,
    });
    let last = '';
    let polling = false;
    const send = (view: QueueView): void => {
      const body = JSON.stringify(view);
      if (body === last) return;
      last = body;
      res.write(`event: place\ndata: ${body}\n\n`);
      if (terminal.has(view.state)) stream.close();
    };
    const timers: NodeJS.Timeout[] = [];
    const stream = {
      closed: false,
      close() {
        if (stream.closed) return;
        stream.closed = true;
        timers.forEach((t) => clearInterval(t));
        if (streams.get(queueId) === stream) streams.delete(queueId);
        res.end();
      },
    };
    streams.set(queueId, stream);
    res.on('close', () => stream.close());
    timers.push(setInterval(() => {
      if (polling || stream.closed) return;
      polling = true;
      getQueuePlace(ctx, me.userId, activityId, queueId).then(send, (error: unknown) => {
        if (!(error instanceof AppError)) request.log.warn({ err: error }, 'queue stream read failed; trying again');
      }).finally(() => {
        polling = false;
      });
    }, queuePollMs));
    timers.push(setInterval(() => res.write(': heartbeat\n\n'), heartbeatMs));
    timers.push(setTimeout(() => stream.close(), streamLifeMsMax));
    timers.forEach((t) => t.unref());
    send(first);
  });
};
