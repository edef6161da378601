import { useState } from 'preact/hooks';
import { api } from '../api';
import { errorText } from '../errors';
import { timeZoneName } from '../format';
import { t } from '../i18n';
import { navigate } from '../router';
import { role } from '../session';

/** A datetime-local value (local time, minutes) of an instant. */
const localInput = (at: number): string => {
  const d = new Date(at);
  d.setSeconds(0, 0);
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};

/** A new bargain (seed 001 砍价): the goods, the original price and the floor, the range of a friend's cut, the cuts needed, stock, a window. */
export function CreateBargain() {
  const zone = timeZoneName();
  const [title, setTitle] = useState('');
  const [description, setDescription] = useState('');
  const [goods, setGoods] = useState('');
  const [original, setOriginal] = useState(100);
  const [floor, setFloor] = useState(60);
  const [cutMin, setCutMin] = useState(1);
  const [cutMax, setCutMax] = useState(5);
  const [minCuts, setMinCuts] = useState(5);
  const [stock, setStock] = useState(10);
  const [startsAt, setStartsAt] = useState(localInput(Date.now()));
  const [endsAt, setEndsAt] = useState(localInput(Date.now() + 86_400_000));
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  if (role.value !== 'ADMIN') return <p role="alert">{t('needAdmin')}</p>;
  const cents = (yuan: number) => Math.round(yuan * 100);
  const save = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const created = await api<{ bargainId: string }>('/admin/bargains', {
        method: 'POST',
        body: {
          title, ...(description === '' ? {} : { description }), goods,
          originalPriceCents: cents(original), floorPriceCents: cents(floor), cutMinCents: cents(cutMin), cutMaxCents: cents(cutMax), minCuts, stock,
          saleStartsAt: new Date(startsAt).toISOString(), saleEndsAt: new Date(endsAt).toISOString(),
        },
      });
      navigate(`/bargains/${encodeURIComponent(created.bargainId)}`);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  const num = (id: string, value: number, set: (n: number) => void, step = '1') => (
    <input id={id} type="number" required min="0" step={step} value={String(value)} onInput={(e) => set(Number((e.target as HTMLInputElement).value))} />
  );
  return (
    <section>
      <h1>{t('newBargain')}</h1>
      <form onSubmit={(e) => void save(e)}>
        <div class="form-grid">
          <label for="bg-title">{t('title')}</label>
          <input id="bg-title" type="text" required maxLength={200} value={title} onInput={(e) => setTitle((e.target as HTMLInputElement).value)} />
          <label for="bg-description">{t('description')}</label>
          <textarea id="bg-description" maxLength={2000} rows={2} value={description} onInput={(e) => setDescription((e.target as HTMLTextAreaElement).value)} />
          <label for="bg-goods">{t('bargainGoods')}</label>
          <input id="bg-goods" type="text" required maxLength={200} value={goods} onInput={(e) => setGoods((e.target as HTMLInputElement).value)} />
          <label for="bg-original">{t('flashOriginalPrice', { currency: 'CNY' })}</label>
          {num('bg-original', original, setOriginal, '0.01')}
          <label for="bg-floor">{t('bargainFloor', { currency: 'CNY' })}</label>
          {num('bg-floor', floor, setFloor, '0.01')}
          <label for="bg-cut-min">{t('bargainCutMin', { currency: 'CNY' })}</label>
          {num('bg-cut-min', cutMin, setCutMin, '0.01')}
          <label for="bg-cut-max">{t('bargainCutMax', { currency: 'CNY' })}</label>
          {num('bg-cut-max', cutMax, setCutMax, '0.01')}
          <label for="bg-min-cuts">{t('bargainMinCuts')}</label>
          {num('bg-min-cuts', minCuts, setMinCuts)}
          <label for="bg-stock">{t('flashStock')}</label>
          {num('bg-stock', stock, setStock)}
          <label for="bg-starts">{t('timeIn', { label: t('saleStartsAt'), zone })}</label>
          <input id="bg-starts" type="datetime-local" required value={startsAt} onInput={(e) => setStartsAt((e.target as HTMLInputElement).value)} />
          <label for="bg-ends">{t('timeIn', { label: t('saleEndsAt'), zone })}</label>
          <input id="bg-ends" type="datetime-local" required value={endsAt} onInput={(e) => setEndsAt((e.target as HTMLInputElement).value)} />
        </div>
        <p class="row"><button type="submit" class="primary" disabled={busy} data-testid="create-bargain">{t('createBargain')}</button></p>
        {error !== null && <p role="alert" data-testid="create-error">{error}</p>}
      </form>
    </section>
  );
}
