import { useState } from 'preact/hooks';
import { activityHref, api, type Activity } from '../api';
import { CsvDownload } from '../CsvDownload';
import { errorText } from '../errors';
import { dateTime, timeZoneName } from '../format';
import { useLoad } from '../hooks';
import { t } from '../i18n';
import { navigate } from '../router';
import { role } from '../session';

/** A datetime-local value (local time, minutes) `minutes` from now, or of an ISO instant. */
const localInput = (at: number): string => {
  const d = new Date(at);
  d.setSeconds(0, 0);
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};

/** The organizer's campaigns: each flash sale with its window, taken offline or put back at once, edited in place. */
export function Campaigns() {
  const list = useLoad(() => api<{ activities: Activity[] }>('/activities?limit=100&include=ended'), []);
  if (role.value !== 'ADMIN') return <p role="alert">{t('needAdmin')}</p>;
  // Code pools are managed on their own page (import, winners), listed here with a link to it; these two change here.
  const campaigns = list.data?.activities.filter((a) => a.kind === 'FLASH_SALE' || a.kind === 'BARGAIN') ?? null;
  const pools = list.data?.activities.filter((a) => a.kind === 'CODE_POOL') ?? null;
  return (
    <section>
      <h1>{t('campaignsTitle')}</h1>
      <p class="row"><a class="button primary" href="/admin/flash-sales/new" data-testid="new-flash-sale">{t('newFlashSale')}</a> <a class="button" href="/admin/bargains/new" data-testid="new-bargain">{t('newBargain')}</a></p>
      {list.error !== null && <p role="alert">{list.error}</p>}
      {campaigns === null ? <p role="status">{t('loading')}</p> : (
        <ul class="cards" data-testid="campaigns">
          {campaigns.map((a) => <CampaignCard key={a.activityId} activity={a} onChange={list.reload} />)}
        </ul>
      )}
      <h2>{t('codePoolsTitle')}</h2>
      <p><a class="button" href="/admin/code-pools/new">{t('newCodePool')}</a></p>
      {pools !== null && pools.length === 0 && <p>{t('noCodePools')}</p>}
      {pools !== null && pools.length > 0 && (
        <ul class="cards" data-testid="code-pools">
          {pools.map((a) => (
            <li key={a.activityId} class="card" data-testid="code-pool-card">
              <h3><a href={`/admin/code-pools/${encodeURIComponent(a.activityId)}`}>{t('manageCodePool', { title: a.title })}</a></h3>
              <p class="muted">{dateTime(a.saleStartsAt)} – {dateTime(a.saleEndsAt)} · {a.status === 'OFFLINE' ? t('statusOffline') : a.status === 'ON_SALE' ? t('statusOnSale') : a.status === 'UPCOMING' ? t('statusUpcoming') : a.status === 'SOLD_OUT' ? t('statusSoldOut') : t('statusEnded')}</p>
              <p><a href={activityHref(a)}>{t('buyerPage')}</a></p>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function CampaignCard({ activity, onChange }: { activity: Activity; onChange(): void }) {
  const [title, setTitle] = useState(activity.title);
  const [endsAt, setEndsAt] = useState(localInput(Date.parse(activity.saleEndsAt)));
  const [notice, setNotice] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const change = async (body: Record<string, unknown>) => {
    setBusy(true);
    setNotice(null);
    try {
      await api(`/admin/activities/${encodeURIComponent(activity.activityId)}`, { method: 'PATCH', body });
      setNotice(t('campaignSaved'));
      onChange();
    } catch (e) {
      setNotice(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  const offline = activity.status === 'OFFLINE';
  const id = (name: string) => `${name}-${activity.activityId}`;
  return (
    <li class="card" data-testid="campaign-card">
      <h2><a href={activityHref(activity)}>{activity.title}</a></h2>
      <p class="muted">{t(`kind${activity.kind}` as const)} · {dateTime(activity.saleStartsAt)} – {dateTime(activity.saleEndsAt)}</p>
      <p data-testid="campaign-status">{offline ? t('statusOffline') : activity.status === 'ON_SALE' ? t('statusOnSale') : activity.status === 'UPCOMING' ? t('statusUpcoming') : t('statusEnded')}</p>
      <form class="form-grid" aria-label={t('editCampaign', { title: activity.title })} onSubmit={(e) => { e.preventDefault(); void change({ title, saleEndsAt: new Date(endsAt).toISOString() }); }}>
        <label for={id('title')}>{t('title')}</label>
        <input id={id('title')} type="text" required maxLength={200} value={title} onInput={(e) => setTitle((e.target as HTMLInputElement).value)} />
        <label for={id('ends')}>{t('timeIn', { label: t('saleEndsAt'), zone: timeZoneName() })}</label>
        <input id={id('ends')} type="datetime-local" required value={endsAt} onInput={(e) => setEndsAt((e.target as HTMLInputElement).value)} />
        <button type="submit" disabled={busy}>{t('saveChanges')}</button>
      </form>
      <p class="row">
        <button type="button" disabled={busy} data-testid="toggle-offline" onClick={() => void change({ status: offline ? 'ON_SALE' : 'OFFLINE' })}>
          {offline ? t('putBackOnSale', { title: activity.title }) : t('takeOffline', { title: activity.title })}
        </button>
      </p>
      <p>
        {activity.kind === 'BARGAIN'
          ? <CsvDownload path={`/admin/bargains/${encodeURIComponent(activity.activityId)}/orders.csv`} filename={`bargain-${activity.activityId}-orders.csv`} label={t('downloadBargainOrders', { title: activity.title })} testId="download-orders" />
          : <CsvDownload path={`/admin/flash-sales/${encodeURIComponent(activity.activityId)}/orders.csv`} filename={`flash-sale-${activity.activityId}-orders.csv`} label={t('downloadSaleOrders', { title: activity.title })} testId="download-orders" />}
      </p>
      {notice !== null && <p class="notice" role="status" data-testid="campaign-notice">{notice}</p>}
    </li>
  );
}

interface DraftItem { itemId: string; name: string; price: number; original: number; stock: number }

/** A new flash sale: a window, a per-buyer limit and its items (sale price, original price, stock). */
export function CreateFlashSale() {
  const zone = timeZoneName();
  const [title, setTitle] = useState('');
  const [description, setDescription] = useState('');
  const [startsAt, setStartsAt] = useState(localInput(Date.now()));
  const [endsAt, setEndsAt] = useState(localInput(Date.now() + 86_400_000));
  const [maxPerUser, setMaxPerUser] = useState(1);
  const [items, setItems] = useState<DraftItem[]>([{ itemId: 'A', name: '', price: 9.9, original: 99, stock: 100 }]);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  if (role.value !== 'ADMIN') return <p role="alert">{t('needAdmin')}</p>;
  const update = (i: number, patch: Partial<DraftItem>) => setItems((list) => list.map((x, k) => (k === i ? { ...x, ...patch } : x)));
  const save = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const created = await api<{ flashSaleId: string }>('/admin/flash-sales', {
        method: 'POST',
        body: {
          title, ...(description === '' ? {} : { description }),
          saleStartsAt: new Date(startsAt).toISOString(), saleEndsAt: new Date(endsAt).toISOString(), maxPerUser,
          items: items.map((x) => ({ itemId: x.itemId, name: x.name || x.itemId, priceCents: Math.round(x.price * 100), originalPriceCents: Math.round(x.original * 100), stock: x.stock })),
        },
      });
      navigate(`/flash-sales/${encodeURIComponent(created.flashSaleId)}`);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  const num = (value: number, set: (n: number) => void, id: string, step = '1') => (
    <input id={id} type="number" required min="0" step={step} value={String(value)} onInput={(e) => set(Number((e.target as HTMLInputElement).value))} />
  );
  return (
    <section>
      <h1>{t('newFlashSale')}</h1>
      <form onSubmit={(e) => void save(e)}>
        <div class="form-grid">
          <label for="fs-title">{t('title')}</label>
          <input id="fs-title" type="text" required maxLength={200} value={title} onInput={(e) => setTitle((e.target as HTMLInputElement).value)} />
          <label for="fs-description">{t('description')}</label>
          <textarea id="fs-description" maxLength={2000} rows={2} value={description} onInput={(e) => setDescription((e.target as HTMLTextAreaElement).value)} />
          <label for="fs-starts">{t('timeIn', { label: t('saleStartsAt'), zone })}</label>
          <input id="fs-starts" type="datetime-local" required value={startsAt} onInput={(e) => setStartsAt((e.target as HTMLInputElement).value)} />
          <label for="fs-ends">{t('timeIn', { label: t('saleEndsAt'), zone })}</label>
          <input id="fs-ends" type="datetime-local" required value={endsAt} onInput={(e) => setEndsAt((e.target as HTMLInputElement).value)} />
          <label for="fs-max">{t('flashMaxPerUser')}</label>
          {num(maxPerUser, setMaxPerUser, 'fs-max')}
        </div>
        {items.map((x, i) => (
          <fieldset key={i} data-testid={`draft-item-${i + 1}`}>
            <legend>{t('flashItemN', { n: i + 1 })}</legend>
            <div class="form-grid">
              <label for={`fs-id-${i}`}>{t('flashItemId')}</label>
              <input id={`fs-id-${i}`} type="text" required pattern="[A-Za-z0-9]{1,8}" maxLength={8} value={x.itemId} onInput={(e) => update(i, { itemId: (e.target as HTMLInputElement).value })} />
              <label for={`fs-name-${i}`}>{t('flashItemName')}</label>
              <input id={`fs-name-${i}`} type="text" required maxLength={200} value={x.name} onInput={(e) => update(i, { name: (e.target as HTMLInputElement).value })} />
              <label for={`fs-price-${i}`}>{t('flashPrice', { currency: 'CNY' })}</label>
              {num(x.price, (n) => update(i, { price: n }), `fs-price-${i}`, '0.01')}
              <label for={`fs-original-${i}`}>{t('flashOriginalPrice', { currency: 'CNY' })}</label>
              {num(x.original, (n) => update(i, { original: n }), `fs-original-${i}`, '0.01')}
              <label for={`fs-stock-${i}`}>{t('flashStock')}</label>
              {num(x.stock, (n) => update(i, { stock: n }), `fs-stock-${i}`)}
            </div>
            {items.length > 1 && <button type="button" onClick={() => setItems((list) => list.filter((_, k) => k !== i))}>{t('removeItem', { n: i + 1 })}</button>}
          </fieldset>
        ))}
        <p class="row">
          <button type="button" onClick={() => setItems((list) => [...list, { itemId: String.fromCharCode(65 + (list.length % 26)) + (list.length >= 26 ? String(list.length) : ''), name: '', price: 1, original: 1, stock: 10 }])}>{t('addItem')}</button>
          <button type="submit" class="primary" disabled={busy} data-testid="create-flash-sale">{t('createFlashSale')}</button>
        </p>
        {error !== null && <p role="alert" data-testid="create-error">{error}</p>}
      </form>
    </section>
  );
}
