import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { auditEntityTypes, auditLogOffsetMax, listAuditLog } from '../../app/audit-trail.js';
import { listMyNotifications, markMyNotificationsRead, myPreferences, notificationKinds, notificationsOffsetMax, preferredLanguages, setMyPreferences } from '../../app/notifications.js';
import { limits } from '../../domain/index.js';
import type { HttpDeps } from '../deps.js';
import { guard, requireRole, requireUser, roleGuard } from '../auth.js';
import { errorResponses } from '../schemas.js';

const Page = (offsetMax: number) => Type.Unsafe<{ limit: number; offset: number }>(Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: limits.listPageSizeMax, default: 20, description: 'Page size' })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: offsetMax, default: 0, description: 'Items to skip' })),
}, { additionalProperties: false }));

const Notification = Type.Object({
  notificationId: Type.String(),
  kind: Type.Union(notificationKinds.map((k) => Type.Literal(k))),
  showId: Type.Union([Type.String(), Type.Null()]),
  orderId: Type.Union([Type.String(), Type.Null()]),
  data: Type.Record(Type.String(), Type.Unknown(), { description: "The event's public payload (ids, seat ids, amounts): the page words it in the reader's language" }),
  createdAt: Type.String({ format: 'date-time' }),
  readAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  email: Type.Object({
    status: Type.Union(['NONE', 'PENDING', 'SENDING', 'SENT', 'FAILED', 'NO_ADDRESS'].map((s) => Type.Literal(s))),
    sentAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  }),
});

const Language = Type.Union(preferredLanguages.map((l) => Type.Literal(l)));
const Preferences = Type.Object({
  language: Type.Union([Language, Type.Null()], { description: 'The language of emails (en or zh-CN); null: English' }),
  email: Type.Union([Type.String(), Type.Null()], { description: 'Where notification emails go; null: none are sent' }),
});
const PreferencesBody = Type.Object({
  language: Type.Optional(Type.Union([Language, Type.Null()])),
  email: Type.Optional(Type.Union([Type.String({ minLength: 3, maxLength: 254 }), Type.Null()])),
}, { additionalProperties: false, minProperties: 1 });

const AuditEntry = Type.Object({
  entryId: Type.String(),
  at: Type.String({ format: 'date-time' }),
  actorId: Type.String(),
  actorRole: Type.String(),
  actorName: Type.Union([Type.String(), Type.Null()], { description: 'The actor\'s username now; null when the account is gone' }),
  action: Type.String({ description: '<entity>.<verb>, e.g. show.created, show.edited, flash_sale.taken_offline, user.role_granted, webhook.deleted' }),
  entityType: Type.String(),
  entityId: Type.String(),
  showId: Type.Union([Type.String(), Type.Null()]),
  before: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
  after: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
});
const AuditQuery = Type.Unsafe<{ limit: number; offset: number; actorId?: string; entityType?: (typeof auditEntityTypes)[number]; entityId?: string; from?: string; until?: string }>(Type.Object({
  actorId: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  entityType: Type.Optional(Type.Union(auditEntityTypes.map((e) => Type.Literal(e)))),
  entityId: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  from: Type.Optional(Type.String({ format: 'date-time', description: 'Entries at or after this instant' })),
  until: Type.Optional(Type.String({ format: 'date-time', description: 'Entries before this instant' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: limits.listPageSizeMax, default: 50 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: auditLogOffsetMax, default: 0 })),
}, { additionalProperties: false }));

/** Buyer notifications and preferences (issue 25 item 7); the audit trail (issue 26 item 5). */
export const notificationRoutes = (deps: HttpDeps): FastifyPluginAsyncTypebox => async (app) => {
  const { ctx, tokens } = deps;

  app.get('/me/notifications', {
    onRequest: guard(tokens),
    schema: {
      tags: ['accounts'],
      summary: 'My notifications (order confirmed, refund, exchange, waitlist offer, show cancelled), newest first, with the unread count',
      security: [{ bearer: [] }],
      querystring: Page(notificationsOffsetMax),
      response: { 200: Type.Object({ notifications: Type.Array(Notification), unread: Type.Integer(), more: Type.Boolean() }), ...errorResponses(400, 401) },
    },
  }, async (request) => listMyNotifications(ctx, requireUser(tokens, request).userId, request.query));

  app.post('/me/notifications/read', {
    onRequest: guard(tokens),
    schema: {
      tags: ['accounts'],
      summary: 'Marks all my notifications read',
      security: [{ bearer: [] }],
      response: { 200: Type.Object({ marked: Type.Integer() }), ...errorResponses(401) },
    },
  }, async (request) => markMyNotificationsRead(ctx, requireUser(tokens, request).userId));

  app.get('/me/preferences', {
    onRequest: guard(tokens),
    schema: { tags: ['accounts'], summary: 'My notification language and email address', security: [{ bearer: [] }], response: { 200: Preferences, ...errorResponses(401) } },
  }, async (request) => myPreferences(ctx, requireUser(tokens, request).userId));

  app.put('/me/preferences', {
    onRequest: guard(tokens),
    schema: {
      tags: ['accounts'],
      summary: 'Sets my notification language (the web sends its language choice) and/or email address; fields left out stay',
      description: 'An address that is not one is 400 EMAIL_INVALID.',
      security: [{ bearer: [] }],
      body: PreferencesBody,
      response: { 200: Preferences, ...errorResponses(400, 401) },
    },
  }, async (request) => setMyPreferences(ctx, requireUser(tokens, request).userId, request.body));

  app.get('/admin/audit-log', {
    onRequest: roleGuard(deps, ['ADMIN']),
    schema: {
      tags: ['admin'],
      summary: 'Who changed what and when: organizer and admin changes with the values before and after, newest first',
      description: 'Filters: actorId, entityType, entityId, from/until (ISO instants). Paged with limit (at most 100) and offset (at most 10,000).',
      security: [{ bearer: [] }],
      querystring: AuditQuery,
      response: { 200: Type.Object({ entries: Type.Array(AuditEntry), more: Type.Boolean() }), ...errorResponses(400, 401, 403) },
    },
  }, async (request) => {
    const viewer = requireRole(tokens, request, ['ADMIN']);
    const { from, until, ...rest } = request.query;
    const found = await listAuditLog(ctx, viewer, {
      ...rest, ...(from === undefined ? {} : { from: Date.parse(from) }), ...(until === undefined ? {} : { until: Date.parse(until) }),
    });
    return { entries: found.entries.map((e) => ({ ...e, at: new Date(e.at).toISOString() })), more: found.more };
  });
};
