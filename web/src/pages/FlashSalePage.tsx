import { useState } from 'preact/hooks';
import { admissionHeaders, needsQueue } from '../admission';
import { AdmissionLine, QueueNeeded } from './QueueNotes';
import { api, ApiError, type FlashSale, type FlashSaleItem, type Order } from '../api';
import { errorText } from '../errors';
import { duration, money } from '../format';
import { useLoad, useTick } from '../hooks';
import { t } from '../i18n';
import { navigate, signInHref } from '../router';
import { session } from '../session';

/** A fresh idempotency key per press of "buy": a retried request (same press) never buys twice. */
const newKey = (): string => (typeof crypto.randomUUID === 'function' ? crypto.randomUUID() : `k${Date.now()}${Math.random().toString(36).slice(2)}`);

/**
 * A flash sale (seed 001 秒杀): its items at the sale price next to the original, what is left, the
 * countdown to the opening or the close, and "buy", which takes the units and opens the order in
 * one step; the order page then takes the payment and shows the tickets.
 */
export function FlashSalePage({ flashSaleId }: { flashSaleId: string }) {
  const sale = useLoad(async () => ({ loadedAt: Date.now(), sale: await api<FlashSale>(`/flash-sales/${encodeURIComponent(flashSaleId)}`) }), [flashSaleId]);
  const now = useTick();
  if (sale.error !== null) return <p role="alert">{sale.error} <button type="button" onClick={sale.reload}>{t('retry')}</button></p>;
  if (sale.data === null) return <p role="status">{t('loading')}</p>;
  const { loadedAt, sale: s } = sale.data;
  // The tick may predate the load: never count time backwards.
  const passed = Math.max(0, now - loadedAt);
  const toStart = s.secondsToStart * 1000 - passed;
  const toEnd = s.secondsToEnd * 1000 - passed;
  const open = s.status !== 'OFFLINE' && toStart <= 0 && toEnd > 0;
  const status = s.status === 'OFFLINE' ? 'OFFLINE' : toStart > 0 ? 'UPCOMING' : toEnd > 0 ? 'ON_SALE' : 'ENDED';
  return (
    <section>
      <h1>{s.title}</h1>
      {s.imageUrl && <img class="card-image" src={s.imageUrl} alt={s.title} width={640} height={360} decoding="async" />}
      {s.description !== '' && <p>{s.description}</p>}
      <p>
        <span class={`badge badge-${status === 'OFFLINE' ? 'ended' : status.toLowerCase()}`} data-testid="sale-status">
          {status === 'ON_SALE' ? t('statusOnSale') : status === 'UPCOMING' ? t('statusUpcoming') : status === 'OFFLINE' ? t('statusOffline') : t('statusEnded')}
        </span>{' '}
        {status === 'UPCOMING' && <span class="countdown" role="timer" aria-live="off" data-testid="countdown">{t('saleOpensIn', { time: duration(toStart) })}</span>}
        {status === 'ON_SALE' && <span class="countdown" role="timer" aria-live="off" data-testid="countdown">{t('saleClosesIn', { time: duration(toEnd) })}</span>}
      </p>
      <p class="muted">{t('maxPerUserNote', { n: s.maxPerUser })}</p>
      <h2>{t('flashItems')}</h2>
      <ul class="cards">
        {s.items.map((item) => <ItemCard key={item.itemId} sale={s} item={item} open={open} onChange={sale.reload} />)}
      </ul>
    </section>
  );
}

function ItemCard({ sale, item, open, onChange }: { sale: FlashSale; item: FlashSaleItem; open: boolean; onChange(): void }) {
  const [quantity, setQuantity] = useState(1);
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const [queueNeeded, setQueueNeeded] = useState(false);
  const soldOut = item.available === 0;
  const most = Math.max(1, Math.min(sale.maxPerUser, item.available, 10));
  const buy = async () => {
    setBusy(true);
    setNotice(null);
    try {
      const order = await api<Order>(`/flash-sales/${encodeURIComponent(sale.flashSaleId)}/orders`, {
        method: 'POST', body: { itemId: item.itemId, quantity }, headers: { 'x-idempotency-key': newKey(), ...admissionHeaders(sale.flashSaleId) },
      });
      navigate(`/orders/${encodeURIComponent(order.orderId)}`);
    } catch (e) {
      setNotice(errorText(e, true));
      setQueueNeeded(e instanceof ApiError && needsQueue(e.code));
      onChange();
    } finally {
      setBusy(false);
    }
  };
  const quantityId = `quantity-${item.itemId}`;
  return (
    <li class="card" data-testid={`item-${item.itemId}`}>
      <h3>{item.name}</h3>
      <p>
        <strong data-testid={`price-${item.itemId}`}>{money(item.priceCents, sale.currency)}</strong>{' '}
        {item.originalPriceCents > item.priceCents && <s class="muted">{t('originalPrice', { price: money(item.originalPriceCents, sale.currency) })}</s>}
      </p>
      <p class="muted" data-testid={`left-${item.itemId}`}>{soldOut ? t('statusSoldOut') : t('itemLeft', { n: item.available, total: item.stock })}</p>
      {notice !== null && <p class="notice" role="alert" data-testid="buy-notice">{notice}</p>}
      {queueNeeded && <QueueNeeded activityId={sale.flashSaleId} />}
      <AdmissionLine activityId={sale.flashSaleId} />
      {session.value === null ? (
        <p><a class="button" href={signInHref()}>{t('signInToOrder')}</a></p>
      ) : (
        <div class="row">
          <label for={quantityId}>{t('flashQuantity')}</label>
          <select id={quantityId} value={String(quantity)} onChange={(e) => setQuantity(Number((e.target as HTMLSelectElement).value))} disabled={!open || soldOut}>
            {Array.from({ length: most }, (_, i) => i + 1).map((n) => <option key={n} value={String(n)}>{n}</option>)}
          </select>
          {busy ? <p role="status">{t('buying')}</p> : (
            <button type="button" class="primary" data-testid={`buy-${item.itemId}`} disabled={!open || soldOut} onClick={() => void buy()}>
              {t('buyItem', { name: item.name })}
            </button>
          )}
        </div>
      )}
    </li>
  );
}
