import { useState } from 'preact/hooks';
import { api } from '../api';
import { errorText } from '../errors';
import { dateTime, timeZoneName } from '../format';
import { useLoad } from '../hooks';
import { t } from '../i18n';
import { role } from '../session';

/** One entry as GET /admin/blocklist lists it (the ids stay off the page but for the lift). */
interface Block {
  readonly blockId: string;
  readonly kind: 'USER' | 'IP';
  readonly username: string | null;
  readonly ip: string | null;
  readonly reason: string;
  readonly createdAt: string;
  readonly expiresAt: string | null;
}

/**
 * Organizer: the blocklist (issue 35 item 9) over the blocklist API: who is kept off the buying
 * routes (a buyer by name, or an address or CIDR block), why and until when; add one, lift one.
 */
export function Blocklist() {
  const list = useLoad(async () => (role.value === 'ADMIN' ? (await api<{ entries: Block[] }>('/admin/blocklist')).entries : null), []);
  const [kind, setKind] = useState<'username' | 'ip'>('username');
  const [target, setTarget] = useState('');
  const [reason, setReason] = useState('');
  const [until, setUntil] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const zone = timeZoneName();
  if (role.value !== 'ADMIN') return <p role="alert">{t('needAdmin')}</p>;

  const act = async (work: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await work();
      list.reload();
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  const add = (event: Event) => {
    event.preventDefault();
    void act(async () => {
      await api('/admin/blocklist', { method: 'POST', body: { [kind]: target.trim(), reason, ...(until === '' ? {} : { expiresAt: new Date(until).toISOString() }) } });
      setTarget('');
      setReason('');
      setUntil('');
    });
  };
  const who = (b: Block) => (b.kind === 'USER' ? b.username ?? '' : b.ip ?? '');

  return (
    <section>
      <h1>{t('blocklistTitle')}</h1>
      <p class="muted">{t('blocklistHint')}</p>
      <form onSubmit={add} data-testid="add-block" class="narrow">
        <label for="block-kind">{t('blocklistKind')}</label>
        <select id="block-kind" value={kind} onChange={(e) => setKind((e.target as HTMLSelectElement).value as 'username' | 'ip')}>
          <option value="username">{t('blocklistKindUser')}</option>
          <option value="ip">{t('blocklistKindIp')}</option>
        </select>
        <label for="block-target">{kind === 'username' ? t('username') : t('blocklistIp')}</label>
        <input id="block-target" required maxLength={kind === 'username' ? 64 : 49} value={target} onInput={(e) => setTarget((e.target as HTMLInputElement).value)} />
        <label for="block-reason">{t('blocklistReason')}</label>
        <input id="block-reason" required maxLength={500} value={reason} onInput={(e) => setReason((e.target as HTMLInputElement).value)} />
        <label for="block-until">{t('timeIn', { label: t('blocklistUntilLabel'), zone })}</label>
        <input id="block-until" type="datetime-local" value={until} onInput={(e) => setUntil((e.target as HTMLInputElement).value)} />
        <p><button type="submit" class="primary" disabled={busy}>{t('blocklistAdd')}</button></p>
      </form>
      {error !== null && <p role="alert" data-testid="block-error">{error}</p>}
      {list.error !== null && <p role="alert">{list.error}</p>}
      {list.data === null ? <p role="status">{t('loading')}</p> : list.data.length === 0 ? <p data-testid="no-blocks">{t('blocklistEmpty')}</p> : (
        <table data-testid="block-list">
          <thead><tr><th>{t('blocklistWho')}</th><th>{t('blocklistReason')}</th><th>{t('blocklistSince')}</th><th>{t('blocklistUntil')}</th><th><span class="sr-only">{t('blocklistLift')}</span></th></tr></thead>
          <tbody>
            {list.data.map((b) => (
              <tr key={b.blockId} data-testid="block-row">
                <td class={b.kind === 'IP' ? 'mono' : ''}>{who(b)}</td>
                <td>{b.reason}</td>
                <td>{dateTime(b.createdAt)}</td>
                <td>{b.expiresAt === null ? t('blocklistUntilLifted') : dateTime(b.expiresAt)}</td>
                <td><button type="button" disabled={busy} aria-label={t('blocklistLiftFor', { who: who(b) })} onClick={() => void act(() => api(`/admin/blocklist/${encodeURIComponent(b.blockId)}`, { method: 'DELETE' }))}>{t('blocklistLift')}</button></td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
