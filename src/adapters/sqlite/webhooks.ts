import type { Database as Db } from 'better-sqlite3';
import type {
  DeliveryWithAttempts, DueDelivery, InsertWebhookOutcome, OutboxEventType, RecordAttemptOutcome, Webhook, WebhookAttempt, WebhookDelivery, WebhookStore,
} from '../../ports/engine/index.js';
import { sqliteChangeLogWriter } from './change-log.js';
import type { GroupCommit } from './group-commit.js';

interface WebhookRow {
  webhook_id: string; url: string; events: string; secret: string; status: Webhook['status']; created_at: number; disabled_reason: string | null;
}
interface DeliveryRow {
  delivery_id: string; webhook_id: string; event_id: string; type: OutboxEventType; body: string; attempts: number; status: WebhookDelivery['status'];
  next_attempt_at: number | null; last_status_code: number | null; last_duration_ms: number | null; last_error: string | null; created_at: number; updated_at: number;
}
interface AttemptRow {
  delivery_id: string; attempt: number; at: number; status_code: number | null; duration_ms: number; error: string | null; outcome: WebhookAttempt['outcome']; next_attempt_at: number | null;
}

const toWebhook = (r: WebhookRow): Webhook => ({
  webhookId: r.webhook_id, url: r.url, events: JSON.parse(r.events) as OutboxEventType[], secret: r.secret, status: r.status, createdAt: r.created_at, disabledReason: r.disabled_reason,
});
const toDelivery = (r: DeliveryRow): WebhookDelivery => ({
  deliveryId: r.delivery_id, webhookId: r.webhook_id, eventId: r.event_id, type: r.type, body: r.body, attempts: r.attempts, status: r.status,
  nextAttemptAt: r.next_attempt_at, lastStatusCode: r.last_status_code, lastDurationMs: r.last_duration_ms, lastError: r.last_error, createdAt: r.created_at, updatedAt: r.updated_at,
});
const toAttempt = (r: AttemptRow): WebhookAttempt => ({
  deliveryId: r.delivery_id, attempt: r.attempt, at: r.at, statusCode: r.status_code, durationMs: r.duration_ms, error: r.error, outcome: r.outcome, nextAttemptAt: r.next_attempt_at,
});

/**
 * Webhooks on SQLite. Every write is one group-commit unit, and the unit holds the database's only
 * write lock, so a lease or an attempt decided in it cannot interleave with another's.
 */
