import { checkWebhookEvents, checkWebhookUrl, limits, type SelfAddress } from '../domain/index.js';
import { outboxEventTypes, type DeliveryWithAttempts, type OutboxEventType, type Webhook } from '../ports/engine/index.js';
import { auditDraft, type Actor } from './audit-trail.js';
import type { AppContext } from './context.js';
import { AppError, unwrap } from './errors.js';
import { checkWebhookTarget, type WebhookTargetPolicy } from './webhook-targets.js';

/** What the admin use cases need besides the store: randomness, and where this server answers. */
/** The event names a webhook may subscribe to (the outbox's types), for the edge's schema. */
export const webhookEventTypes = outboxEventTypes;

export interface WebhookSettings {
  /** This server's own addresses (listen address, TICKETRUSH_PUBLIC_URL): a webhook may not point at them. */
  selfAddresses(): readonly SelfAddress[];
  /** Where a webhook may point (loopback, private and link-local addresses refused unless allowed). */
  readonly targets: WebhookTargetPolicy;
  newWebhookId(): string;
  /** A fresh signing secret (random, shown once). */
  newSecret(): string;
}

export interface WebhookView {
  webhookId: string;
  url: string;
  events: OutboxEventType[];
  status: Webhook['status'];
  disabledReason: string | null;
  createdAt: string;
}

const view = (w: Webhook): WebhookView => ({
  webhookId: w.webhookId, url: w.url, events: [...w.events], status: w.status, disabledReason: w.disabledReason, createdAt: new Date(w.createdAt).toISOString(),
});
const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** Registers an endpoint; the secret is in this answer only. */
export async function createWebhook(ctx: AppContext, settings: WebhookSettings, input: { url: string; events: readonly string[] }, actor: Actor | null = null): Promise<{ webhookId: string; secret: string }> {
  const url = unwrap(checkWebhookUrl(input.url, settings.selfAddresses()));
  // Before anything is stored or sent: a target inside this network is refused (deliveries check again).
  const target = await checkWebhookTarget(settings.targets, url, { unresolved: 'accept' });
  if (!target.ok) throw new AppError('WEBHOOK_URL_INVALID', `the webhook URL may not point inside this network: ${target.reason}`);
  const events = unwrap(checkWebhookEvents(input.events, outboxEventTypes));
  const webhook: Webhook = {
    webhookId: settings.newWebhookId(), url, events, secret: settings.newSecret(), status: 'ACTIVE', createdAt: ctx.clock.now(), disabledReason: null,
  };
  // Never the secret: the trail is readable by every admin for as long as it is kept.
  const audit = auditDraft(ctx, actor, { action: 'webhook.created', entityType: 'webhook', entityId: webhook.webhookId, showId: null, before: null, after: { url, events: [...events] } });
  const stored = await ctx.store.insertWebhook(webhook, limits.webhooksMax, audit);
  if (!stored.ok) throw new AppError('WEBHOOK_LIMIT_REACHED', `at most ${limits.webhooksMax} webhooks; remove one first`, { limit: limits.webhooksMax });
  return { webhookId: webhook.webhookId, secret: webhook.secret };
}

/** Endpoints, oldest first, without their secrets. */
export async function listWebhooks(ctx: AppContext, page: { limit: number; offset: number }): Promise<{ webhooks: WebhookView[]; more: boolean }> {
  const limit = Math.min(page.limit, limits.listPageSizeMax);
  const found = await ctx.store.listWebhooks({ limit: limit + 1, offset: page.offset });
  return { webhooks: found.slice(0, limit).map(view), more: found.length > limit };
}

export async function deleteWebhook(ctx: AppContext, webhookId: string, actor: Actor | null = null): Promise<void> {
  const existing = await ctx.store.getWebhook(webhookId);
  const audit = existing === null ? null : auditDraft(ctx, actor, {
    action: 'webhook.deleted', entityType: 'webhook', entityId: webhookId, showId: null, before: { url: existing.url, events: [...existing.events], status: existing.status }, after: null,
  });
  if (!await ctx.store.deleteWebhook(webhookId, audit)) throw new AppError('WEBHOOK_NOT_FOUND', `no webhook ${webhookId}`);
}

/** An endpoint's deliveries, newest first, each with every attempt: when, status, duration, next retry. */
export async function listDeliveries(ctx: AppContext, webhookId: string, page: { limit: number; offset: number }) {
  if (await ctx.store.getWebhook(webhookId) === null) throw new AppError('WEBHOOK_NOT_FOUND', `no webhook ${webhookId}`);
  const limit = Math.min(page.limit, limits.listPageSizeMax);
  const found = await ctx.store.listDeliveries(webhookId, { limit: limit + 1, offset: page.offset });
  return { deliveries: found.slice(0, limit).map(deliveryView), more: found.length > limit };
}

function deliveryView({ delivery: d, attempts }: DeliveryWithAttempts) {
  return {
    deliveryId: d.deliveryId,
    eventId: d.eventId,
    type: d.type,
    status: d.status,
    attempts: attempts.map((a) => ({
      attempt: a.attempt, at: new Date(a.at).toISOString(), statusCode: a.statusCode, durationMs: a.durationMs, error: a.error, outcome: a.outcome, nextAttemptAt: iso(a.nextAttemptAt),
    })),
    nextAttemptAt: d.status === 'PENDING' ? iso(d.nextAttemptAt) : null,
    lastStatusCode: d.lastStatusCode,
    lastDurationMs: d.lastDurationMs,
    lastError: d.lastError,
    createdAt: new Date(d.createdAt).toISOString(),
    updatedAt: new Date(d.updatedAt).toISOString(),
  };
}
