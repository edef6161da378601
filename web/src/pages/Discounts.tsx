import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import { errorText } from '../errors';
import { dateTime, money, timeZoneName } from '../format';
import { t } from '../i18n';
import { role } from '../session';

interface Discount {
  code: string;
  percentOff: number | null;
  amountOffCents: number | null;
  showIds: string[] | null;
  validFrom: string;
  validUntil: string;
  maxUses: number;
  perUserMax: number;
  uses: number;
  status: 'ACTIVE' | 'DISABLED';
}

/** A datetime-local value (local time, minutes) some days from now. */
const localInput = (days: number): string => {
  const d = new Date(Date.now() + days * 86_400_000);
  d.setSeconds(0, 0);
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};

/** Organizer: discount codes (issue 25): create one, see the uses held, disable one. */
export function Discounts() {
  const [list, setList] = useState<Discount[] | null>(null);
  const [code, setCode] = useState('');
  const [kind, setKind] = useState<'percent' | 'amount'>('percent');
  const [value, setValue] = useState('10');
  const [showIds, setShowIds] = useState('');
  const [validFrom, setValidFrom] = useState(localInput(0));
  const [validUntil, setValidUntil] = useState(localInput(30));
  const [maxUses, setMaxUses] = useState('100');
  const [perUserMax, setPerUserMax] = useState('1');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const zone = timeZoneName();
  const load = () => api<{ discounts: Discount[] }>('/admin/discounts?limit=100').then((r) => setList(r.discounts), (e) => setError(errorText(e)));
  useEffect(() => {
    if (role.value === 'ADMIN') void load();
  }, []);
  if (role.value !== 'ADMIN') return <p role="alert">{t('needAdmin')}</p>;

  const save = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const amount = Number(value);
      const shows = showIds.split(/[\s,]+/).filter((s) => s !== '');
      await api('/admin/discounts', {
        method: 'POST',
        body: {
          code, validFrom: new Date(validFrom).toISOString(), validUntil: new Date(validUntil).toISOString(),
          maxUses: Number(maxUses), perUserMax: Number(perUserMax),
          ...(kind === 'percent' ? { percentOff: amount } : { amountOffCents: Math.round(amount * 100) }),
          ...(shows.length === 0 ? {} : { showIds: shows }),
        },
      });
      setCode('');
      await load();
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  const disable = async (which: string) => {
    setError(null);
    try {
      await api(`/admin/discounts/${encodeURIComponent(which)}/disable`, { method: 'POST' });
      await load();
    } catch (e) {
      setError(errorText(e));
    }
  };
  const off = (d: Discount) => (d.percentOff !== null ? `${d.percentOff}%` : money(d.amountOffCents ?? 0));

  return (
    <section>
      <h1>{t('discountsTitle')}</h1>
      <form onSubmit={(e) => void save(e)} data-testid="create-discount" class="narrow">
        <label for="discount-code">{t('discountCodeLabel')}</label>
        <input id="discount-code" required minLength={3} maxLength={32} pattern="[A-Za-z0-9_\-]+" value={code} onInput={(e) => setCode((e.target as HTMLInputElement).value)} />
        <label for="discount-kind">{t('discountKind')}</label>
        <select id="discount-kind" value={kind} onChange={(e) => setKind((e.target as HTMLSelectElement).value as 'percent' | 'amount')}>
          <option value="percent">{t('discountPercent')}</option>
          <option value="amount">{t('discountAmount')}</option>
        </select>
        <label for="discount-value">{kind === 'percent' ? t('discountPercent') : t('discountAmount')}</label>
        <input id="discount-value" type="number" required min={kind === 'percent' ? 1 : 0.01} max={kind === 'percent' ? 100 : 1_000_000} step={kind === 'percent' ? 1 : 0.01} value={value} onInput={(e) => setValue((e.target as HTMLInputElement).value)} />
        <label for="discount-shows">{t('discountShows')}</label>
        <input id="discount-shows" maxLength={2000} value={showIds} onInput={(e) => setShowIds((e.target as HTMLInputElement).value)} />
        <label for="discount-from">{t('timeIn', { label: t('discountValidFrom'), zone })}</label>
        <input id="discount-from" type="datetime-local" required value={validFrom} onInput={(e) => setValidFrom((e.target as HTMLInputElement).value)} />
        <label for="discount-until">{t('timeIn', { label: t('discountValidUntil'), zone })}</label>
        <input id="discount-until" type="datetime-local" required value={validUntil} onInput={(e) => setValidUntil((e.target as HTMLInputElement).value)} />
        <label for="discount-max">{t('discountMaxUses')}</label>
        <input id="discount-max" type="number" required min={1} max={10_000_000} value={maxUses} onInput={(e) => setMaxUses((e.target as HTMLInputElement).value)} />
        <label for="discount-per-user">{t('discountPerUserMax')}</label>
        <input id="discount-per-user" type="number" required min={1} max={1000} value={perUserMax} onInput={(e) => setPerUserMax((e.target as HTMLInputElement).value)} />
        <p><button type="submit" class="primary" disabled={busy}>{t('discountCreate')}</button></p>
      </form>
      {error !== null && <p role="alert">{error}</p>}
      {list === null ? <p role="status">{t('loading')}</p> : (
        <table data-testid="discount-list">
          <thead><tr><th>{t('discountCodeLabel')}</th><th>{t('discountOff')}</th><th>{t('discountValidity')}</th><th>{t('discountUses')}</th><th /></tr></thead>
          <tbody>
            {list.map((d) => (
              <tr key={d.code} data-testid={`discount-${d.code}`}>
                <td class="mono">{d.code}</td>
                <td>{off(d)}</td>
                <td>{dateTime(d.validFrom)} – {dateTime(d.validUntil)}</td>
                <td>{t('discountUsesOf', { uses: d.uses, max: d.maxUses, perUser: d.perUserMax })}</td>
                <td>{d.status === 'ACTIVE'
                  ? <button type="button" data-testid={`disable-${d.code}`} onClick={() => void disable(d.code)}>{t('discountDisable')}</button>
                  : t('discountDisabled')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
