import { useMemo, useState } from 'preact/hooks';
import { api, capacityOf, isCounted, mapSections, type ShowSection } from '../api';
import { errorText } from '../errors';
import { money, timeZoneName } from '../format';
import { t } from '../i18n';
import { navigate } from '../router';
import { role } from '../session';
import { buildLayout } from '../seatmap/layout';
import { SeatMap } from '../seatmap/SeatMap';
import { PolicyFields, policyHours } from './PolicyFields';

/** SEAT: seated, picked seat by seat; QUANTITY: seated, sold as a count; GA: standing, a capacity. */
type DraftKind = 'SEAT' | 'QUANTITY' | 'GA';

interface DraftSection {
  id: string;
  name: string;
  kind: DraftKind;
  rows: number;
  seatsPerRow: number;
  capacity: number;
  price: number;
}

/** A datetime-local value (local time, minutes) some days from now. */
const localInput = (days: number): string => {
  const d = new Date(Date.now() + days * 86_400_000);
  d.setSeconds(0, 0);
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};

const seatsPerShowMax = 200_000;
/** Currencies offered first; the server takes any ISO 4217 code. */
const currencies = ['CNY', 'HKD', 'TWD', 'JPY', 'KRW', 'SGD', 'USD', 'EUR', 'GBP', 'AUD', 'CAD', 'CHF'];