export function sqliteWebhooks(db: Db, gc: GroupCommit): WebhookStore {
  const auditLog = sqliteChangeLogWriter(db);
  const q = {
    // Counted in the same statement, under the unit's write lock: never more than the cap.
    insert: db.prepare(`INSERT INTO webhooks (webhook_id, url, events, secret, status, created_at, disabled_reason)
      SELECT ?, ?, ?, ?, ?, ?, ? WHERE (SELECT count(*) FROM webhooks) < ?`),
    get: db.prepare('SELECT * FROM webhooks WHERE webhook_id = ?'),
    list: db.prepare('SELECT * FROM webhooks ORDER BY created_at, webhook_id LIMIT ? OFFSET ?'),
    active: db.prepare("SELECT * FROM webhooks WHERE status = 'ACTIVE' ORDER BY created_at, webhook_id"),
    remove: db.prepare('DELETE FROM webhooks WHERE webhook_id = ?'),
    // The unique (webhook_id, event_id) index turns a second delivery of an event into no row;
    // the SELECT skips an endpoint disabled or removed since the sink read it.
    addDelivery: db.prepare(`INSERT INTO webhook_deliveries (delivery_id, webhook_id, event_id, type, body, attempts, status, next_attempt_at, created_at, updated_at)
      SELECT @deliveryId, webhook_id, @eventId, @type, @body, 0, 'PENDING', @now, @now, @now FROM webhooks WHERE webhook_id = @webhookId AND status = 'ACTIVE'
      ON CONFLICT (webhook_id, event_id) DO NOTHING`),
    due: db.prepare(`SELECT d.delivery_id FROM webhook_deliveries d
      WHERE d.status = 'PENDING' AND d.next_attempt_at <= ? ORDER BY d.next_attempt_at, d.delivery_id LIMIT ?`),
    lease: db.prepare(`UPDATE webhook_deliveries SET next_attempt_at = @until
      WHERE delivery_id = @deliveryId AND status = 'PENDING' AND next_attempt_at <= @now AND (@attempts IS NULL OR attempts = @attempts) RETURNING *`),
    webhookOf: db.prepare('SELECT url, secret FROM webhooks WHERE webhook_id = ?'),
    advance: db.prepare(`UPDATE webhook_deliveries SET attempts = @attempt, status = @status, next_attempt_at = @next,
      last_status_code = @statusCode, last_duration_ms = @durationMs, last_error = @error, updated_at = @now
      WHERE delivery_id = @deliveryId AND status = 'PENDING' AND attempts = @attempt - 1 RETURNING *`),
    addAttempt: db.prepare(`INSERT INTO webhook_attempts (delivery_id, attempt, at, status_code, duration_ms, error, outcome, next_attempt_at)
      VALUES (@deliveryId, @attempt, @now, @statusCode, @durationMs, @error, @outcome, @nextAttemptAt)`),
    disable: db.prepare("UPDATE webhooks SET status = 'DISABLED', disabled_reason = ? WHERE webhook_id = ? AND status = 'ACTIVE'"),
    stopPending: db.prepare("UPDATE webhook_deliveries SET status = 'DISABLED', next_attempt_at = NULL, updated_at = ? WHERE webhook_id = ? AND status = 'PENDING'"),
    deliveries: db.prepare('SELECT * FROM webhook_deliveries WHERE webhook_id = ? ORDER BY created_at DESC, delivery_id DESC LIMIT ? OFFSET ?'),
    attempts: db.prepare('SELECT * FROM webhook_attempts WHERE delivery_id = ? ORDER BY attempt'),
  };
  const lease = (deliveryId: string, attempts: number | null, now: number, leaseMs: number): DueDelivery | null => {
    const row = q.lease.get({ deliveryId, attempts, now, until: now + leaseMs }) as DeliveryRow | undefined;
    if (row === undefined) return null;
    const hook = q.webhookOf.get(row.webhook_id) as { url: string; secret: string };
    return { delivery: toDelivery(row), url: hook.url, secret: hook.secret };
  };
  return {
    insertWebhook: (w, webhooksMax, audit) => gc.write('insertWebhook', (): InsertWebhookOutcome => {
      if (q.insert.run(w.webhookId, w.url, JSON.stringify(w.events), w.secret, w.status, w.createdAt, w.disabledReason, webhooksMax).changes !== 1) return { ok: false, code: 'WEBHOOK_LIMIT_REACHED' };
      auditLog.append(audit);
      return { ok: true };
    }),
    getWebhook: async (webhookId) => {
      const row = q.get.get(webhookId) as WebhookRow | undefined;
      return row === undefined ? null : toWebhook(row);
    },
    listWebhooks: async ({ limit, offset }) => (q.list.all(limit, offset) as WebhookRow[]).map(toWebhook),
    activeWebhooksFor: async (types) =>
      (q.active.all() as WebhookRow[]).map(toWebhook).filter((w) => w.events.some((e) => types.includes(e))),
    deleteWebhook: (webhookId, audit) => gc.write('deleteWebhook', () => {
      if (q.remove.run(webhookId).changes !== 1) return false;
      auditLog.append(audit);
      return true;
    }),
    recordDeliveries: (deliveries) => gc.write('recordDeliveries', () =>
      deliveries.filter((d) => q.addDelivery.run({ ...d }).changes === 1).map((d) => d.deliveryId)),
    leaseDueDeliveries: ({ now, leaseMs, limit }) => gc.write('leaseDueDeliveries', () =>
      (q.due.all(now, limit) as { delivery_id: string }[])
        .map((r) => lease(r.delivery_id, null, now, leaseMs))
        .filter((d): d is DueDelivery => d !== null)),
    leaseDelivery: ({ deliveryId, attempts, now, leaseMs }) => gc.write('leaseDelivery', () => lease(deliveryId, attempts, now, leaseMs)),
    recordAttempt: (input) => gc.write('recordAttempt', (): RecordAttemptOutcome => {
      const status = input.outcome === 'DELIVERED' ? 'DELIVERED' : input.outcome === 'RETRY' ? 'PENDING' : input.outcome === 'FAILED' ? 'FAILED' : 'DISABLED';
      const row = q.advance.get({
        deliveryId: input.deliveryId, attempt: input.attempt, status, next: status === 'PENDING' ? input.nextAttemptAt : null,
        statusCode: input.statusCode, durationMs: input.durationMs, error: input.error, now: input.now,
      }) as DeliveryRow | undefined;
      if (row === undefined) return { ok: false, stale: true };
      q.addAttempt.run({
        deliveryId: input.deliveryId, attempt: input.attempt, now: input.now, statusCode: input.statusCode, durationMs: input.durationMs,
        error: input.error, outcome: input.outcome, nextAttemptAt: input.outcome === 'RETRY' ? input.nextAttemptAt : null,
      });
      if (input.outcome === 'GONE') {
        q.disable.run(`the receiver answered ${input.statusCode ?? 410} Gone`, row.webhook_id);
        q.stopPending.run(input.now, row.webhook_id);
      }
      return { ok: true, delivery: toDelivery(row) };
    }),
    listDeliveries: async (webhookId, { limit, offset }): Promise<readonly DeliveryWithAttempts[]> =>
      (q.deliveries.all(webhookId, limit, offset) as DeliveryRow[]).map((r) => ({
        delivery: toDelivery(r),
        attempts: (q.attempts.all(r.delivery_id) as AttemptRow[]).map(toAttempt),
      })),
  };
}
