import { serverNow } from '../api';
import { dateTime, duration } from '../format';
import { useLoad, useTick } from '../hooks';
import { t } from '../i18n';
import type { MessageKey } from '../i18n/en';
import { signInHref } from '../router';
import { session } from '../session';
import { showTitles } from '../show-titles';
import { myWaitlist, type WaitlistEntry } from '../waitlist';

const statusKey: Record<WaitlistEntry['status'], MessageKey> = {
  WAITING: 'waitlistStatusWAITING', OFFERED: 'waitlistStatusOFFERED', CLAIMED: 'waitlistStatusCLAIMED', LAPSED: 'waitlistStatusLAPSED', LEFT: 'waitlistStatusLEFT',
};

/** The buyer's waitlist entries (候补), newest first; an offer with its countdown and the way to pay it. */
export function MyWaitlist() {
  const loaded = useLoad(async () => {
    if (session.value === null) return null;
    const entries = await myWaitlist();
    // Each card names its show (issue 35 item 13), read once per show.
    return { entries, titles: await showTitles(entries.map((e) => e.showId)) };
  }, [session.value?.token]);
  useTick(1000);
  if (session.value === null) return <p><a href={signInHref()}>{t('navSignIn')}</a></p>;
  if (loaded.error !== null) return <p role="alert">{loaded.error}</p>;
  if (loaded.data === null) return <p role="status">{t('loading')}</p>;
  return (
    <section>
      <h1>{t('myWaitlistTitle')}</h1>
      {loaded.data.entries.length === 0 && <p>{t('noWaitlist')}</p>}
      <ul class="cards" data-testid="my-waitlist">
        {loaded.data.entries.map((e) => (
          <li key={e.entryId} class="card" data-testid="waitlist-entry">
            <h2><a href={`/shows/${encodeURIComponent(e.showId)}`}>{loaded.data!.titles.has(e.showId)
              ? t('waitlistForShow', { title: loaded.data!.titles.get(e.showId) ?? '', n: e.quantity })
              : t('waitlistFor', { n: e.quantity })}</a></h2>
            <p><strong>{t(statusKey[e.status])}</strong></p>
            {e.status === 'OFFERED' && e.claimUntil !== null && (
              <p class="notice">{t('waitlistOffered', { left: duration(Math.max(0, Date.parse(e.claimUntil) - serverNow())) })}{' '}
                <a href={`/shows/${encodeURIComponent(e.showId)}`}>{t('waitlistClaim')}</a></p>
            )}
            <p class="muted">{t('waitlistJoinedAt', { time: dateTime(e.joinedAt) })}</p>
          </li>
        ))}
      </ul>
    </section>
  );
}