export function CreateShow() {
  const [title, setTitle] = useState('');
  const [venue, setVenue] = useState('');
  const [city, setCity] = useState('');
  const [description, setDescription] = useState('');
  const [imageUrl, setImageUrl] = useState('');
  const [currency, setCurrencyCode] = useState('CNY');
  // Refund and exchange deadlines in hours before the show; empty: buyers may not (the API's null).
  const [refundHours, setRefundHours] = useState('');
  const [exchangeHours, setExchangeHours] = useState('');
  const zone = timeZoneName();
  const [startsAt, setStartsAt] = useState(localInput(30));
  const [saleStartsAt, setSaleStartsAt] = useState(localInput(0));
  const [saleEndsAt, setSaleEndsAt] = useState(localInput(29));
  const [sections, setSections] = useState<DraftSection[]>([
    { id: 'A', name: 'Stalls', kind: 'SEAT', rows: 10, seatsPerRow: 20, capacity: 200, price: 380 },
    { id: 'B', name: 'Balcony', kind: 'SEAT', rows: 6, seatsPerRow: 16, capacity: 200, price: 180 },
  ]);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const specs: ShowSection[] = sections.map((s): ShowSection => {
    const common = { id: s.id, name: s.name || s.id, priceCents: Math.round(s.price * 100) };
    return s.kind === 'GA'
      ? { ...common, kind: 'GENERAL_ADMISSION', capacity: s.capacity }
      : { ...common, kind: 'SEATED', sellBy: s.kind, rows: s.rows, seatsPerRow: s.seatsPerRow };
  });
  const total = specs.reduce((n, s) => n + capacityOf(s), 0);
  const drawn = mapSections(specs);
  const counted = specs.filter(isCounted);
  const seatTotal = drawn.reduce((n, s) => n + s.rows * s.seatsPerRow, 0);
  const ids = specs.map((s) => s.id);
  const valid = specs.length > 0 && new Set(ids).size === ids.length && specs.every((s) => /^[A-Za-z0-9]{1,8}$/.test(s.id) && (s.kind === 'GENERAL_ADMISSION'
    ? Number.isInteger(s.capacity) && s.capacity >= 1
    : s.rows >= 1 && s.rows <= 500 && s.seatsPerRow >= 1 && s.seatsPerRow <= 500)) && total <= seatsPerShowMax;
  const layout = useMemo(() => (valid && drawn.length > 0 ? buildLayout(drawn) : null), [JSON.stringify(drawn), valid]);
  const empty = useMemo(() => new Uint8Array(seatTotal), [seatTotal]);

  if (role.value !== 'ADMIN') return <p role="alert">{t('needAdmin')}</p>;

  const update = (i: number, patch: Partial<DraftSection>) => setSections((list) => list.map((s, k) => (k === i ? { ...s, ...patch } : s)));
  const nextId = () => {
    const taken = new Set(sections.map((s) => s.id));
    for (let k = sections.length; ; k++) {
      const id = String.fromCharCode(65 + (k % 26)) + (k >= 26 ? String(k) : '');
      if (!taken.has(id)) return id;
    }
  };

  const save = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const created = await api<{ showId: string }>('/admin/shows', {
        method: 'POST',
        body: {
          title, venue, city, currency,
          ...(description === '' ? {} : { description }),
          ...(imageUrl === '' ? {} : { imageUrl }),
          ...(policyHours(refundHours) === null ? {} : { refundUntilHoursBefore: policyHours(refundHours) }),
          ...(policyHours(exchangeHours) === null ? {} : { exchangeUntilHoursBefore: policyHours(exchangeHours) }),
          startsAt: new Date(startsAt).toISOString(),
          saleStartsAt: new Date(saleStartsAt).toISOString(),
          saleEndsAt: new Date(saleEndsAt).toISOString(),
          seatMap: { sections: specs },
        },
      });
      // Straight to the new show's live sale page, where it can be checked and edited.
      navigate(`/admin/shows/${encodeURIComponent(created.showId)}`);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  const field = (id: string, label: string, value: string, set: (v: string) => void, type: 'text' | 'datetime-local' = 'text') => (
    <>
      <label for={id}>{type === 'datetime-local' ? t('timeIn', { label, zone }) : label}</label>
      {type === 'text'
        ? <input id={id} type="text" required value={value} onInput={(e) => set((e.target as HTMLInputElement).value)} />
        : <input id={id} type="datetime-local" required value={value} onInput={(e) => set((e.target as HTMLInputElement).value)} />}
    </>
  );

  return (
    <section>
      <h1>{t('newShow')}</h1>
      <form onSubmit={(e) => void save(e)} class="create-show">
        <div class="form-grid">
          {field('title', t('title'), title, setTitle)}
          {field('venue', t('venue'), venue, setVenue)}
          {field('city', t('city'), city, setCity)}
          {field('startsAt', t('startsAt'), startsAt, setStartsAt, 'datetime-local')}
          {field('saleStartsAt', t('saleStartsAt'), saleStartsAt, setSaleStartsAt, 'datetime-local')}
          {field('saleEndsAt', t('saleEndsAt'), saleEndsAt, setSaleEndsAt, 'datetime-local')}
          <label for="currency">{t('currency')}</label>
          <select id="currency" value={currency} onChange={(e) => setCurrencyCode((e.target as HTMLSelectElement).value)}>
            {currencies.map((code) => <option key={code} value={code}>{code}</option>)}
          </select>
          <PolicyFields prefix="new" refund={refundHours} exchange={exchangeHours} onRefund={setRefundHours} onExchange={setExchangeHours} />
          <label for="imageUrl">{t('imageUrl')}</label>
          <input id="imageUrl" type="url" maxLength={500} pattern="https://.+" value={imageUrl} onInput={(e) => setImageUrl((e.target as HTMLInputElement).value)} />
          <label for="description">{t('description')}</label>
          <textarea id="description" maxLength={2000} rows={3} value={description} onInput={(e) => setDescription((e.target as HTMLTextAreaElement).value)} />
        </div>
        <p class="muted" data-testid="time-zone">{t('timeZoneNote', { zone })}</p>
        <fieldset>
          <legend>{t('sections')}</legend>
          <table class="sections">
            <thead>
              <tr><th scope="col">{t('sectionId')}</th><th scope="col">{t('sectionName')}</th><th scope="col">{t('sectionKind')}</th><th scope="col">{t('rows')}</th><th scope="col">{t('seatsPerRow')}</th><th scope="col">{t('capacity')}</th><th scope="col">{t('price', { currency })}</th><th scope="col"><span class="sr-only">{t('removeSection', { id: '' })}</span></th></tr>
            </thead>
            <tbody>
              {sections.map((s, i) => (
                <tr key={i} data-testid={`section-row-${i + 1}`}>
                  <td><input aria-label={`${t('sectionId')} ${i + 1}`} value={s.id} required pattern="[A-Za-z0-9]{1,8}" size={4} onInput={(e) => update(i, { id: (e.target as HTMLInputElement).value })} /></td>
                  <td><input aria-label={`${t('sectionName')} ${i + 1}`} value={s.name} required onInput={(e) => update(i, { name: (e.target as HTMLInputElement).value })} /></td>
                  <td>
                    <select aria-label={`${t('sectionKind')} ${i + 1}`} value={s.kind} onChange={(e) => update(i, { kind: (e.target as HTMLSelectElement).value as DraftKind })}>
                      <option value="SEAT">{t('kindSeat')}</option>
                      <option value="QUANTITY">{t('kindQuantity')}</option>
                      <option value="GA">{t('kindGa')}</option>
                    </select>
                  </td>
                  {s.kind === 'GA' ? (
                    <>
                      <td class="muted">—</td>
                      <td class="muted">—</td>
                      <td><input aria-label={`${t('capacity')} ${i + 1}`} type="number" min={1} max={seatsPerShowMax} value={s.capacity} onInput={(e) => update(i, { capacity: Number((e.target as HTMLInputElement).value) })} /></td>
                    </>
                  ) : (
                    <>
                      <td><input aria-label={`${t('rows')} ${i + 1}`} type="number" min={1} max={500} value={s.rows} onInput={(e) => update(i, { rows: Number((e.target as HTMLInputElement).value) })} /></td>
                      <td><input aria-label={`${t('seatsPerRow')} ${i + 1}`} type="number" min={1} max={500} value={s.seatsPerRow} onInput={(e) => update(i, { seatsPerRow: Number((e.target as HTMLInputElement).value) })} /></td>
                      <td class="muted">{s.rows * s.seatsPerRow}</td>
                    </>
                  )}
                  <td><input aria-label={`${t('price', { currency })} ${i + 1}`} type="number" min={0} step="0.01" value={s.price} onInput={(e) => update(i, { price: Number((e.target as HTMLInputElement).value) })} /></td>
                  <td><button type="button" aria-label={t('removeSection', { id: s.id })} disabled={sections.length <= 1} onClick={() => setSections((l) => l.filter((_, k) => k !== i))}>✕</button></td>
                </tr>
              ))}
            </tbody>
          </table>
          <div class="row">
            <button type="button" onClick={() => setSections((l) => [...l, { id: nextId(), name: '', kind: 'SEAT', rows: 5, seatsPerRow: 10, capacity: 50, price: 100 }])}>{t('addSection')}</button>
            <button type="button" data-testid="add-ga" onClick={() => setSections((l) => [...l, { id: nextId(), name: '', kind: 'GA', rows: 5, seatsPerRow: 10, capacity: 500, price: 100 }])}>{t('addGaSection')}</button>
          </div>
        </fieldset>
        <h2 data-testid="preview-title">{counted.length === 0 ? t('preview', { n: total }) : t('previewPlaces', { n: total })}</h2>
        {valid && counted.length > 0 && (
          <ul class="counted-preview">
            {counted.map((s) => (
              <li key={s.id} class="counted" data-testid={`preview-counted-${s.id}`}>
                <strong>{s.name}</strong>{' '}
                <span class="muted">{s.kind === 'GENERAL_ADMISSION' ? t('generalAdmission') : t('seatsAssigned')} · {money(s.priceCents, currency)}</span>
                <br />{t('placesLeft', { n: capacityOf(s), total: capacityOf(s) })}
              </li>
            ))}
          </ul>
        )}
        {layout !== null && <SeatMap layout={layout} statuses={() => empty} />}
        {error !== null && <p class="notice" role="alert">{error}</p>}
        <button type="submit" class="primary" data-testid="save-show" disabled={busy || !valid}>{t('saveShow')}</button>
      </form>
    </section>
  );
}
