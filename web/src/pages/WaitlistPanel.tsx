import { useEffect, useState } from 'preact/hooks';
import { serverNow } from '../api';
import { errorText } from '../errors';
import { duration } from '../format';
import { useTick } from '../hooks';
import { t } from '../i18n';
import { refreshHolds } from '../my-holds';
import { joinWaitlist, leaveWaitlist, liveEntryOf, myWaitlist, type WaitlistEntry } from '../waitlist';

/** How often a waiting buyer's page asks whether seats were offered (the offer is a hold: it then shows as one). */
const pollMs = 3_000;

/**
 * On a sold-out show: join the waitlist (候补) for a number of seats, see where the entry stands,
 * leave it. An offer is a hold of the buyer's, so when one comes the show page's hold panel takes
 * over (checkout and countdown); this panel says so and counts down too.
 */
export function WaitlistPanel({ showId, max }: { showId: string; max: number }) {
  const [entry, setEntry] = useState<WaitlistEntry | null | undefined>(undefined);
  const [quantity, setQuantity] = useState(1);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  // Re-renders every second: the offer's countdown.
  useTick(1000);

  // Read now, then every few seconds while waiting: an offer shows up without a reload.
  useEffect(() => {
    let alive = true;
    const read = () => myWaitlist().then((entries) => {
      if (!alive) return;
      const live = liveEntryOf(entries, showId);
      setEntry(live);
      if (live?.status === 'OFFERED') void refreshHolds();
    }, () => undefined);
    void read();
    const timer = setInterval(() => void read(), pollMs);
    return () => {
      alive = false;
      clearInterval(timer);
    };
  }, [showId]);

  const act = async (step: () => Promise<WaitlistEntry>, after: (e: WaitlistEntry) => WaitlistEntry | null) => {
    setBusy(true);
    setMessage(null);
    try {
      const e = await step();
      setEntry(after(e));
      if (e.status === 'OFFERED') void refreshHolds();
    } catch (error) {
      setMessage(errorText(error));
    } finally {
      setBusy(false);
    }
  };

  if (entry === undefined) return null;
  return (
    <div class="waitlist" data-testid="waitlist">
      <h2>{t('waitlistTitle')}</h2>
      {message !== null && <p class="notice" role="alert" data-testid="waitlist-notice">{message}</p>}
      {entry === null && (
        <>
          <p class="muted">{t('waitlistPitch')}</p>
          <label>
            {t('waitlistHowMany')}{' '}
            <select value={String(quantity)} onChange={(e) => setQuantity(Number((e.target as HTMLSelectElement).value))}>
              {Array.from({ length: max }, (_, i) => i + 1).map((n) => <option key={n} value={String(n)}>{n}</option>)}
            </select>
          </label>{' '}
          <button type="button" class="primary" data-testid="waitlist-join" disabled={busy} onClick={() => void act(() => joinWaitlist(showId, quantity), (e) => e)}>
            {t('waitlistJoin')}
          </button>
        </>
      )}
      {entry !== null && entry.status === 'WAITING' && (
        <p role="status" data-testid="waitlist-status">{t('waitlistWaiting', { n: entry.quantity })}</p>
      )}
      {entry !== null && entry.status === 'OFFERED' && entry.claimUntil !== null && (
        <p role="status" data-testid="waitlist-status" class="notice">
          {t('waitlistOffered', { left: duration(Math.max(0, Date.parse(entry.claimUntil) - serverNow())) })}
        </p>
      )}
      {entry !== null && (
        <button type="button" data-testid="waitlist-leave" disabled={busy} onClick={() => void act(() => leaveWaitlist(showId), () => null)}>
          {t('waitlistLeave')}
        </button>
      )}
    </div>
  );
}
