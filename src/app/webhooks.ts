import { checkWebhookEvents, checkWebhookUrl, limits, type SelfAddress } from '../domain/index.js';
import { outboxEventTypes, type DeliveryWithAttempts, type OutboxEventType, type Webhook } from '../ports/engine/index.js';
import type { AppContext } from './context.js';
import { AppError, unwrap } from './errors.js';

/** What the admin use cases need besides the store: randomness, and where this server answers. */
export interface WebhookSettings {
  /** This server's own addresses (listen address, TICKETRUSH_PUBLIC_URL): a webhook may not point at them. */
  selfAddresses(): readonly SelfAddress[];
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
export async function createWebhook(ctx: AppContext, settings: WebhookSettings, input: { url: string; events: readonly string[] }): Promise<{ webhookId: string; secret: string }> {
  const url = unwrap(checkWebhookUrl(input.url, settings.selfAddresses()));
  const events = unwrap(checkWebhookEvents(input.events, outboxEventTypes));
  const webhook: Webhook = {
    webhookId: settings.newWebhookId(), url, events, secret: settings.newSecret(), status: 'ACTIVE', createdAt: ctx.clock.now(), disabledReason: null,
  };
  const stored = await ctx.store.insertWebhook(webhook, limits.webhooksMax);
  if (!stored.ok) throw new AppError('WEBHOOK_LIMIT_REACHED', `at most ${limits.webhooksMax} webhooks; remove one first`, { limit: limits.webhooksMax });
  return { webhookId: webhook.webhookId, secret: webhook.secret };
}

/** Endpoints, oldest first, without their secrets. */
export async function listWebhooks(ctx: AppContext, page: { limit: number; offset: number }): Promise<{ webhooks: WebhookView[]; more: boolean }> {
  const limit = Math.min(page.limit, limits.listPageSizeMax);
  const found = await ctx.store.listWebhooks({ limit: limit + 1, offset: page.offset });
  return { webhooks: found.slice(0, limit).map(view), more: found.length > limit };
}

export async function deleteWebhook(ctx: AppContext, webhookId: string): Promise<void> {
  if (!await ctx.store.deleteWebhook(webhookId)) throw new AppError('WEBHOOK_NOT_FOUND', `no webhook ${webhookId}`);
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
