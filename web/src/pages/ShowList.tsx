import { api, type Show } from '../api';
import { dateTime, duration } from '../format';
import { useLoad, useTick } from '../hooks';
import { t } from '../i18n';

export function ShowList() {
  const shows = useLoad(async () => {
    const loadedAt = Date.now();
    const list = (await api<{ shows: Show[] }>('/shows?limit=100')).shows;
    // Countdowns run from the server's figures, not this device's clock. Seats left (and sold out)
    // matter for shows on sale only, so only those are asked for their counts.
    const detailed = await Promise.all(list.map((s) => (s.status === 'ON_SALE' ? api<Show>(`/shows/${encodeURIComponent(s.showId)}`).catch(() => s) : s)));
    return { loadedAt, shows: detailed };
  }, []);
  const now = useTick();
  if (shows.error !== null) return <p role="alert">{shows.error} <button type="button" onClick={shows.reload}>{t('retry')}</button></p>;
  if (shows.data === null) return <p role="status">{t('loading')}</p>;
  const { loadedAt } = shows.data;
  return (
    <section>
      <h1>{t('showsTitle')}</h1>
      {shows.data.shows.length === 0 && <p>{t('noShows')}</p>}
      <ul class="cards">
        {shows.data.shows.map((show) => {
          const left = show.secondsRemaining * 1000 - (now - loadedAt);
          const available = show.seatCounts?.AVAILABLE ?? show.capacity;
          const status = left <= 0 && show.status !== 'ENDED' ? (show.status === 'UPCOMING' ? 'ON_SALE' : 'ENDED') : show.status;
          const soldOut = status === 'ON_SALE' && available === 0;
          return (
            <li key={show.showId} class="card" data-testid="show-card">
              <h2><a href={`/shows/${show.showId}`} aria-label={t('viewShow', { title: show.title })}>{show.title}</a></h2>
              <p class="muted">{show.venue} · {show.city}</p>
              <p>{t('showStarts', { when: dateTime(show.startsAt) })}</p>
              <p>
                <span class={`badge badge-${soldOut ? 'soldout' : status.toLowerCase()}`}>
                  {soldOut ? t('statusSoldOut') : status === 'ON_SALE' ? t('statusOnSale') : status === 'UPCOMING' ? t('statusUpcoming') : t('statusEnded')}
                </span>{' '}
                {!soldOut && status === show.status && status === 'UPCOMING' && <span class="countdown">{t('saleOpensIn', { time: duration(left) })}</span>}
                {!soldOut && status === show.status && status === 'ON_SALE' && <span class="countdown">{t('saleClosesIn', { time: duration(left) })}</span>}
              </p>
              {show.seatCounts !== undefined && <p class="muted">{t('seatsLeft', { n: available, total: show.capacity })}</p>}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
