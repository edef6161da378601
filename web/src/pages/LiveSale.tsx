import { useEffect, useRef, useState } from 'preact/hooks';
import { api, type Show } from '../api';
import { money } from '../format';
import { t } from '../i18n';
import { role } from '../session';
import { LiveSeats } from '../seatmap/live-seats';
import { SeatMap } from '../seatmap/SeatMap';

interface Stats {
  readonly sold: number;
  readonly held: number;
  readonly available: number;
  readonly holdsPerMinute: number;
  readonly moneyTakenCents: number;
}

/** Figures refresh when the seat stream says something changed (at most once a second), and every 10 s for the per-minute rate. */
const refreshMinMs = 1000;
const refreshQuietMs = 10_000;

export function LiveSale({ showId }: { showId: string }) {
  const [seats, setSeats] = useState<LiveSeats | null>(null);
  const [stats, setStats] = useState<Stats | null>(null);
  const last = useRef(0);
  const pending = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  useEffect(() => {
    if (role.value !== 'ADMIN') return;
    let alive = true;
    let opened: LiveSeats | null = null;
    const refresh = () => {
      if (pending.current !== undefined) return;
      const wait = Math.max(0, last.current + refreshMinMs - Date.now());
      pending.current = setTimeout(() => {
        pending.current = undefined;
        last.current = Date.now();
        void api<Stats>(`/admin/shows/${encodeURIComponent(showId)}/stats`).then((s) => alive && setStats(s), () => undefined);
      }, wait);
    };
    refresh();
    const quiet = setInterval(refresh, refreshQuietMs);
    let unsubscribe = () => {};
    void LiveSeats.open(showId, api<Show>(`/shows/${encodeURIComponent(showId)}`)).then((s) => {
      opened = s;
      if (!alive) return s.close();
      unsubscribe = s.subscribe(refresh);
      setSeats(s);
    });
    return () => {
      alive = false;
      clearInterval(quiet);
      clearTimeout(pending.current);
      unsubscribe();
      opened?.close();
    };
  }, [showId]);

  if (role.value !== 'ADMIN') return <p role="alert">{t('needAdmin')}</p>;
  const stat = (key: string, label: string, value: string) => (
    <div class="stat" data-testid={`stat-${key}`}><dt>{label}</dt><dd>{value}</dd></div>
  );
  return (
    <section>
      <h1>{t('liveSale')}{seats !== null ? `: ${seats.show.title}` : ''}</h1>
      <p><a href={`/admin/shows/${encodeURIComponent(showId)}/attendees`} data-testid="attendees-link">{t('attendeesLink')}</a></p>
      {stats === null ? <p role="status">{t('loading')}</p> : (
        <dl class="stats" aria-live="polite">
          {stat('sold', t('statSold'), String(stats.sold))}
          {stat('held', t('statHeld'), String(stats.held))}
          {stat('available', t('statAvailable'), String(stats.available))}
          {stat('hpm', t('statHoldsPerMinute'), String(stats.holdsPerMinute))}
          {stat('money', t('statMoney'), money(stats.moneyTakenCents))}
        </dl>
      )}
      {seats !== null && seats.layout.seatIds.length > 0 && <SeatMap layout={seats.layout} statuses={() => seats.statuses} subscribe={seats.subscribe} />}
    </section>
  );
}
