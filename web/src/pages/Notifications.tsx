import { useState } from 'preact/hooks';
import { api } from '../api';
import { errorText } from '../errors';
import { dateTime } from '../format';
import { useLoad } from '../hooks';
import { t, type MessageKey } from '../i18n';
import { refreshUnread, type BuyerNotification, type NotificationPage } from '../notifications';
import { signInHref } from '../router';
import { session } from '../session';
import { showTitles } from '../show-titles';

const titles: Record<BuyerNotification['kind'], MessageKey> = {
  ORDER_CONFIRMED: 'notifyOrderConfirmed',
  REFUND_COMPLETED: 'notifyRefundCompleted',
  EXCHANGE_COMPLETED: 'notifyExchangeCompleted',
  WAITLIST_OFFERED: 'notifyWaitlistOffered',
  SHOW_CANCELLED: 'notifyShowCancelled',
};

const emailKeys: Record<string, MessageKey> = {
  SENT: 'notifyEmailSent', PENDING: 'notifyEmailPending', SENDING: 'notifyEmailPending', FAILED: 'notifyEmailFailed', NO_ADDRESS: 'notifyEmailNoAddress',
};

/** The show a notification is about, by name: its show's title, or the title the notification carries. */
const showTitleOf = (n: BuyerNotification, titles: ReadonlyMap<string, string>): string | null =>
  (n.showId === null ? null : titles.get(n.showId) ?? null) ?? (typeof n.data.title === 'string' ? n.data.title : null);

/** The buyer's notifications, newest first, and where emails about them go. */
export function Notifications() {
  const [page, setPage] = useState(0);
  const size = 20;
  const loaded = useLoad(async () => {
    if (session.value === null) return null;
    const body = await api<NotificationPage>(`/me/notifications?limit=${size}&offset=${page * size}`);
    if (body.unread > 0) {
      await api('/me/notifications/read', { method: 'POST' });
    }
    void refreshUnread();
    // Each notification names its show (issue 35 item 13), read once per show on the page.
    return { ...body, titles: await showTitles(body.notifications.map((n) => n.showId)) };
  }, [session.value?.token, page]);
  if (session.value === null) return <p><a href={signInHref()}>{t('navSignIn')}</a></p>;
  return (
    <section>
      <h1>{t('notificationsTitle')}</h1>
      <EmailForm />
      {loaded.error !== null && <p role="alert">{loaded.error}</p>}
      {loaded.error === null && loaded.data === null && <p role="status">{t('loading')}</p>}
      {loaded.data !== null && loaded.data.notifications.length === 0 && <p data-testid="no-notifications">{t('noNotifications')}</p>}
      {loaded.data !== null && (
        <ul class="cards" data-testid="notifications">
          {loaded.data.notifications.map((n) => (
            <li key={n.notificationId} class="card" data-testid="notification" data-kind={n.kind}>
              <h2>{n.readAt === null && <span class="badge">{t('notifyNew')}</span>} {t(titles[n.kind])}</h2>
              {showTitleOf(n, loaded.data!.titles) !== null && <p data-testid="notification-show"><strong>{showTitleOf(n, loaded.data!.titles)}</strong></p>}
              <p class="muted">{dateTime(n.createdAt)}{emailKeys[n.email.status] === undefined ? '' : ` · ${t(emailKeys[n.email.status] as MessageKey)}`}</p>
              {typeof n.data.reason === 'string' && <p>{t('notifyReason', { reason: n.data.reason })}</p>}
              {n.orderId !== null && <p><a href={`/orders/${encodeURIComponent(n.orderId)}`}>{t('notifyViewOrder')}</a></p>}
              {n.orderId === null && n.showId !== null && <p><a href={`/shows/${encodeURIComponent(n.showId)}`}>{t('notifyViewShow')}</a></p>}
            </li>
          ))}
        </ul>
      )}
      {loaded.data !== null && (page > 0 || loaded.data.more) && (
        <nav class="pager" aria-label={t('notificationsTitle')}>
          <button type="button" disabled={page === 0} onClick={() => setPage(page - 1)}>{t('pagePrevious')}</button>
          <button type="button" disabled={!loaded.data.more} onClick={() => setPage(page + 1)}>{t('pageNext')}</button>
        </nav>
      )}
    </section>
  );
}

/** Where emails go (none until an address is given); the language follows the page's language. */
function EmailForm() {
  const prefs = useLoad(async () => api<{ email: string | null; language: string | null }>('/me/preferences'), [session.value?.token]);
  const [email, setEmail] = useState<string | null>(null);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const value = email ?? prefs.data?.email ?? '';
  const save = async (e: Event) => {
    e.preventDefault();
    setMessage(null);
    try {
      await api('/me/preferences', { method: 'PUT', body: { email: value.trim() === '' ? null : value.trim() } });
      setMessage({ ok: true, text: t('notifyEmailSaved') });
    } catch (error) {
      setMessage({ ok: false, text: errorText(error) });
    }
  };
  return (
    <form class="inline-form" onSubmit={save} data-testid="email-form" noValidate>
      <label>
        {t('notifyEmailLabel')}
        <input type="email" value={value} maxLength={254} autoComplete="email" onInput={(e) => setEmail((e.target as HTMLInputElement).value)} />
      </label>
      <button type="submit">{t('save')}</button>
      {message !== null && <p role={message.ok ? 'status' : 'alert'} data-testid="email-result">{message.text}</p>}
    </form>
  );
}
