import { useState } from 'preact/hooks';
import { api, type Order } from '../api';
import { errorText } from '../errors';
import { t } from '../i18n';

interface ExchangeAnswer {
  readonly order: { readonly orderId: string };
}

/**
 * Exchange (改签) of a ticketed order (issue 25 item 4): other seats of this show or another, by
 * seat ids or section + quantity. The server holds the new seats, then swaps them in all or
 * nothing; on any refusal the buyer keeps the old tickets. Only even swaps are accepted.
 */
export function ExchangePanel({ order }: { order: Order }) {
  const [showId, setShowId] = useState(order.showId ?? '');
  const [seats, setSeats] = useState('');
  const [section, setSection] = useState('');
  const [quantity, setQuantity] = useState(1);
  const [notice, setNotice] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const valid = (order.tickets ?? []).filter((k) => k.status === 'VALID');
  if (order.status !== 'TICKETED' || valid.length === 0) return null;

  const send = async () => {
    const seatIds = seats.split(/[\s,]+/).filter((s) => s !== '');
    const target = showId.trim() === '' || showId.trim() === (order.showId ?? '') ? {} : { showId: showId.trim() };
    const body = seatIds.length > 0 ? { ...target, seatIds } : { ...target, section: section.trim(), quantity };
    setBusy(true);
    setNotice(null);
    try {
      const answer = await api<ExchangeAnswer>(`/orders/${encodeURIComponent(order.orderId)}/exchange`, { method: 'POST', body });
      setDone(answer.order.orderId);
    } catch (e) {
      setNotice(errorText(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="exchange-title" data-testid="exchange-panel">
      <h2 id="exchange-title">{t('exchangeTitle')}</h2>
      <p>{t('exchangeHint')}</p>
      {notice !== null && <p class="notice" role="alert" data-testid="exchange-notice">{notice}</p>}
      {done !== null
        ? <p data-testid="exchange-done">{t('exchangeDone')} <a href={`/orders/${encodeURIComponent(done)}`} data-testid="exchange-new-order">{t('exchangeSeeOrder')}</a></p>
        : (
          <fieldset disabled={busy}>
            <label>{t('exchangeShow')} <input data-testid="exchange-show" value={showId} maxLength={64} onInput={(e) => setShowId(e.currentTarget.value)} /></label>
            <label>{t('exchangeSeats')} <input data-testid="exchange-seats" value={seats} placeholder="A-1-1, A-1-2" onInput={(e) => setSeats(e.currentTarget.value)} /></label>
            <p>{t('exchangeOr')}</p>
            <label>{t('exchangeSection')} <input data-testid="exchange-section" value={section} maxLength={8} onInput={(e) => setSection(e.currentTarget.value)} /></label>
            <label>{t('exchangeQuantity')} <input type="number" min={1} max={20} data-testid="exchange-quantity" value={quantity} onInput={(e) => setQuantity(Number(e.currentTarget.value))} /></label>
            <p class="row"><button type="button" data-testid="exchange-send" onClick={() => void send()}>{t('exchangeSend')}</button></p>
          </fieldset>
        )}
    </section>
  );
}
