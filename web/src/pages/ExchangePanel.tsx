import { useState } from 'preact/hooks';
import { api, type Order, type Show } from '../api';
import { errorText } from '../errors';
import { money } from '../format';
import { t } from '../i18n';
import { parseSeatId } from '../seat-names';

interface ExchangeAnswer {
  /** PENDING: dearer seats, held until the new order's difference is paid (the old tickets stay valid meanwhile). */
  readonly exchange?: { readonly status?: string };
  readonly order: { readonly orderId: string; readonly amountCents?: number };
  readonly refund?: { readonly amountCents: number } | null;
}

/** What the buyer is told before confirming: the list difference and what it means in money. */
interface Quote {
  /** The new seats' list price minus that of the tickets given up. */
  readonly differenceCents: number;
  /** A cheaper swap: what goes back (never more than what the tickets given up were paid). */
  readonly backCents: number;
}

const priceOf = (show: Show, sectionId: string): number | undefined => show.sections.find((s) => s.id === sectionId)?.priceCents;

/**
 * Exchange (改签) of a ticketed order, whole or some of its tickets (issue 25 item 4, issue 32):
 * other seats of this show or another, by seat ids or section + quantity. The panel first works out
 * the difference from the shows' list prices (a cheaper swap gives it back, up to what the tickets
 * were paid; dearer seats are held while the buyer pays the difference on the new order's page,
 * the old tickets valid until then) and asks to confirm; the server holds the new
 * seats, then swaps them in all or nothing, and decides the money itself. On any refusal the buyer
 * keeps the old tickets.
 */
