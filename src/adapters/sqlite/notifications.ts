import type { Database as Db } from 'better-sqlite3';
import type {
  EmailStatus, LeasedEmail, Notification, NotificationKind, NotificationStore, PreferredLanguage, RecordEmailAttemptOutcome, UserPreferences,
} from '../../ports/engine/index.js';
import type { GroupCommit } from './group-commit.js';

interface NotificationRow {
  notification_id: string; user_id: string; kind: NotificationKind; event_id: string; show_id: string | null; order_id: string | null; data: string;
  created_at: number; read_at: number | null; email_status: EmailStatus; email_attempts: number; email_next_attempt_at: number | null;
  email_sent_at: number | null; email_last_error: string | null;
}
interface PreferencesRow { user_id: string; language: PreferredLanguage | null; email: string | null; updated_at: number }

const toNotification = (r: NotificationRow): Notification => ({
  notificationId: r.notification_id, userId: r.user_id, kind: r.kind, eventId: r.event_id, showId: r.show_id, orderId: r.order_id,
  data: JSON.parse(r.data) as Record<string, unknown>, createdAt: r.created_at, readAt: r.read_at, emailStatus: r.email_status,
  emailAttempts: r.email_attempts, emailNextAttemptAt: r.email_next_attempt_at, emailSentAt: r.email_sent_at, emailLastError: r.email_last_error,
});
const toPreferences = (r: PreferencesRow): UserPreferences => ({ userId: r.user_id, language: r.language, email: r.email, updatedAt: r.updated_at });

