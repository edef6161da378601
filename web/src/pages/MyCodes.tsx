import { api } from '../api';
import type { MyCode } from '../code-pools';
import { dateTime } from '../format';
import { useLoad } from '../hooks';
import { t } from '../i18n';
import { signInHref } from '../router';
import { session } from '../session';

/** The buyer's codes, newest first, each with its pool. */
export function MyCodes() {
  const loaded = useLoad(async () => (session.value === null ? null : (await api<{ codes: MyCode[] }>('/me/codes?limit=100')).codes), [session.value?.token]);
  if (session.value === null) return <p><a href={signInHref()}>{t('navSignIn')}</a></p>;
  if (loaded.error !== null) return <p role="alert">{loaded.error}</p>;
  if (loaded.data === null) return <p role="status">{t('loading')}</p>;
  return (
    <section>
      <h1>{t('myCodesTitle')}</h1>
      {loaded.data.length === 0 && <p>{t('noCodes')}</p>}
      <ul class="cards" data-testid="my-codes">
        {loaded.data.map((c) => (
          <li key={c.poolId} class="card">
            <h2><a href={`/codes/${encodeURIComponent(c.poolId)}`}>{c.poolTitle}</a></h2>
            <p class="code"><strong>{c.code}</strong></p>
            <p class="muted">{t('grabbedAt', { time: dateTime(c.grabbedAt) })}</p>
          </li>
        ))}
      </ul>
    </section>
  );
}
