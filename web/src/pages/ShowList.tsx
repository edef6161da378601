import { api, isCounted, type SectionAvailability, type Show } from '../api';
import { dateTime, duration, money } from '../format';
import { useLoad, useTick } from '../hooks';
import { t } from '../i18n';

/** A listed show; `left` is what is left of all its sections (shows on sale). */
type Listed = Show & { readonly left?: number };

export function ShowList() {
  const shows = useLoad(async () => {
    const loadedAt = Date.now();
    const list = (await api<{ shows: Show[] }>('/shows?limit=100')).shows;
    // Countdowns run from the server's figures, not this device's clock. Seats left (and sold out)
    // matter for shows on sale only, so only those are asked for their counts.
    // What is left counts counted sections (general admission, sold by quantity) as well as free seats.
    const detailed = await Promise.all(list.map(async (s): Promise<Listed> => {
      // The list says what is left of a show the server has in memory: no second request then.
      if (typeof s.available === 'number') return { ...s, left: s.available };
      if (s.status !== 'ON_SALE') return s;
      const id = encodeURIComponent(s.showId);
      const [show, availability] = await Promise.all([
        api<Show>(`/shows/${id}`).catch(() => s),
        s.sections.some(isCounted) ? api<{ sections: SectionAvailability[] }>(`/shows/${id}/availability`).catch(() => null) : null,
      ]);
      if (availability === null) return show;
      return { ...show, left: availability.sections.reduce((n, a) => n + a.available, 0) };
    }));
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
          const available = show.left ?? show.seatCounts?.AVAILABLE ?? show.capacity;
          const known = show.left !== undefined || show.seatCounts !== undefined;
          const status = left <= 0 && show.status !== 'ENDED' ? (show.status === 'UPCOMING' ? 'ON_SALE' : 'ENDED') : show.status;
          const soldOut = status === 'ON_SALE' && available === 0;
          const lowest = show.sections.length === 0 ? null : Math.min(...show.sections.map((s) => s.priceCents));
          return (
            <li key={show.showId} class="card" data-testid="show-card">
              {show.imageUrl && <img class="card-image" src={show.imageUrl} alt={show.title} width={320} height={180} loading="lazy" decoding="async" />}
              <h2><a href={`/shows/${show.showId}`} aria-label={t('viewShow', { title: show.title })}>{show.title}</a></h2>
              <p class="muted">{show.venue} · {show.city}</p>
              <p>{t('showStarts', { when: dateTime(show.startsAt) })}</p>
              {lowest !== null && <p data-testid="lowest-price">{t('fromPrice', { price: money(lowest, show.currency) })}</p>}
              {show.description && <p class="card-description muted">{show.description}</p>}
              <p>
                <span class={`badge badge-${soldOut ? 'soldout' : status.toLowerCase()}`} data-testid="show-status">
                  {show.cancelled === true ? t('statusCancelled') : soldOut ? t('statusSoldOut') : status === 'ON_SALE' ? t('statusOnSale') : status === 'UPCOMING' ? t('statusUpcoming') : t('statusEnded')}
                </span>{' '}
                {!soldOut && status === show.status && status === 'UPCOMING' && <span class="countdown">{t('saleOpensIn', { time: duration(left) })}</span>}
                {!soldOut && status === show.status && status === 'ON_SALE' && <span class="countdown">{t('saleClosesIn', { time: duration(left) })}</span>}
              </p>
              {show.cancelled === true && show.cancelReason && <p data-testid="cancel-reason">{t('cancelledBecause', { reason: show.cancelReason })}</p>}
              {known && <p class="muted">{t(show.sections.some(isCounted) ? 'placesLeft' : 'seatsLeft', { n: available, total: show.capacity })}</p>}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
