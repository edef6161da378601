import { useState } from 'preact/hooks';
import { api } from '../api';
import { errorText } from '../errors';
import { timeZoneName } from '../format';
import { t } from '../i18n';
import { navigate } from '../router';
import { role } from '../session';

/** A datetime-local value (local time, minutes) some days from now. */
const localInput = (days: number): string => {
  const d = new Date(Date.now() + days * 86_400_000);
  d.setSeconds(0, 0);
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};

/** Organizer: a new code pool (title, description, sale window); codes are imported on its page. */
export function CreateCodePool() {
  const [title, setTitle] = useState('');
  const [description, setDescription] = useState('');
  const [saleStartsAt, setSaleStartsAt] = useState(localInput(0));
  const [saleEndsAt, setSaleEndsAt] = useState(localInput(7));
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const zone = timeZoneName();
  if (role.value !== 'ADMIN') return <p role="alert">{t('needAdmin')}</p>;
  const save = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const { poolId } = await api<{ poolId: string }>('/admin/code-pools', {
        method: 'POST',
        body: { title, description, saleStartsAt: new Date(saleStartsAt).toISOString(), saleEndsAt: new Date(saleEndsAt).toISOString() },
      });
      navigate(`/admin/code-pools/${encodeURIComponent(poolId)}`);
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="narrow">
      <h1>{t('newCodePool')}</h1>
      <form onSubmit={(e) => void save(e)} data-testid="create-code-pool">
        <label for="pool-title">{t('title')}</label>
        <input id="pool-title" required maxLength={200} value={title} onInput={(e) => setTitle((e.target as HTMLInputElement).value)} />
        <label for="pool-description">{t('description')}</label>
        <textarea id="pool-description" maxLength={2000} value={description} onInput={(e) => setDescription((e.target as HTMLTextAreaElement).value)} />
        <label for="pool-starts">{t('timeIn', { label: t('saleStartsAt'), zone })}</label>
        <input id="pool-starts" type="datetime-local" required value={saleStartsAt} onInput={(e) => setSaleStartsAt((e.target as HTMLInputElement).value)} />
        <label for="pool-ends">{t('timeIn', { label: t('saleEndsAt'), zone })}</label>
        <input id="pool-ends" type="datetime-local" required value={saleEndsAt} onInput={(e) => setSaleEndsAt((e.target as HTMLInputElement).value)} />
        <p><button type="submit" class="primary" disabled={busy}>{t('createCodePool')}</button></p>
        {error !== null && <p role="alert">{error}</p>}
      </form>
    </section>
  );
}
