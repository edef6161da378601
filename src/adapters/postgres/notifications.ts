import type {
  EmailStatus, LeasedEmail, Notification, NotificationKind, NotificationStore, PreferredLanguage, RecordEmailAttemptOutcome, UserPreferences,
} from '../../ports/engine/index.js';
import { unexpected, type PgDb } from './db.js';

interface NotificationRow {
  notification_id: string; user_id: string; kind: NotificationKind; event_id: string; show_id: string | null; order_id: string | null; data: Record<string, unknown>;
  created_at: string; read_at: string | null; email_status: EmailStatus; email_attempts: number; email_next_attempt_at: string | null;
  email_sent_at: string | null; email_last_error: string | null;
}
interface PreferencesRow { user_id: string; language: PreferredLanguage | null; email: string | null; updated_at: string }
type LeasedRow = NotificationRow & { pref_email: string | null; pref_language: PreferredLanguage | null };

// bigint columns arrive as strings (node-postgres keeps 64-bit integers exact); epoch ms fit a double.
const ms = (v: string | null): number | null => (v === null ? null : Number(v));
const toNotification = (r: NotificationRow): Notification => ({
  notificationId: r.notification_id, userId: r.user_id, kind: r.kind, eventId: r.event_id, showId: r.show_id, orderId: r.order_id, data: r.data,
  createdAt: Number(r.created_at), readAt: ms(r.read_at), emailStatus: r.email_status, emailAttempts: r.email_attempts,
  emailNextAttemptAt: ms(r.email_next_attempt_at), emailSentAt: ms(r.email_sent_at), emailLastError: r.email_last_error,
});
const toLeased = (r: LeasedRow): LeasedEmail => ({ notification: toNotification(r), email: r.pref_email, language: r.pref_language });
const toPreferences = (r: PreferencesRow): UserPreferences => ({ userId: r.user_id, language: r.language, email: r.email, updatedAt: Number(r.updated_at) });

/** The lease's RETURNING: the row with the buyer's address and language as stored now. */
const leasedColumns = `n.*, (SELECT p.email FROM user_preferences p WHERE p.user_id = n.user_id) AS pref_email,
  (SELECT p.language FROM user_preferences p WHERE p.user_id = n.user_id) AS pref_language`;

/**
 * Buyer notifications on PostgreSQL, on the checkout lane (background work). A lease is one
 * conditional UPDATE, re-checked on the newest row version after any wait, so of two senders
 * (two processes, or a job retried while the first still runs) exactly one gets SENDING.
 */
