import { useState } from 'preact/hooks';
import { activityHref, api, type Activity, type ActivityStatus } from '../api';
import { duration } from '../format';
import { useLoad, useTick } from '../hooks';
import { t } from '../i18n';

const statusText = (s: ActivityStatus): string =>
  s === 'ON_SALE' ? t('statusOnSale') : s === 'UPCOMING' ? t('statusUpcoming') : s === 'OFFLINE' ? t('statusOffline')
    : s === 'SOLD_OUT' ? t('statusSoldOut') : s === 'CANCELLED' ? t('statusCancelled') : t('statusEnded');
/** The badge's colour class: sold out as on the home page, offline and cancelled as ended. */
const badgeClass = (s: ActivityStatus): string =>
  s === 'SOLD_OUT' ? 'badge-soldout' : s === 'OFFLINE' || s === 'CANCELLED' ? 'badge-ended' : `badge-${s.toLowerCase()}`;

/**
 * Shows and campaigns together (seed 001 §秒杀 3-4): on sale first, then upcoming, each with a
 * countdown the server computed, run on from the moment the list arrived (never this device's clock).
 */
export function Activities() {
  const [withEnded, setWithEnded] = useState(false);
  const list = useLoad(async () => {
    const loadedAt = Date.now();
    const { activities } = await api<{ activities: Activity[] }>(`/activities?limit=100${withEnded ? '&include=ended' : ''}`);
    return { loadedAt, activities };
  }, [withEnded]);
  const now = useTick();
  if (list.error !== null) return <p role="alert">{list.error} <button type="button" onClick={list.reload}>{t('retry')}</button></p>;
  return (
    <section>
      <h1>{t('activitiesTitle')}</h1>
      <p>
        <label>
          <input type="checkbox" checked={withEnded} onChange={(e) => setWithEnded((e.target as HTMLInputElement).checked)} data-testid="with-ended" />{' '}
          {t('showEndedActivities')}
        </label>
      </p>
      {list.data === null ? <p role="status">{t('loading')}</p> : (
        <>
          {list.data.activities.length === 0 && <p>{t('noActivities')}</p>}
          <ul class="cards">
            {list.data.activities.map((a) => {
              const passed = Math.max(0, now - list.data!.loadedAt);
              const toStart = a.secondsToStart * 1000 - passed;
              const toEnd = a.secondsToEnd * 1000 - passed;
              // The countdown reaching zero moves the card on without a reload.
              const status: ActivityStatus = a.status === 'UPCOMING' && toStart <= 0 ? (toEnd > 0 ? 'ON_SALE' : 'ENDED') : (a.status === 'ON_SALE' || a.status === 'SOLD_OUT') && toEnd <= 0 ? 'ENDED' : a.status;
              return (
                <li key={a.activityId} class="card" data-testid="activity-card" data-kind={a.kind}>
                  {a.imageUrl && <img class="card-image" src={a.imageUrl} alt={a.title} width={320} height={180} loading="lazy" decoding="async" />}
                  <p class="muted">{t(`kind${a.kind}` as const)}</p>
                  <h2><a href={activityHref(a)} aria-label={t('viewActivity', { title: a.title })}>{a.title}</a></h2>
                  <p>
                    <span class={`badge ${badgeClass(status)}`} data-testid="activity-status">{statusText(status)}</span>{' '}
                    {status === 'UPCOMING' && <span class="countdown" data-testid="countdown">{t('saleOpensIn', { time: duration(toStart) })}</span>}
                    {status === 'ON_SALE' && <span class="countdown" data-testid="countdown">{t('saleClosesIn', { time: duration(toEnd) })}</span>}
                  </p>
                  {status === 'CANCELLED' && a.cancelReason && <p data-testid="cancel-reason">{t('cancelledBecause', { reason: a.cancelReason })}</p>}
                </li>
              );
            })}
          </ul>
        </>
      )}
    </section>
  );
}
