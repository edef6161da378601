import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, serverNow, type FlashSale, type Order, type Show } from '../api';
import { errorText } from '../errors';
import { dateTime, duration, money } from '../format';
import { useTick } from '../hooks';
import { t } from '../i18n';
import { linesName, type Line } from '../lines';
import { holdsChanged, refreshHolds } from '../my-holds';
import { ExchangePanel } from './ExchangePanel';
import { RefundPanel } from './RefundPanel';
import { policyOpen, policyText } from './ShowPolicy';
import { TicketCard } from './TicketCard';
import { TicketsPdfLink } from './TicketsPdfLink';

/** The order as GET /orders/{id} answers it: its lines, and while unpaid, when payment is due. */
type OrderDetail = Order & { readonly lines?: readonly Line[]; readonly paymentDueAt?: string | null };

const settled = (o: Order) => o.status === 'TICKETED' || o.status === 'CANCELLED' || o.status === 'REFUNDED';
// REFUND_PENDING is not settled: the page reads the order again until the provider answers.
const unpaid = (o: Order) => o.status === 'INIT' || o.status === 'PENDING_PAY';
/** After paying, the order is re-read with growing pauses until it settles (bounded: ~2 minutes). */
const recheckDelaysMs = [300, 500, 800, 1200, 2000, 3000, 5000, 8000, 13000, 20000, 30000, 40000];

