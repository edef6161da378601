import type pg from 'pg';
import type {
  DueDelivery, InsertWebhookOutcome, OutboxEventType, RecordAttemptOutcome, Webhook, WebhookAttempt, WebhookDelivery, WebhookStore,
} from '../../ports/engine/index.js';
import { appendAuditEntry } from './change-log.js';
import { unexpected, type PgDb } from './db.js';
import { Rollback } from './transaction.js';

interface WebhookRow {
  webhook_id: string; url: string; events: string[]; secret: string; status: Webhook['status']; created_at: string; disabled_reason: string | null;
}
interface DeliveryRow {
  delivery_id: string; webhook_id: string; event_id: string; type: OutboxEventType; body: string; attempts: number; status: WebhookDelivery['status'];
  next_attempt_at: string | null; last_status_code: number | null; last_duration_ms: number | null; last_error: string | null; created_at: string; updated_at: string;
}
interface AttemptRow {
  delivery_id: string; attempt: number; at: string; status_code: number | null; duration_ms: number; error: string | null; outcome: WebhookAttempt['outcome']; next_attempt_at: string | null;
}

// bigint columns arrive as strings (node-postgres keeps 64-bit integers exact); epoch ms fit a double.
const ms = (v: string | null): number | null => (v === null ? null : Number(v));
const toWebhook = (r: WebhookRow): Webhook => ({
  webhookId: r.webhook_id, url: r.url, events: r.events as OutboxEventType[], secret: r.secret, status: r.status, createdAt: Number(r.created_at), disabledReason: r.disabled_reason,
});
const toDelivery = (r: DeliveryRow): WebhookDelivery => ({
  deliveryId: r.delivery_id, webhookId: r.webhook_id, eventId: r.event_id, type: r.type, body: r.body, attempts: r.attempts, status: r.status,
  nextAttemptAt: ms(r.next_attempt_at), lastStatusCode: r.last_status_code, lastDurationMs: r.last_duration_ms, lastError: r.last_error,
  createdAt: Number(r.created_at), updatedAt: Number(r.updated_at),
});
const toAttempt = (r: AttemptRow): WebhookAttempt => ({
  deliveryId: r.delivery_id, attempt: r.attempt, at: Number(r.at), statusCode: r.status_code, durationMs: r.duration_ms, error: r.error, outcome: r.outcome,
  nextAttemptAt: ms(r.next_attempt_at),
});

type DueRow = DeliveryRow & { url: string; secret: string };
const toDue = (r: DueRow): DueDelivery => ({ delivery: toDelivery(r), url: r.url, secret: r.secret });

/**
 * Webhooks on PostgreSQL, on the checkout lane (background work, never the rush's connections).
 * Leases are one UPDATE over rows picked FOR UPDATE SKIP LOCKED: two processes leasing at once
 * take disjoint sets, and a lease taken is visible to the next picker as a later next_attempt_at.
 */
