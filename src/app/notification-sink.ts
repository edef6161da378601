import type { NewNotification, NotificationKind, OutboxEvent, OutboxEventType, OutboxSink, Store } from '../ports/engine/index.js';
import type { JobQueue } from '../ports/jobs.js';
import type { Clock } from '../ports/runtime.js';

/** Which outbox events tell a buyer something, and as what. */
export const notificationOf: Partial<Record<OutboxEventType, NotificationKind>> = {
  'tickets.issued': 'ORDER_CONFIRMED',
  'refund.completed': 'REFUND_COMPLETED',
  'exchange.completed': 'EXCHANGE_COMPLETED',
  'waitlist.offered': 'WAITLIST_OFFERED',
  'show.cancelled': 'SHOW_CANCELLED',
};

/** Buyers read per page of a cancelled show's fan-out, and pages at most (a bound on one delivery). */
export const cancelledBuyersPageMax = 500;
export const cancelledBuyersPagesMax = 2_000;

/**
 * An event older than this is listed but not mailed: a deployment that gains this sink reads the
 * retained outbox (days of it) from the start once, and buyers should not get days-old news by email.
 */
export const notificationEmailAgeMaxMs = 24 * 3_600_000;

export const notificationEmailKey = (notificationId: string, attempt: number): string => `notification-email:${notificationId}:${attempt}`;

export interface NotificationSinkDeps {
  readonly store: Pick<Store, 'recordNotifications' | 'paidBuyersOfShow' | 'getOrder'>;
  readonly clock: Clock;
  readonly newNotificationId: () => string;
  /** Whether emails are sent (TICKETRUSH_SMTP_URL set): rows are written PENDING, else NONE. */
  readonly email: boolean;
  /** The queue that runs notification-email jobs, when there is one; null: the due pass alone. */
  readonly jobs: JobQueue | null;
  /** Called once new rows with an email are stored (the due pass sends at once). */
  readonly wake: () => void;
  readonly onError: (what: string, error: unknown) => void;
}

const str = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 ? v : null);

/**
 * The outbox relay's notifications consumer (cursor `notifications`): one row per (event, buyer,
 * kind), the unique index making a redelivered page (or two processes relaying it) write nothing
 * twice; then a notification-email job per new row when email is on. Nothing is sent here. A
 * failure to store throws, so the relay redelivers the page (at least once).
 */
export function createNotificationSink(deps: NotificationSinkDeps): OutboxSink {
  /** The buyer an event is about: named in its payload, else the owner of the order it names. */
  const buyerOf = async (event: OutboxEvent): Promise<string | null> => {
    const named = str(event.data.userId);
    if (named !== null) return named;
    const orderId = str(event.data.orderId);
    return orderId === null ? null : (await deps.store.getOrder(orderId))?.userId ?? null;
  };
  const row = (event: OutboxEvent, kind: NotificationKind, userId: string, now: number): NewNotification => ({
    notificationId: deps.newNotificationId(), userId, kind, eventId: event.eventId, showId: event.showId ?? str(event.data.showId),
    orderId: str(event.data.orderId) ?? str(event.data.newOrderId), data: event.data, now, email: deps.email && now - event.createdAt <= notificationEmailAgeMaxMs,
  });
  return {
    name: 'notifications',
    async deliver(events) {
      const now = deps.clock.now();
      const created: string[] = [];
      for (const event of events) {
        const kind = notificationOf[event.type];
        if (kind === undefined) continue;
        if (kind === 'SHOW_CANCELLED') {
          const showId = event.showId ?? str(event.data.showId);
          if (showId === null) continue;
          // Every buyer who paid, a page at a time: each page is one insert, redelivery-safe.
          let after: string | null = null;
          for (let page = 0; page < cancelledBuyersPagesMax; page++) {
            const buyers = await deps.store.paidBuyersOfShow(showId, after, cancelledBuyersPageMax);
            if (buyers.length > 0) created.push(...await deps.store.recordNotifications(buyers.map((userId) => row(event, kind, userId, now))));
            if (buyers.length < cancelledBuyersPageMax) break;
            after = buyers[buyers.length - 1] as string;
          }
          continue;
        }
        const userId = await buyerOf(event);
        if (userId === null) continue;
        created.push(...await deps.store.recordNotifications([row(event, kind, userId, now)]));
      }
      if (created.length === 0 || !deps.email) return;
      // Rows written without an email (too old) get no job either: the job finds nothing to lease.
      if (deps.jobs !== null) {
        const jobs = deps.jobs;
        // A job lost here is not an email lost: the due pass leases whatever is due.
        await Promise.all(created.map((notificationId) => jobs.enqueue('notification-email', { notificationId, attempt: 1 }, { key: notificationEmailKey(notificationId, 1) })
          .catch((error: unknown) => deps.onError('enqueue notification-email', error))));
      }
      deps.wake();
    },
  };
}
