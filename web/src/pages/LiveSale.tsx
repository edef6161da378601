import { useEffect, useRef, useState } from 'preact/hooks';
import { api, type Show } from '../api';
import { CsvDownload } from '../CsvDownload';
import { money } from '../format';
import { t } from '../i18n';
import { role } from '../session';
import { LiveSeats } from '../seatmap/live-seats';
import { SeatMap } from '../seatmap/SeatMap';
import { CancelShowPanel } from './CancelShowPanel';
import { ShowEditForm } from './ShowEditForm';
import { SalePulseChart, type Pulse } from './SalePulseChart';
import { WaitingRoomPanel } from './WaitingRoomPanel';

interface Figures {
  readonly capacity: number;
  readonly sold: number;
  readonly held: number;
  readonly available: number;
  readonly moneyTakenCents: number;
}

interface SectionFigures extends Figures {
  readonly id: string;
  readonly name: string;
  readonly kind: 'SEATED' | 'GENERAL_ADMISSION';
  readonly counted: boolean;
}

interface Stats extends Figures {
  readonly currency: string;
  readonly holdsPerMinute: number;
  readonly sections: readonly SectionFigures[];
  readonly pulse: Pulse;
}

/** Figures refresh when the seat stream says something changed (at most once a second), and every 5 s for the rates and the chart (refusals change no seat). */
const refreshMinMs = 1000;
const refreshQuietMs = 5_000;

export function LiveSale({ showId }: { showId: string }) {
  const [seats, setSeats] = useState<LiveSeats | null>(null);
  const [show, setShow] = useState<Show | null>(null);
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
      setShow(s.show);
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
  const kindOf = (s: SectionFigures) => (s.kind === 'GENERAL_ADMISSION' ? t('kindGa') : s.counted ? t('kindQuantity') : t('kindSeat'));
  return (
    <section>
      <h1>{t('liveSale')}{show !== null ? `: ${show.title}` : ''}</h1>
      <p class="row"><a href="/admin">{t('organizerTitle')}</a> <a href={`/admin/shows/${encodeURIComponent(showId)}/attendees`} data-testid="attendees-link">{t('attendeesLink')}</a></p>
      <WaitingRoomPanel activityId={showId} />
      <p class="row">
        <CsvDownload path={`/admin/shows/${encodeURIComponent(showId)}/orders.csv`} filename={`show-${showId}-orders.csv`} label={t('downloadOrders')} testId="download-orders" />
        <CsvDownload path={`/admin/shows/${encodeURIComponent(showId)}/tickets.csv`} filename={`show-${showId}-tickets.csv`} label={t('downloadTickets')} testId="download-tickets" />
      </p>
      {stats === null ? <p role="status">{t('loading')}</p> : (
        <>
          <dl class="stats" aria-live="polite">
            {stat('sold', t('statSold'), String(stats.sold))}
            {stat('held', t('statHeld'), String(stats.held))}
            {stat('available', t('statAvailable'), String(stats.available))}
            {stat('hpm', t('statHoldsPerMinute'), String(stats.holdsPerMinute))}
            {stat('money', t('statMoney'), money(stats.moneyTakenCents, stats.currency))}
          </dl>
          <SalePulseChart pulse={stats.pulse} />
          <h2>{t('bySection')}</h2>
          <div class="table-scroll" tabIndex={0} role="region" aria-label={t('bySection')}>
            <table class="section-stats" data-testid="section-stats">
              <thead>
                <tr>
                  <th scope="col">{t('statSection')}</th><th scope="col">{t('sectionKind')}</th><th scope="col" class="num">{t('statCapacity')}</th>
                  <th scope="col" class="num">{t('statSold')}</th><th scope="col" class="num">{t('statHeld')}</th><th scope="col" class="num">{t('statAvailable')}</th>
                  <th scope="col" class="num">{t('statMoney')}</th>
                </tr>
              </thead>
              <tbody>
                {stats.sections.map((s) => (
                  <tr key={s.id} data-testid={`section-stats-${s.id}`}>
                    <th scope="row">{s.name}</th><td>{kindOf(s)}</td><td class="num">{s.capacity}</td>
                    <td class="num" data-testid={`section-sold-${s.id}`}>{s.sold}</td><td class="num">{s.held}</td><td class="num">{s.available}</td>
                    <td class="num" data-testid={`section-money-${s.id}`}>{money(s.moneyTakenCents, stats.currency)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
      {show !== null && <ShowEditForm key={`${show.showId}`} show={show} onSaved={setShow} />}
      {show !== null && <CancelShowPanel key={`cancel-${show.showId}`} show={show} />}
      {seats !== null && seats.layout.seatIds.length > 0 && <SeatMap layout={seats.layout} statuses={() => seats.statuses} subscribe={seats.subscribe} />}
    </section>
  );
}
