import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, type Cancellation, type Show } from '../api';
import { errorText } from '../errors';
import { t } from '../i18n';

/**
 * An organizer cancels a show (issue 25) and watches the refunds go through: sales stop at once,
 * then every paid order is refunded in the background; the progress is read again until done.
 */
export function CancelShowPanel({ show }: { show: Show & { readonly cancelled?: boolean } }) {
  const [progress, setProgress] = useState<Cancellation | null>(null);
  const [reason, setReason] = useState('');
  const [notice, setNotice] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [watching, setWatching] = useState(show.cancelled === true);

  useEffect(() => {
    if (!watching) return;
    let alive = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const read = async () => {
      try {
        const p = await api<Cancellation>(`/admin/shows/${encodeURIComponent(show.showId)}/cancellation`);
        if (!alive) return;
        setProgress(p);
        if (!p.done) timer = setTimeout(() => void read(), 700);
      } catch (e) {
        if (alive && !(e instanceof ApiError && e.status === 404)) setNotice(errorText(e));
      }
    };
    void read();
    return () => {
      alive = false;
      clearTimeout(timer);
    };
  }, [show.showId, watching]);

  const cancel = async (event: Event) => {
    event.preventDefault();
    if (!window.confirm(t('cancelShowConfirm'))) return;
    setBusy(true);
    setNotice(null);
    try {
      setProgress(await api<Cancellation>(`/admin/shows/${encodeURIComponent(show.showId)}/cancel`, { method: 'POST', body: { reason: reason.trim() } }));
      setWatching(true);
    } catch (e) {
      setNotice(errorText(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="cancel-show-title" data-testid="cancel-show">
      <h2 id="cancel-show-title">{t('cancelShowTitle')}</h2>
      {notice !== null && <p class="notice" role="alert">{notice}</p>}
      {progress === null && !watching && (
        <form onSubmit={(e) => void cancel(e)}>
          <label>
            {t('cancelShowReason')}
            <input data-testid="cancel-reason" required maxLength={500} value={reason} onInput={(e) => setReason((e.target as HTMLInputElement).value)} />
          </label>
          <button type="submit" class="danger" data-testid="cancel-show-submit" disabled={busy || reason.trim() === ''}>{t('cancelShowButton')}</button>
        </form>
      )}
      {progress !== null && (
        <div role="status" data-testid="cancel-progress" data-done={progress.done ? 'true' : 'false'}>
          <p>{t('cancelledShow', { reason: progress.reason })}</p>
          <progress max={Math.max(1, (progress.refundsByStatus.REFUNDED ?? 0) + (progress.refundsByStatus.PENDING ?? 0) + progress.ordersToRefund)} value={progress.refundsByStatus.REFUNDED ?? 0} />
          <p>{t('cancelProgress', {
            refunded: progress.refundsByStatus.REFUNDED ?? 0, pending: progress.refundsByStatus.PENDING ?? 0, left: progress.ordersToRefund, holds: progress.activeHolds,
          })}</p>
          {progress.done && <p data-testid="cancel-done">{t('cancelDone')}</p>}
        </div>
      )}
    </section>
  );
}
