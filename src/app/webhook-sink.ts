import type { NewDelivery, OutboxEvent, OutboxSink, WebhookStore } from '../ports/engine/index.js';
import type { JobQueue } from '../ports/jobs.js';
import type { Clock } from '../ports/runtime.js';
import { deliverWebhookKey } from './webhook-delivery.js';

/** Rows written per store call: a page of events times the endpoints stays a short statement. */
const deliveriesPerWriteMax = 500;

export interface WebhookSinkDeps {
  readonly store: WebhookStore;
  readonly clock: Clock;
  readonly newDeliveryId: () => string;
  readonly jobs: JobQueue | null;
  /** Called once new deliveries are stored (e.g. to run the due pass now when no queue runs jobs). */
  readonly wake: () => void;
  readonly onError: (what: string, error: unknown) => void;
}

/** What a receiver gets, exactly as signed: the event's id, type, time and public data. */
export function webhookBody(event: OutboxEvent): string {
  return JSON.stringify({ id: event.eventId, type: event.type, createdAt: new Date(event.createdAt).toISOString(), data: event.data });
}

/**
 * The outbox relay's webhook consumer (cursor `webhooks`): one delivery row per ACTIVE endpoint
 * subscribed to each event's type, then a deliver-webhook job per new row. Nothing is sent here:
 * the relay moves on as soon as the rows are stored. A redelivered page makes no second row (the
 * store's unique (webhook, event)), so at-least-once relaying gives exactly one delivery each.
 * A failure to store throws, so the relay redelivers the page.
 */
export function createWebhookSink(deps: WebhookSinkDeps): OutboxSink {
  return {
    name: 'webhooks',
    async deliver(events) {
      if (events.length === 0) return;
      const types = [...new Set(events.map((e) => e.type))];
      const hooks = await deps.store.activeWebhooksFor(types);
      if (hooks.length === 0) return;
      const now = deps.clock.now();
      const rows: NewDelivery[] = [];
      for (const event of events) {
        const subscribed = hooks.filter((h) => h.events.includes(event.type));
        if (subscribed.length === 0) continue;
        const body = webhookBody(event);
        for (const hook of subscribed) rows.push({ deliveryId: deps.newDeliveryId(), webhookId: hook.webhookId, eventId: event.eventId, type: event.type, body, now });
      }
      const created: string[] = [];
      for (let i = 0; i < rows.length; i += deliveriesPerWriteMax) created.push(...await deps.store.recordDeliveries(rows.slice(i, i + deliveriesPerWriteMax)));
      if (created.length === 0) return;
      if (deps.jobs !== null) {
        const jobs = deps.jobs;
        // A job lost here is not a delivery lost: the due pass leases whatever is due.
        await Promise.all(created.map((deliveryId) => jobs.enqueue('deliver-webhook', { deliveryId, attempt: 1 }, { key: deliverWebhookKey(deliveryId, 1) })
          .catch((error: unknown) => deps.onError('enqueue deliver-webhook', error))));
      }
      deps.wake();
    },
  };
}
