import type { AuditEntryDraft } from './change-log.js';
import type { OutboxEventType } from './outbox.js';

/**
 * Signed webhooks out (issue 22 item 4): endpoints an admin registers, one delivery per
 * (endpoint, outbox event) and every attempt made to send it. Times are epoch milliseconds.
 */
export type WebhookStatus = 'ACTIVE' | 'DISABLED';

export interface Webhook {
  readonly webhookId: string;
  readonly url: string;
  readonly events: readonly OutboxEventType[];
  /** The HMAC key; shown once when created, never listed. */
  readonly secret: string;
  readonly status: WebhookStatus;
  readonly createdAt: number;
  /** Why it stopped (e.g. the receiver answered 410 Gone); null while ACTIVE. */
  readonly disabledReason: string | null;
}

/**
 * PENDING: an attempt is due at nextAttemptAt (or leased to a sender until then); DELIVERED: a 2xx
 * came back; FAILED: the retry window closed; DISABLED: its endpoint was disabled first.
 */
export type DeliveryStatus = 'PENDING' | 'DELIVERED' | 'FAILED' | 'DISABLED';

export interface WebhookDelivery {
  readonly deliveryId: string;
  readonly webhookId: string;
  readonly eventId: string;
  readonly type: OutboxEventType;
  /** The JSON body exactly as sent (and signed) on every attempt. */
  readonly body: string;
  /** Attempts made so far. */
  readonly attempts: number;
  readonly status: DeliveryStatus;
  /** When the next attempt is due (while PENDING; a lease pushes it forward), else null. */
  readonly nextAttemptAt: number | null;
  readonly lastStatusCode: number | null;
  readonly lastDurationMs: number | null;
  readonly lastError: string | null;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** What one attempt came to. RETRY: another attempt at nextAttemptAt; GONE: 410, the endpoint is disabled. */
export type AttemptOutcome = 'DELIVERED' | 'RETRY' | 'FAILED' | 'GONE';

export interface WebhookAttempt {
  readonly deliveryId: string;
  /** 1 for the first attempt. */
  readonly attempt: number;
  readonly at: number;
  readonly statusCode: number | null;
  readonly durationMs: number;
  readonly error: string | null;
  readonly outcome: AttemptOutcome;
  readonly nextAttemptAt: number | null;
}

/** A delivery leased to one sender, with what it needs to send it. */
export interface DueDelivery {
  readonly delivery: WebhookDelivery;
  readonly url: string;
  readonly secret: string;
}

export interface NewDelivery {
  readonly deliveryId: string;
  readonly webhookId: string;
  readonly eventId: string;
  readonly type: OutboxEventType;
  readonly body: string;
  readonly now: number;
}

export interface RecordAttemptInput extends Omit<WebhookAttempt, 'at'> {
  readonly now: number;
}

export type RecordAttemptOutcome =
  | { readonly ok: true; readonly delivery: WebhookDelivery }
  /** Not PENDING any more, or another sender recorded this attempt number first: nothing written. */
  | { readonly ok: false; readonly stale: true };

export type InsertWebhookOutcome = { readonly ok: true } | { readonly ok: false; readonly code: 'WEBHOOK_LIMIT_REACHED' };

export interface DeliveryWithAttempts {
  readonly delivery: WebhookDelivery;
  readonly attempts: readonly WebhookAttempt[];
}

export interface WebhookStore {
  /** Stores a new endpoint unless `webhooksMax` exist already (counted in the same step). */
  insertWebhook(webhook: Webhook, webhooksMax: number, audit?: AuditEntryDraft | null): Promise<InsertWebhookOutcome>;
  getWebhook(webhookId: string): Promise<Webhook | null>;
  /** Oldest first. */
  listWebhooks(page: { readonly limit: number; readonly offset: number }): Promise<readonly Webhook[]>;
  /** ACTIVE endpoints subscribed to any of `types` (the sink's fan-out). */
  activeWebhooksFor(types: readonly OutboxEventType[]): Promise<readonly Webhook[]>;
  /** Removes the endpoint with its deliveries and attempts; false when unknown. */
  deleteWebhook(webhookId: string, audit?: AuditEntryDraft | null): Promise<boolean>;
  /**
   * One delivery per (webhook, event): a redelivered outbox event, or two processes relaying the
   * same page, never makes a second one. Rows for an endpoint no longer ACTIVE are skipped.
   * Answers the ids actually created, first attempt due at `now`.
   */
  recordDeliveries(deliveries: readonly NewDelivery[]): Promise<readonly string[]>;
  /**
   * Leases up to `limit` PENDING deliveries due at `now` (oldest due first) by moving their
   * nextAttemptAt to `now + leaseMs`: two processes never lease the same one at once
   * (FOR UPDATE SKIP LOCKED on PostgreSQL). A sender that dies loses the lease when it runs out.
   */
  leaseDueDeliveries(input: { readonly now: number; readonly leaseMs: number; readonly limit: number }): Promise<readonly DueDelivery[]>;
  /** Leases one delivery (the deliver-webhook job) if PENDING, due, and `attempts` attempts made; else null. */
  leaseDelivery(input: { readonly deliveryId: string; readonly attempts: number; readonly now: number; readonly leaseMs: number }): Promise<DueDelivery | null>;
  /**
   * Records attempt number `attempt` (attempts must be attempt - 1, the delivery PENDING) and moves
   * the delivery on: DELIVERED, PENDING again at nextAttemptAt, FAILED; GONE disables the endpoint
   * and every PENDING delivery of it, in the same transaction.
   */
  recordAttempt(input: RecordAttemptInput): Promise<RecordAttemptOutcome>;
  /** Newest first, each with every attempt (oldest first). */
  listDeliveries(webhookId: string, page: { readonly limit: number; readonly offset: number }): Promise<readonly DeliveryWithAttempts[]>;
}
