import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, serverNow } from '../api';
import { saveAdmission } from '../admission';
import { errorText } from '../errors';
import { duration } from '../format';
import { useTick } from '../hooks';
import { t } from '../i18n';
import { nextPath, signInHref } from '../router';
import { session } from '../session';

type QueueState = 'WAITING' | 'ADMITTED' | 'EXPIRED' | 'LEFT' | 'BLOCKED' | 'SOLD_OUT';

interface Place {
  readonly queueId: string;
  readonly activityId: string;
  readonly state: QueueState;
  readonly position: number;
  readonly estimatedWaitSeconds: number | null;
  readonly admissionToken?: string;
  readonly admittedUntil?: string;
}

/** How often the page asks for its place (a GET; the server also offers it as server-sent events). */
const pollMs = 2_000;

const ended: Readonly<Record<string, 'queueExpired' | 'queueLeft' | 'queueBlocked' | 'queueSoldOut'>> = {
  EXPIRED: 'queueExpired', LEFT: 'queueLeft', BLOCKED: 'queueBlocked', SOLD_OUT: 'queueSoldOut',
};

/**
 * The waiting room (issue 24): the buyer's place in line, the estimated wait, a plain statement
 * that a place is not a reservation, and, once admitted, a countdown of the admission window and
 * the way on to the seat map (the token goes with every buying request of the activity).
 */
export function QueuePage({ activityId }: { activityId: string }) {
  useTick(1000);
  const [place, setPlace] = useState<Place | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [round, setRound] = useState(0);
  const back = nextPath() ?? `/shows/${encodeURIComponent(activityId)}`;
  const base = `/activities/${encodeURIComponent(activityId)}/queue`;

  useEffect(() => {
    if (session.value === null) return;
    let alive = true;
    let queueId: string | null = null;
    const take = (p: Place) => {
      if (!alive) return;
      if (p.state === 'ADMITTED' && p.admissionToken !== undefined && p.admittedUntil !== undefined) saveAdmission(activityId, p.admissionToken, p.admittedUntil);
      setPlace(p);
      setError(null);
    };
    api<Place>(base, { method: 'POST' }).then((p) => {
      queueId = p.queueId;
      take(p);
    }, (e: unknown) => alive && setError(errorText(e)));
    const timer = setInterval(() => {
      if (queueId === null) return;
      api<Place>(`${base}/${encodeURIComponent(queueId)}`).then(take, (e: unknown) => {
        if (alive && !(e instanceof ApiError && e.status >= 500)) setError(errorText(e));
      });
    }, pollMs);
    return () => {
      alive = false;
      clearInterval(timer);
    };
  }, [activityId, round, session.value?.token]);

  const leave = async () => {
    if (place === null) return;
    try {
      setPlace(await api<Place>(`${base}/${encodeURIComponent(place.queueId)}`, { method: 'DELETE' }));
    } catch (e) {
      setError(errorText(e));
    }
  };

  if (session.value === null) {
    return (
      <section class="narrow" data-testid="queue-page">
        <h1>{t('queueTitle')}</h1>
        <p><a class="button primary" href={signInHref()}>{t('signInToQueue')}</a></p>
      </section>
    );
  }
  const endedKey = place === null ? undefined : ended[place.state];
  return (
    <section class="narrow" data-testid="queue-page">
      <h1>{t('queueTitle')}</h1>
      <p class="notice" data-testid="not-reservation">{t('queueNotReservation')}</p>
      {error !== null && <p class="notice" role="alert" data-testid="queue-error">{error} <a href={back}>{t('queueBack')}</a></p>}
      {place === null && error === null && <p>{t('loading')}</p>}
      {place?.state === 'WAITING' && (
        <div role="status" aria-live="polite">
          <p class="big" data-testid="queue-position">{t('queuePosition', { position: place.position })}</p>
          <p data-testid="queue-wait">{place.estimatedWaitSeconds === null ? t('queuePaused') : t('queueWait', { time: duration(place.estimatedWaitSeconds * 1000) })}</p>
          <p class="muted">{t('queueKeepOpen')}</p>
        </div>
      )}
      {place?.state === 'ADMITTED' && place.admittedUntil !== undefined && (
        <div role="status" aria-live="polite">
          <p class="big" data-testid="queue-admitted">{t('queueAdmitted')}</p>
          <p data-testid="admission-countdown">{t('admissionEndsIn', { time: duration(Date.parse(place.admittedUntil) - serverNow()) })}</p>
          <p><a class="button primary" href={back} data-testid="go-buy">{t('queueGoBuy')}</a></p>
        </div>
      )}
      {endedKey !== undefined && (
        <div role="status">
          <p data-testid="queue-ended">{t(endedKey)}</p>
          {(place?.state === 'EXPIRED' || place?.state === 'LEFT') && <p><button type="button" onClick={() => setRound((r) => r + 1)} data-testid="queue-rejoin">{t('queueRejoin')}</button></p>}
        </div>
      )}
      {(place?.state === 'WAITING' || place?.state === 'ADMITTED') && <p><button type="button" onClick={() => void leave()} data-testid="queue-leave">{t('queueLeave')}</button></p>}
    </section>
  );
}
