import { signal } from '@preact/signals';
import { api } from './api';
import { lang } from './i18n';
import { session } from './session';

export type NotificationKind = 'ORDER_CONFIRMED' | 'REFUND_COMPLETED' | 'EXCHANGE_COMPLETED' | 'WAITLIST_OFFERED' | 'SHOW_CANCELLED';

export interface BuyerNotification {
  readonly notificationId: string;
  readonly kind: NotificationKind;
  readonly showId: string | null;
  readonly orderId: string | null;
  readonly data: Readonly<Record<string, unknown>>;
  readonly createdAt: string;
  readonly readAt: string | null;
  readonly email: { readonly status: string; readonly sentAt: string | null };
}

export interface NotificationPage {
  readonly notifications: readonly BuyerNotification[];
  readonly unread: number;
  readonly more: boolean;
}

/** Unread notifications of the signed-in buyer (the header's badge); refreshed on navigation and by the page. */
export const unread = signal(0);

export async function refreshUnread(): Promise<void> {
  if (session.value === null) {
    unread.value = 0;
    return;
  }
  try {
    unread.value = (await api<NotificationPage>('/me/notifications?limit=1')).unread;
  } catch {
    // The badge is a hint: a failed refresh keeps the last count.
  }
}

/** The server words emails in the buyer's language: tell it the language chosen here (signed in only). */
export async function syncLanguage(): Promise<void> {
  if (session.value === null) return;
  await api('/me/preferences', { method: 'PUT', body: { language: lang.value } }).catch(() => undefined);
}