export function ExchangePanel({ order }: { order: Order }) {
  const [showId, setShowId] = useState(order.showId ?? '');
  const [seats, setSeats] = useState('');
  const [section, setSection] = useState('');
  const [quantity, setQuantity] = useState(1);
  const [given, setGiven] = useState<ReadonlySet<string> | null>(null);
  const [quote, setQuote] = useState<Quote | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [done, setDone] = useState<{ orderId: string; backCents: number; toPayCents: number | null } | null>(null);
  const [busy, setBusy] = useState(false);
  const valid = (order.tickets ?? []).filter((k) => k.status === 'VALID');
  if (order.status !== 'TICKETED' || valid.length === 0) return null;
  const chosen = valid.filter((k) => given === null || given.has(k.ticketId));

  const body = () => {
    const seatIds = seats.split(/[\s,]+/).filter((s) => s !== '');
    const target = showId.trim() === '' || showId.trim() === (order.showId ?? '') ? {} : { showId: showId.trim() };
    const partial = chosen.length < valid.length ? { ticketIds: chosen.map((k) => k.ticketId) } : {};
    return seatIds.length > 0 ? { ...target, ...partial, seatIds } : { ...target, ...partial, section: section.trim(), quantity };
  };
  const edited = () => {
    setQuote(null);
    setNotice(null);
  };

  /** The difference from the list prices, before anything is held. */
  const check = async () => {
    setBusy(true);
    setNotice(null);
    try {
      const oldShow = await api<Show>(`/shows/${encodeURIComponent(order.showId ?? '')}`);
      const newShowId = showId.trim() === '' ? order.showId ?? '' : showId.trim();
      const newShow = newShowId === oldShow.showId ? oldShow : await api<Show>(`/shows/${encodeURIComponent(newShowId)}`);
      const seatIds = seats.split(/[\s,]+/).filter((s) => s !== '');
      const newList = seatIds.length > 0
        ? seatIds.reduce((sum, id) => sum + (priceOf(newShow, parseSeatId(id)?.sectionId ?? '') ?? 0), 0)
        : quantity * (priceOf(newShow, section.trim()) ?? 0);
      const oldList = chosen.reduce((sum, k) => sum + (priceOf(oldShow, k.sectionId ?? parseSeatId(k.seatId ?? '')?.sectionId ?? '') ?? 0), 0);
      const paid = chosen.reduce((sum, k) => sum + (k.paidCents ?? 0), 0);
      const differenceCents = newList - oldList;
      setQuote({ differenceCents, backCents: differenceCents < 0 ? Math.min(paid, -differenceCents) : 0 });
    } catch (e) {
      setNotice(errorText(e));
    } finally {
      setBusy(false);
    }
  };

  const send = async () => {
    setBusy(true);
    setNotice(null);
    try {
      const answer = await api<ExchangeAnswer>(`/orders/${encodeURIComponent(order.orderId)}/exchange`, {
        method: 'POST', body: body(), headers: { 'x-idempotency-key': `web-${crypto.randomUUID()}` },
      });
      setDone({
        orderId: answer.order.orderId, backCents: answer.refund?.amountCents ?? 0,
        toPayCents: answer.exchange?.status === 'PENDING' ? Math.max(0, quote?.differenceCents ?? 0) : null,
      });
    } catch (e) {
      setNotice(errorText(e));
      setQuote(null);
    } finally {
      setBusy(false);
    }
  };
  const toggle = (ticketId: string) => {
    edited();
    setGiven((s) => {
      const next = new Set(s ?? valid.map((k) => k.ticketId));
      if (next.has(ticketId)) next.delete(ticketId);
      else next.add(ticketId);
      return next;
    });
  };

  return (
    <section aria-labelledby="exchange-title" data-testid="exchange-panel">
      <h2 id="exchange-title">{t('exchangeTitle')}</h2>
      <p>{t('exchangeHint')}</p>
      {notice !== null && <p class="notice" role="alert" data-testid="exchange-notice">{notice}</p>}
      {done !== null
        ? (
          <p data-testid="exchange-done">
            {done.toPayCents !== null ? t('exchangePayDifference', { amount: money(done.toPayCents) }) : t('exchangeDone')} {done.backCents > 0 && <span data-testid="exchange-back">{t('exchangeBackSent', { amount: money(done.backCents) })} </span>}
            <a href={`/orders/${encodeURIComponent(done.orderId)}`} data-testid="exchange-new-order">{t('exchangeSeeOrder')}</a>
          </p>
        )
        : (
          <fieldset disabled={busy}>
            {valid.length > 1 && (
              <>
                <legend>{t('exchangeChoose')}</legend>
                {valid.map((k) => (
                  <label key={k.ticketId} class="row">
                    <input type="checkbox" data-testid={`exchange-pick-${k.ticketId}`} checked={given === null || given.has(k.ticketId)} onChange={() => toggle(k.ticketId)} />
                    <span class="mono">{k.seatId ?? k.code}</span>
                  </label>
                ))}
              </>
            )}
            <label>{t('exchangeShow')} <input data-testid="exchange-show" value={showId} maxLength={64} onInput={(e) => { edited(); setShowId(e.currentTarget.value); }} /></label>
            <label>{t('exchangeSeats')} <input data-testid="exchange-seats" value={seats} placeholder="A-1-1, A-1-2" onInput={(e) => { edited(); setSeats(e.currentTarget.value); }} /></label>
            <p>{t('exchangeOr')}</p>
            <label>{t('exchangeSection')} <input data-testid="exchange-section" value={section} maxLength={8} onInput={(e) => { edited(); setSection(e.currentTarget.value); }} /></label>
            <label>{t('exchangeQuantity')} <input type="number" min={1} max={20} data-testid="exchange-quantity" value={quantity} onInput={(e) => { edited(); setQuantity(Number(e.currentTarget.value)); }} /></label>
            {quote !== null && (
              <p data-testid="exchange-quote" data-difference={quote.differenceCents} role="status">
                {quote.differenceCents > 0
                  ? t('exchangeDearer', { amount: money(quote.differenceCents) })
                  : quote.differenceCents < 0 ? t('exchangeCheaper', { amount: money(quote.backCents) }) : t('exchangeEven')}
              </p>
            )}
            <p class="row">
              {quote === null
                ? <button type="button" data-testid="exchange-check" disabled={chosen.length === 0} onClick={() => void check()}>{t('exchangeCheck')}</button>
                : <button type="button" data-testid="exchange-send" onClick={() => void send()}>{t('exchangeSend')}</button>}
            </p>
          </fieldset>
        )}
    </section>
  );
}