export function pgWebhooks(db: PgDb): WebhookStore {
  return {
    // Two admins adding the last endpoint at once must not both pass the count: the table lock
    // (SHARE ROW EXCLUSIVE conflicts with itself) makes the count and insert one step. Endpoints
    // are added rarely, so the lock costs nothing; the relay's reads take no conflicting lock.
    async insertWebhook(w, webhooksMax, audit) {
      const result = await db.tx('insertWebhook', async (c): Promise<InsertWebhookOutcome> => {
        await c.query('LOCK TABLE webhooks IN SHARE ROW EXCLUSIVE MODE');
        const inserted = await c.query(
          `INSERT INTO webhooks (webhook_id, url, events, secret, status, created_at, disabled_reason)
           SELECT $1, $2, $3, $4, $5, $6, $7 WHERE (SELECT count(*) FROM webhooks) < $8`,
          [w.webhookId, w.url, w.events, w.secret, w.status, w.createdAt, w.disabledReason, webhooksMax]);
        if (inserted.rowCount !== 1) return { ok: false, code: 'WEBHOOK_LIMIT_REACHED' };
        await appendAuditEntry(c, audit);
        return { ok: true };
      });
      return result.ok ? result.value : unexpected('insertWebhook', result);
    },
    async getWebhook(webhookId) {
      const { rows } = await db.query<WebhookRow>('SELECT * FROM webhooks WHERE webhook_id = $1', [webhookId]);
      return rows[0] === undefined ? null : toWebhook(rows[0]);
    },
    async listWebhooks({ limit, offset }) {
      const { rows } = await db.query<WebhookRow>('SELECT * FROM webhooks ORDER BY created_at, webhook_id COLLATE "C" LIMIT $1 OFFSET $2', [limit, offset]);
      return rows.map(toWebhook);
    },
    async activeWebhooksFor(types) {
      const { rows } = await db.query<WebhookRow>(
        "SELECT * FROM webhooks WHERE status = 'ACTIVE' AND events && $1::text[] ORDER BY created_at, webhook_id COLLATE \"C\"", [types]);
      return rows.map(toWebhook);
    },
    async deleteWebhook(webhookId, audit) {
      const result = await db.tx('deleteWebhook', async (c) => {
        const deleted = await c.query('DELETE FROM webhooks WHERE webhook_id = $1', [webhookId]);
        if (deleted.rowCount !== 1) return false;
        await appendAuditEntry(c, audit);
        return true;
      });
      return result.ok ? result.value : unexpected('deleteWebhook', result);
    },
    // One statement for the whole page: the unique (webhook_id, event_id) index makes a second
    // delivery of an event no row, whichever process inserts first; the join skips an endpoint
    // disabled or removed since the sink read it.
    async recordDeliveries(deliveries) {
      if (deliveries.length === 0) return [];
      const result = await db.statement('recordDeliveries', (c) => c.query<{ delivery_id: string }>(
        `INSERT INTO webhook_deliveries (delivery_id, webhook_id, event_id, type, body, attempts, status, next_attempt_at, created_at, updated_at)
         SELECT d.delivery_id, d.webhook_id, d.event_id, d.type, d.body, 0, 'PENDING', d.now, d.now, d.now
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[]) WITH ORDINALITY AS d(delivery_id, webhook_id, event_id, type, body, now, n)
         JOIN webhooks w ON w.webhook_id = d.webhook_id AND w.status = 'ACTIVE'
         ORDER BY d.n -- the first of two rows for one (endpoint, event) wins, as on SQLite
         ON CONFLICT (webhook_id, event_id) DO NOTHING
         RETURNING delivery_id`,
        [deliveries.map((d) => d.deliveryId), deliveries.map((d) => d.webhookId), deliveries.map((d) => d.eventId),
          deliveries.map((d) => d.type), deliveries.map((d) => d.body), deliveries.map((d) => d.now)]));
      if (!result.ok) return unexpected('recordDeliveries', result);
      const created = new Set(result.value.rows.map((r) => r.delivery_id));
      return deliveries.map((d) => d.deliveryId).filter((id) => created.has(id));
    },
    async leaseDueDeliveries({ now, leaseMs, limit }) {
      const result = await db.statement('leaseDueDeliveries', (c) => c.query<DueRow>(
        `WITH picked AS (
           SELECT delivery_id FROM webhook_deliveries WHERE status = 'PENDING' AND next_attempt_at <= $1
           ORDER BY next_attempt_at, delivery_id COLLATE "C" LIMIT $3 FOR UPDATE SKIP LOCKED
         )
         UPDATE webhook_deliveries d SET next_attempt_at = $1 + $2 FROM picked, webhooks w
         WHERE d.delivery_id = picked.delivery_id AND w.webhook_id = d.webhook_id
         RETURNING d.*, w.url, w.secret`, [now, leaseMs, limit]));
      return result.ok ? result.value.rows.map(toDue) : unexpected('leaseDueDeliveries', result);
    },
    async leaseDelivery({ deliveryId, attempts, now, leaseMs }) {
      const result = await db.statement('leaseDelivery', (c) => c.query<DueRow>(
        `UPDATE webhook_deliveries d SET next_attempt_at = $3 + $4 FROM webhooks w
         WHERE d.delivery_id = $1 AND d.status = 'PENDING' AND d.attempts = $2 AND d.next_attempt_at <= $3 AND w.webhook_id = d.webhook_id
         RETURNING d.*, w.url, w.secret`, [deliveryId, attempts, now, leaseMs]));
      if (!result.ok) return unexpected('leaseDelivery', result);
      return result.value.rows[0] === undefined ? null : toDue(result.value.rows[0]);
    },
    // READ COMMITTED is enough: the UPDATE's condition (PENDING, attempts = attempt - 1) is
    // re-checked on the newest row version after any wait, so of two senders recording the same
    // attempt exactly one moves the delivery on; the other rolls back and hears stale.
    async recordAttempt(input) {
      const status = input.outcome === 'DELIVERED' ? 'DELIVERED' : input.outcome === 'RETRY' ? 'PENDING' : input.outcome === 'FAILED' ? 'FAILED' : 'DISABLED';
      const result = await db.tx('recordAttempt', async (c: pg.PoolClient): Promise<RecordAttemptOutcome> => {
        const { rows } = await c.query<DeliveryRow>(
          `UPDATE webhook_deliveries SET attempts = $2, status = $3, next_attempt_at = $4, last_status_code = $5, last_duration_ms = $6, last_error = $7, updated_at = $8
           WHERE delivery_id = $1 AND status = 'PENDING' AND attempts = $2 - 1 RETURNING *`,
          [input.deliveryId, input.attempt, status, status === 'PENDING' ? input.nextAttemptAt : null, input.statusCode, input.durationMs, input.error, input.now]);
        const row = rows[0];
        if (row === undefined) throw new Rollback<RecordAttemptOutcome>({ ok: false, stale: true });
        await c.query(
          `INSERT INTO webhook_attempts (delivery_id, attempt, at, status_code, duration_ms, error, outcome, next_attempt_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
          [input.deliveryId, input.attempt, input.now, input.statusCode, input.durationMs, input.error, input.outcome, input.outcome === 'RETRY' ? input.nextAttemptAt : null]);
        if (input.outcome === 'GONE') {
          await c.query("UPDATE webhooks SET status = 'DISABLED', disabled_reason = $2 WHERE webhook_id = $1 AND status = 'ACTIVE'",
            [row.webhook_id, `the receiver answered ${input.statusCode ?? 410} Gone`]);
          await c.query("UPDATE webhook_deliveries SET status = 'DISABLED', next_attempt_at = NULL, updated_at = $2 WHERE webhook_id = $1 AND status = 'PENDING'",
            [row.webhook_id, input.now]);
        }
        return { ok: true, delivery: toDelivery(row) };
      });
      return result.ok ? result.value : unexpected('recordAttempt', result);
    },
    async listDeliveries(webhookId, { limit, offset }) {
      return db.read(async (c) => {
        const { rows } = await c.query<DeliveryRow>(
          'SELECT * FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY created_at DESC, delivery_id COLLATE "C" DESC LIMIT $2 OFFSET $3', [webhookId, limit, offset]);
        if (rows.length === 0) return [];
        const attempts = await c.query<AttemptRow>(
          'SELECT * FROM webhook_attempts WHERE delivery_id = ANY($1::text[]) ORDER BY attempt', [rows.map((r) => r.delivery_id)]);
        return rows.map((r) => ({
          delivery: toDelivery(r),
          attempts: attempts.rows.filter((a) => a.delivery_id === r.delivery_id).map(toAttempt),
        }));
      });
    },
  };
}