/** Buyer notifications on SQLite: every write one group-commit unit, under the database's one write lock. */
export function sqliteNotifications(db: Db, gc: GroupCommit): NotificationStore {
  const q = {
    // The unique (event_id, user_id, kind) index makes a redelivered event no second row.
    insert: db.prepare(`INSERT INTO notifications (notification_id, user_id, kind, event_id, show_id, order_id, data, created_at, email_status, email_next_attempt_at)
      VALUES (@notificationId, @userId, @kind, @eventId, @showId, @orderId, @data, @now, @status, @next)
      ON CONFLICT (event_id, user_id, kind) DO NOTHING`),
    list: db.prepare('SELECT * FROM notifications WHERE user_id = ? ORDER BY created_at DESC, notification_id DESC LIMIT ? OFFSET ?'),
    unread: db.prepare('SELECT count(*) AS n FROM notifications WHERE user_id = ? AND read_at IS NULL'),
    markRead: db.prepare('UPDATE notifications SET read_at = ? WHERE user_id = ? AND read_at IS NULL'),
    get: db.prepare('SELECT * FROM notifications WHERE notification_id = ?'),
    // PENDING and due, or SENDING whose lease ran out (its sender died): moved to SENDING for
    // this sender alone; the attempts count pins the attempt a job was enqueued for.
    lease: db.prepare(`UPDATE notifications SET email_status = 'SENDING', email_next_attempt_at = @until
      WHERE notification_id = @notificationId AND email_status IN ('PENDING','SENDING') AND email_next_attempt_at <= @now
        AND (@attempts IS NULL OR email_attempts = @attempts) RETURNING *`),
    due: db.prepare(`SELECT notification_id FROM notifications WHERE email_status IN ('PENDING','SENDING') AND email_next_attempt_at <= ?
      ORDER BY email_next_attempt_at, notification_id LIMIT ?`),
    record: db.prepare(`UPDATE notifications SET email_status = @status, email_attempts = @attempt, email_next_attempt_at = @next,
        email_sent_at = CASE WHEN @status = 'SENT' THEN @now ELSE email_sent_at END, email_last_error = @error
      WHERE notification_id = @notificationId AND email_status = 'SENDING' AND email_attempts = @attempt - 1 RETURNING *`),
    buyers: db.prepare(`SELECT DISTINCT user_id FROM orders WHERE show_id = ? AND user_id > ? AND status IN ('PAID','TICKETED','REFUND_PENDING','REFUNDED')
      ORDER BY user_id LIMIT ?`),
    preferences: db.prepare('SELECT * FROM user_preferences WHERE user_id = ?'),
    upsertPreferences: db.prepare(`INSERT INTO user_preferences (user_id, language, email, updated_at) VALUES (@userId, @language, @email, @now)
      ON CONFLICT (user_id) DO UPDATE SET language = CASE WHEN @setLanguage THEN @language ELSE language END,
        email = CASE WHEN @setEmail THEN @email ELSE email END, updated_at = @now RETURNING *`),
  };
  const lease = (notificationId: string, attempts: number | null, now: number, leaseMs: number): LeasedEmail | null => {
    const row = q.lease.get({ notificationId, attempts, now, until: now + leaseMs }) as NotificationRow | undefined;
    if (row === undefined) return null;
    const prefs = q.preferences.get(row.user_id) as PreferencesRow | undefined;
    return { notification: toNotification(row), email: prefs?.email ?? null, language: prefs?.language ?? null };
  };
  return {
    recordNotifications: (rows) => gc.write('recordNotifications', () =>
      rows.filter((r) => q.insert.run({
        notificationId: r.notificationId, userId: r.userId, kind: r.kind, eventId: r.eventId, showId: r.showId, orderId: r.orderId,
        data: JSON.stringify(r.data), now: r.now, status: r.email ? 'PENDING' : 'NONE', next: r.email ? r.now : null,
      }).changes === 1).map((r) => r.notificationId)),
    listNotifications: async (userId, { limit, offset }) => (q.list.all(userId, limit, offset) as NotificationRow[]).map(toNotification),
    countUnreadNotifications: async (userId) => (q.unread.get(userId) as { n: number }).n,
    markNotificationsRead: (userId, now) => gc.write('markNotificationsRead', () => q.markRead.run(now, userId).changes),
    getNotification: async (notificationId) => {
      const row = q.get.get(notificationId) as NotificationRow | undefined;
      return row === undefined ? null : toNotification(row);
    },
    leaseNotificationEmail: ({ notificationId, attempts, now, leaseMs }) => gc.write('leaseNotificationEmail', () => lease(notificationId, attempts, now, leaseMs)),
    leaseDueEmails: ({ now, leaseMs, limit }) => gc.write('leaseDueEmails', () =>
      (q.due.all(now, limit) as { notification_id: string }[])
        .map((r) => lease(r.notification_id, null, now, leaseMs))
        .filter((l): l is LeasedEmail => l !== null)),
    recordEmailAttempt: (input) => gc.write('recordEmailAttempt', (): RecordEmailAttemptOutcome => {
      const status: EmailStatus = input.outcome === 'RETRY' ? 'PENDING' : input.outcome;
      const row = q.record.get({
        notificationId: input.notificationId, attempt: input.attempt, status, next: status === 'PENDING' ? input.nextAttemptAt : null, now: input.now, error: input.error,
      }) as NotificationRow | undefined;
      return row === undefined ? { ok: false, stale: true } : { ok: true, notification: toNotification(row) };
    }),
    paidBuyersOfShow: async (showId, afterUserId, limit) => (q.buyers.all(showId, afterUserId ?? '', limit) as { user_id: string }[]).map((r) => r.user_id),
    getUserPreferences: async (userId) => {
      const row = q.preferences.get(userId) as PreferencesRow | undefined;
      return row === undefined ? null : toPreferences(row);
    },
    setUserPreferences: (input) => gc.write('setUserPreferences', () => toPreferences(q.upsertPreferences.get({
      userId: input.userId, language: input.language ?? null, email: input.email ?? null, now: input.now,
      setLanguage: input.language === undefined ? 0 : 1, setEmail: input.email === undefined ? 0 : 1,
    }) as PreferencesRow)),
  };
}