export function pgNotifications(db: PgDb): NotificationStore {
  return {
    // One statement for the page; the unique (event_id, user_id, kind) index turns a redelivered
    // event into no row, whichever process inserts first.
    async recordNotifications(rows) {
      if (rows.length === 0) return [];
      const result = await db.statement('recordNotifications', (c) => c.query<{ notification_id: string }>(
        `INSERT INTO notifications (notification_id, user_id, kind, event_id, show_id, order_id, data, created_at, email_status, email_next_attempt_at)
         SELECT t.id, t.user_id, t.kind, t.event_id, t.show_id, t.order_id, t.data::jsonb, t.now,
           CASE WHEN t.email THEN 'PENDING' ELSE 'NONE' END, CASE WHEN t.email THEN t.now END
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::bigint[], $9::boolean[])
           WITH ORDINALITY AS t(id, user_id, kind, event_id, show_id, order_id, data, now, email, n)
         ORDER BY t.n
         ON CONFLICT (event_id, user_id, kind) DO NOTHING
         RETURNING notification_id`,
        [rows.map((r) => r.notificationId), rows.map((r) => r.userId), rows.map((r) => r.kind), rows.map((r) => r.eventId), rows.map((r) => r.showId),
          rows.map((r) => r.orderId), rows.map((r) => JSON.stringify(r.data)), rows.map((r) => r.now), rows.map((r) => r.email)]));
      if (!result.ok) return unexpected('recordNotifications', result);
      const created = new Set(result.value.rows.map((r) => r.notification_id));
      return rows.map((r) => r.notificationId).filter((id) => created.has(id));
    },
    async listNotifications(userId, { limit, offset }) {
      const { rows } = await db.query<NotificationRow>(
        'SELECT * FROM notifications WHERE user_id = $1 ORDER BY created_at DESC, notification_id COLLATE "C" DESC LIMIT $2 OFFSET $3', [userId, limit, offset]);
      return rows.map(toNotification);
    },
    async countUnreadNotifications(userId) {
      const { rows } = await db.query<{ n: string }>('SELECT count(*) AS n FROM notifications WHERE user_id = $1 AND read_at IS NULL', [userId]);
      return Number(rows[0]?.n ?? 0);
    },
    async markNotificationsRead(userId, now) {
      const result = await db.statement('markNotificationsRead', (c) => c.query('UPDATE notifications SET read_at = $2 WHERE user_id = $1 AND read_at IS NULL', [userId, now]));
      return result.ok ? result.value.rowCount ?? 0 : unexpected('markNotificationsRead', result);
    },
    async getNotification(notificationId) {
      const { rows } = await db.query<NotificationRow>('SELECT * FROM notifications WHERE notification_id = $1', [notificationId]);
      return rows[0] === undefined ? null : toNotification(rows[0]);
    },
    async leaseNotificationEmail({ notificationId, attempts, now, leaseMs }) {
      const result = await db.statement('leaseNotificationEmail', (c) => c.query<LeasedRow>(
        `UPDATE notifications n SET email_status = 'SENDING', email_next_attempt_at = $3::bigint + $4::bigint
         WHERE n.notification_id = $1 AND n.email_status IN ('PENDING','SENDING') AND n.email_next_attempt_at <= $3 AND n.email_attempts = $2
         RETURNING ${leasedColumns}`, [notificationId, attempts, now, leaseMs]));
      if (!result.ok) return unexpected('leaseNotificationEmail', result);
      return result.value.rows[0] === undefined ? null : toLeased(result.value.rows[0]);
    },
    async leaseDueEmails({ now, leaseMs, limit }) {
      const result = await db.statement('leaseDueEmails', (c) => c.query<LeasedRow>(
        `WITH picked AS (
           SELECT notification_id FROM notifications WHERE email_status IN ('PENDING','SENDING') AND email_next_attempt_at <= $1
           ORDER BY email_next_attempt_at, notification_id COLLATE "C" LIMIT $3 FOR UPDATE SKIP LOCKED
         )
         UPDATE notifications n SET email_status = 'SENDING', email_next_attempt_at = $1::bigint + $2::bigint FROM picked
         WHERE n.notification_id = picked.notification_id AND n.email_status IN ('PENDING','SENDING') AND n.email_next_attempt_at <= $1
         RETURNING ${leasedColumns}`, [now, leaseMs, limit]));
      return result.ok ? result.value.rows.map(toLeased) : unexpected('leaseDueEmails', result);
    },
    async recordEmailAttempt(input) {
      const status: EmailStatus = input.outcome === 'RETRY' ? 'PENDING' : input.outcome;
      const result = await db.statement('recordEmailAttempt', (c) => c.query<NotificationRow>(
        `UPDATE notifications SET email_status = $3, email_attempts = $2, email_next_attempt_at = $4,
           email_sent_at = CASE WHEN $3 = 'SENT' THEN $5::bigint ELSE email_sent_at END, email_last_error = $6
         WHERE notification_id = $1 AND email_status = 'SENDING' AND email_attempts = $2 - 1 RETURNING *`,
        [input.notificationId, input.attempt, status, status === 'PENDING' ? input.nextAttemptAt : null, input.now, input.error]));
      if (!result.ok) return unexpected('recordEmailAttempt', result);
      const row = result.value.rows[0];
      return row === undefined ? { ok: false, stale: true } satisfies RecordEmailAttemptOutcome : { ok: true, notification: toNotification(row) };
    },
    async paidBuyersOfShow(showId, afterUserId, limit) {
      const { rows } = await db.query<{ user_id: string }>(
        `SELECT DISTINCT user_id COLLATE "C" AS user_id FROM orders WHERE show_id = $1 AND user_id COLLATE "C" > $2
           AND status IN ('PAID','TICKETED','REFUND_PENDING','REFUNDED') ORDER BY 1 LIMIT $3`, [showId, afterUserId ?? '', limit]);
      return rows.map((r) => r.user_id);
    },
    async getUserPreferences(userId) {
      const { rows } = await db.query<PreferencesRow>('SELECT * FROM user_preferences WHERE user_id = $1', [userId]);
      return rows[0] === undefined ? null : toPreferences(rows[0]);
    },
    async setUserPreferences(input) {
      const result = await db.statement('setUserPreferences', (c) => c.query<PreferencesRow>(
        `INSERT INTO user_preferences (user_id, language, email, updated_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (user_id) DO UPDATE SET language = CASE WHEN $5 THEN EXCLUDED.language ELSE user_preferences.language END,
           email = CASE WHEN $6 THEN EXCLUDED.email ELSE user_preferences.email END, updated_at = EXCLUDED.updated_at
         RETURNING *`,
        [input.userId, input.language ?? null, input.email ?? null, input.now, input.language !== undefined, input.email !== undefined]));
      if (!result.ok) return unexpected('setUserPreferences', result);
      return toPreferences(result.value.rows[0] as PreferencesRow);
    },
  };
}
