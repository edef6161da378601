import { api, type Show } from '../api';
import { dateTime } from '../format';
import { useLoad } from '../hooks';
import { t } from '../i18n';
import { role } from '../session';

export function Organizer() {
  const shows = useLoad(() => api<{ shows: Show[] }>('/shows?limit=100'), []);
  if (role.value !== 'ADMIN') return <p role="alert">{t('needAdmin')}</p>;
  return (
    <section>
      <h1>{t('organizerTitle')}</h1>
      <p class="row">
        <a class="button primary" href="/admin/new">{t('newShow')}</a>
        <a class="button" href="/admin/users" data-testid="manage-users">{t('manageUsers')}</a>
        <a class="button" href="/admin/audit-log" data-testid="audit-log-link">{t('auditOpen')}</a>
        <a class="button" href="/admin/campaigns" data-testid="manage-campaigns">{t('manageCampaigns')}</a>
        <a class="button" href="/admin/code-pools/new" data-testid="new-code-pool">{t('newCodePool')}</a>
        <a class="button" href="/admin/discounts" data-testid="manage-discounts">{t('discountsTitle')}</a>
        <a class="button" href="/admin/blocklist" data-testid="manage-blocklist">{t('blocklistTitle')}</a>
      </p>
      <h2>{t('yourShows')}</h2>
      {shows.error !== null && <p role="alert">{shows.error}</p>}
      {shows.data === null ? <p role="status">{t('loading')}</p> : (
        <ul class="cards" data-testid="organizer-shows">
          {shows.data.shows.map((s) => (
            <li key={s.showId} class="card">
              <h3><a href={`/admin/shows/${s.showId}`} aria-label={t('openLive', { title: s.title })}>{s.title}</a></h3>
              <p class="muted">{s.venue} · {s.city}</p>
              <p class="muted">{dateTime(s.startsAt)}</p>
              <p class="muted" data-testid="organizer-capacity">{t('organizerCapacity', { n: s.capacity })}</p>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