export function OrderPage({ orderId }: { orderId: string }) {
  const [order, setOrder] = useState<OrderDetail | null>(null);
  const [show, setShow] = useState<Show | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [paying, setPaying] = useState(false);
  const [busy, setBusy] = useState(false);
  const [watching, setWatching] = useState(0);

  useEffect(() => {
    let alive = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const read = async (attempt: number) => {
      try {
        const o = await api<OrderDetail>(`/orders/${encodeURIComponent(orderId)}`);
        if (!alive) return;
        setOrder(o);
        // Paid or ended: its hold is no longer live, and the banner elsewhere must not offer it.
        if (!unpaid(o)) void refreshHolds();
        const delay = recheckDelaysMs[attempt];
        // Paid but not ticketed yet, or payment sent: look again shortly, then less and less often.
        if (!settled(o) && (o.status === 'PAID' || watching > 0) && delay !== undefined) timer = setTimeout(() => void read(attempt + 1), delay);
      } catch (e) {
        if (alive) setError(errorText(e));
      }
    };
    void read(0);
    return () => {
      alive = false;
      clearTimeout(timer);
    };
  }, [orderId, watching]);

  // The show names the order: its title, date, venue, and the sections its seats are in.
  const showId = order?.showId ?? undefined;
  useEffect(() => {
    if (showId === undefined) return;
    let alive = true;
    api<Show>(`/shows/${encodeURIComponent(showId)}`).then((s) => alive && setShow(s), () => undefined);
    return () => {
      alive = false;
    };
  }, [showId]);

  // A flash sale's order is named by the sale: its title and the item bought.
  const [sale, setSale] = useState<FlashSale | null>(null);
  const saleId = order?.kind === 'FLASH_SALE' ? order.activityId : undefined;
  useEffect(() => {
    if (saleId === undefined) return;
    let alive = true;
    api<FlashSale>(`/flash-sales/${encodeURIComponent(saleId)}`).then((s) => alive && setSale(s), () => undefined);
    return () => {
      alive = false;
    };
  }, [saleId]);

  const pay = async () => {
    setPaying(true);
    setNotice(null);
    try {
      // A provider with a hosted payment page (Stripe Checkout): the buyer pays there, and comes back here.
      if (order?.checkoutUrl !== undefined) {
        location.assign(order.checkoutUrl);
        return;
      }
      await api(`/orders/${encodeURIComponent(orderId)}/sandbox-pay`, { method: 'POST', body: { outcome: 'SUCCEEDED' } });
      setWatching((w) => w + 1);
    } catch (e) {
      setNotice(errorText(e));
      setPaying(false);
    }
  };

  const cancel = async () => {
    setBusy(true);
    setNotice(null);
    try {
      const cancelled = await api<OrderDetail>(`/orders/${encodeURIComponent(orderId)}/cancel`, { method: 'POST' });
      setOrder((o) => ({ ...o, ...cancelled, paymentDueAt: null }));
      setNotice(t('orderCancelled'));
      holdsChanged();
    } catch (e) {
      setNotice(errorText(e));
      setWatching((w) => w + 1);
    } finally {
      setBusy(false);
    }
  };

  if (error !== null) return <p role="alert">{error}</p>;
  if (order === null) return <p role="status">{t('loading')}</p>;
  // A sale's items name its lines as a show's sections do (an item is a counted section).
  const sections = show?.sections ?? sale?.items.map((i) => ({ id: i.itemId, name: i.name, kind: 'GENERAL_ADMISSION' as const, capacity: i.stock, priceCents: i.priceCents })) ?? [];
  const what = linesName(sections, order.lines, order.seatIds);
  // The refund and exchange buttons only while the show's policy allows them (issue 35); a refund
  // already made keeps its panel (the history). Until the show has loaded, neither is offered.
  const ofShow = (order.kind ?? 'SHOW') === 'SHOW' && show !== null;
  const refundOpen = ofShow && policyOpen(show, 'refund');
  const exchangeOpen = ofShow && policyOpen(show, 'exchange');
  const refundHistory = order.status === 'REFUND_PENDING' || order.status === 'REFUNDED' || (order.refundedCents ?? 0) > 0;
  return (
    <section>
      <h1>{show?.title ?? sale?.title ?? t('orderTitle', { id: order.orderId })}</h1>
      {sale !== null && <p class="muted mono" data-testid="order-id">{t('orderOfSale', { id: order.orderId })}</p>}
      {show !== null && <p class="muted mono" data-testid="order-id">{t('orderTitle', { id: order.orderId })}</p>}
      {show !== null && <p data-testid="order-show">{t('orderShowWhen', { when: dateTime(show.startsAt), venue: show.venue, city: show.city })}</p>}
      <p data-testid="order-status" role="status">{t('orderStatus', { status: t(`order${order.status}` as const) })}</p>
      <p data-testid="order-lines">{what === '' ? money(order.amountCents) : `${what} · ${money(order.amountCents)}`}</p>
      {order.discount !== undefined && <p data-testid="order-discount">{t('orderDiscount', { code: order.discount.code, amount: money(order.discount.discountCents) })}</p>}
      {order.contact !== undefined && <p data-testid="order-contact">{t('orderContact', { ...order.contact })}</p>}
      {notice !== null && <p class="notice" role="alert" data-testid="order-notice">{notice}</p>}
      {unpaid(order) && order.paymentDueAt != null && (
        <PaymentDeadline dueAt={order.paymentDueAt} onLapse={() => setWatching((w) => w + 1)} />
      )}
      {unpaid(order) && (
        <div class="row">
          {order.status === 'PENDING_PAY' && (
            paying ? <p role="status">{t('paying')}</p> : <button type="button" class="primary" data-testid="pay" onClick={() => void pay()}>{order.checkoutUrl !== undefined ? t('payStripe', { amount: money(order.amountCents) }) : t('paySandbox', { amount: money(order.amountCents) })}</button>
          )}
          {!paying && <button type="button" data-testid="cancel-order" disabled={busy} onClick={() => void cancel()}>{t('cancelOrder')}</button>}
        </div>
      )}
      {order.status === 'TICKETED' && (
        <>
          <p>{t('ticketsReady')} <a href="/tickets">{t('seeTickets')}</a></p>
          <TicketsPdfLink orderId={order.orderId} />
          <ul class="cards">{order.tickets?.map((ticket) => <TicketCard key={ticket.ticketId} ticket={ticket} show={show ?? undefined} />)}</ul>
        </>
      )}
      {ofShow && ((order.status === 'TICKETED' && refundOpen) || refundHistory) && (
        <RefundPanel order={order} onChanged={() => setWatching((w) => w + 1)} />
      )}
      {ofShow && order.status === 'TICKETED' && !refundOpen && !refundHistory && <p data-testid="refund-closed">{policyText(show, 'refund')}</p>}
      {ofShow && order.status === 'TICKETED' && <p data-testid="exchange-deadline">{policyText(show, 'exchange')}</p>}
      {ofShow && order.status === 'TICKETED' && exchangeOpen && <ExchangePanel order={order} />}
    </section>
  );
}

/** "Pay by 20:15 · 04:12 left": the hold's expiry, counting down; at zero the order is read again (cancelled with its hold). */
function PaymentDeadline({ dueAt, onLapse }: { dueAt: string; onLapse(): void }) {
  useTick(1000);
  const left = Date.parse(dueAt) - serverNow();
  useEffect(() => {
    if (left <= 0) onLapse();
  }, [left <= 0]);
  return <p class="countdown" role="timer" aria-live="off" data-testid="payment-deadline">{t('payBy', { when: dateTime(dueAt), time: duration(left) })}</p>;
}
