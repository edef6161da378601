import { useState } from 'preact/hooks';
import { admissionHeaders, needsQueue } from '../admission';
import { AdmissionLine, QueueNeeded } from './QueueNotes';
import { api, ApiError, serverNow } from '../api';
import type { CodePool, GrabbedCode } from '../code-pools';
import { errorText } from '../errors';
import { dateTime, duration } from '../format';
import { useLoad, useTick } from '../hooks';
import { t } from '../i18n';
import { signInHref } from '../router';
import { session } from '../session';

/** A code pool (券码) for buyers: its window with a countdown, the codes left, and a grab button. */
export function CodePoolPage({ poolId }: { poolId: string }) {
  const pool = useLoad(() => api<CodePool>(`/code-pools/${encodeURIComponent(poolId)}`), [poolId, session.value?.token]);
  const [grabbed, setGrabbed] = useState<GrabbedCode | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [queueNeeded, setQueueNeeded] = useState(false);
  const [busy, setBusy] = useState(false);
  useTick(1000);
  if (pool.error !== null) return <p role="alert">{pool.error}</p>;
  if (pool.data === null) return <p role="status">{t('loading')}</p>;
  const p = pool.data;
  const opensIn = Date.parse(p.saleStartsAt) - serverNow();
  const closesIn = Date.parse(p.saleEndsAt) - serverNow();
  const status = opensIn > 0 ? 'UPCOMING' : closesIn > 0 ? 'ON_SALE' : 'ENDED';
  const mine = grabbed ?? p.myCode;
  const grab = async () => {
    setBusy(true);
    setError(null);
    try {
      setGrabbed(await api<GrabbedCode>(`/code-pools/${encodeURIComponent(poolId)}/grab`, { method: 'POST', headers: admissionHeaders(poolId) }));
      pool.reload();
    } catch (e) {
      setError(errorText(e));
      setQueueNeeded(e instanceof ApiError && needsQueue(e.code));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="narrow" data-testid="code-pool">
      <h1>{p.title}</h1>
      {p.description !== '' && <p>{p.description}</p>}
      <p class="muted">{dateTime(p.saleStartsAt)} – {dateTime(p.saleEndsAt)}</p>
      <p role="timer" aria-live="off" data-testid="pool-countdown">
        {status === 'UPCOMING' ? t('poolOpensIn', { time: duration(opensIn) }) : status === 'ON_SALE' ? t('poolClosesIn', { time: duration(closesIn) }) : t('poolEnded')}
      </p>
      <p data-testid="pool-remaining">{t('poolRemaining', { n: p.remaining })}</p>
      {mine !== null ? (
        <div class="card" data-testid="my-code">
          <p>{t('yourCode')}</p>
          <p class="code"><strong>{mine.code}</strong></p>
          <p class="muted">{t('grabbedAt', { time: dateTime(mine.grabbedAt) })}</p>
        </div>
      ) : session.value === null ? (
        <p><a class="button primary" href={signInHref()}>{t('signInToGrab')}</a></p>
      ) : (
        <p><button type="button" class="primary" disabled={busy || status !== 'ON_SALE'} onClick={() => void grab()} data-testid="grab">{t('grabCode')}</button></p>
      )}
      {error !== null && <p role="alert" data-testid="grab-error">{error}</p>}
      {queueNeeded && <QueueNeeded activityId={poolId} />}
      <AdmissionLine activityId={poolId} />
      {session.value !== null && <p><a href="/codes">{t('myCodesTitle')}</a></p>}
    </section>
  );
}
