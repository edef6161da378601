import type { Page } from './common.js';

/**
 * Buyer notifications (issue 25 item 7): one row per (outbox event, buyer, kind), written by the
 * outbox relay's notifications sink, listed to the buyer, and mailed when SMTP is configured.
 * Times are epoch milliseconds.
 */
export type NotificationKind = 'ORDER_CONFIRMED' | 'REFUND_COMPLETED' | 'EXCHANGE_COMPLETED' | 'WAITLIST_OFFERED' | 'SHOW_CANCELLED';

export const notificationKinds: readonly NotificationKind[] = ['ORDER_CONFIRMED', 'REFUND_COMPLETED', 'EXCHANGE_COMPLETED', 'WAITLIST_OFFERED', 'SHOW_CANCELLED'];

/**
 * The email of a notification. NONE: no email is to be sent (SMTP not configured when it was
 * written); PENDING: an attempt is due at nextAttemptAt; SENDING: leased to one sender until
 * nextAttemptAt; SENT; FAILED: attempts used up; NO_ADDRESS: the buyer has no email address.
 */
export type EmailStatus = 'NONE' | 'PENDING' | 'SENDING' | 'SENT' | 'FAILED' | 'NO_ADDRESS';

/** The buyer's choices that notifications need; both absent until the buyer sets them. */
export type PreferredLanguage = 'en' | 'zh-CN';
export const preferredLanguages: readonly PreferredLanguage[] = ['en', 'zh-CN'];

export interface UserPreferences {
  readonly userId: string;
  readonly language: PreferredLanguage | null;
  readonly email: string | null;
  readonly updatedAt: number;
}

export interface Notification {
  readonly notificationId: string;
  readonly userId: string;
  readonly kind: NotificationKind;
  /** The outbox event it came from (the de-duplication key with userId and kind). */
  readonly eventId: string;
  readonly showId: string | null;
  readonly orderId: string | null;
  /** The event's public payload, as the renderers and the web page need it. */
  readonly data: Readonly<Record<string, unknown>>;
  readonly createdAt: number;
  readonly readAt: number | null;
  readonly emailStatus: EmailStatus;
  /** Email attempts made so far. */
  readonly emailAttempts: number;
  readonly emailNextAttemptAt: number | null;
  readonly emailSentAt: number | null;
  readonly emailLastError: string | null;
}

export interface NewNotification {
  readonly notificationId: string;
  readonly userId: string;
  readonly kind: NotificationKind;
  readonly eventId: string;
  readonly showId: string | null;
  readonly orderId: string | null;
  readonly data: Readonly<Record<string, unknown>>;
  readonly now: number;
  /** Whether an email is to be sent (PENDING, first attempt due at `now`) or not (NONE). */
  readonly email: boolean;
}

/** A notification leased to one sender, with the address and language to send it in (as stored now). */
export interface LeasedEmail {
  readonly notification: Notification;
  readonly email: string | null;
  readonly language: PreferredLanguage | null;
}

/** SENT; RETRY: PENDING again at nextAttemptAt; FAILED: no more attempts; NO_ADDRESS: nothing to send to. */
export type EmailAttemptOutcome = 'SENT' | 'RETRY' | 'FAILED' | 'NO_ADDRESS';

export interface RecordEmailAttemptInput {
  readonly notificationId: string;
  /** 1 for the first attempt: recorded only while SENDING with attempt - 1 attempts made. */
  readonly attempt: number;
  readonly outcome: EmailAttemptOutcome;
  readonly nextAttemptAt: number | null;
  readonly error: string | null;
  readonly now: number;
}

export type RecordEmailAttemptOutcome = { readonly ok: true; readonly notification: Notification } | { readonly ok: false; readonly stale: true };

export interface NotificationStore {
  /**
   * Inserts each row unless one for the same (eventId, userId, kind) exists (a unique index): a
   * page the relay delivers again, or two processes relaying it, never makes a second one.
   * Answers the ids actually created.
   */
  recordNotifications(rows: readonly NewNotification[]): Promise<readonly string[]>;
  /** The buyer's own notifications, newest first. */
  listNotifications(userId: string, page: Page): Promise<readonly Notification[]>;
  countUnreadNotifications(userId: string): Promise<number>;
  /** Marks every unread notification of the buyer read at `now`; answers how many. */
  markNotificationsRead(userId: string, now: number): Promise<number>;
  getNotification(notificationId: string): Promise<Notification | null>;
  /**
   * Leases one notification's email to this sender: PENDING and due (or SENDING with its lease
   * run out), with `attempts` attempts made, moved to SENDING until `now + leaseMs` in one
   * conditional update; null otherwise (sent already, another sender has it, not due).
   */
  leaseNotificationEmail(input: { readonly notificationId: string; readonly attempts: number; readonly now: number; readonly leaseMs: number }): Promise<LeasedEmail | null>;
  /** Leases up to `limit` due emails at once (the sweep; SKIP LOCKED on PostgreSQL). */
  leaseDueEmails(input: { readonly now: number; readonly leaseMs: number; readonly limit: number }): Promise<readonly LeasedEmail[]>;
  /** Records attempt `attempt` of a SENDING email and moves it on; stale when it is not this attempt's any more. */
  recordEmailAttempt(input: RecordEmailAttemptInput): Promise<RecordEmailAttemptOutcome>;
  /**
   * Users with an order of the show that was paid (PAID, TICKETED, REFUND_PENDING, REFUNDED),
   * in user id order after `afterUserId`: the show-cancelled fan-out pages through them.
   */
  paidBuyersOfShow(showId: string, afterUserId: string | null, limit: number): Promise<readonly string[]>;
  getUserPreferences(userId: string): Promise<UserPreferences | null>;
  /** Sets the fields given (undefined: unchanged; null: cleared). */
  setUserPreferences(input: { readonly userId: string; readonly language?: PreferredLanguage | null; readonly email?: string | null; readonly now: number }): Promise<UserPreferences>;
}
