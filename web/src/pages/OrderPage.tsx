import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, type Order } from '../api';
import { money } from '../format';
import { t } from '../i18n';
import { TicketCard } from './TicketCard';
import { TicketsPdfLink } from './TicketsPdfLink';

const settled = (o: Order) => o.status === 'TICKETED' || o.status === 'CANCELLED' || o.status === 'REFUNDED';
/** After paying, the order is re-read with growing pauses until it settles (bounded: ~2 minutes). */
const recheckDelaysMs = [300, 500, 800, 1200, 2000, 3000, 5000, 8000, 13000, 20000, 30000, 40000];

export function OrderPage({ orderId }: { orderId: string }) {
  const [order, setOrder] = useState<Order | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [paying, setPaying] = useState(false);
  const [watching, setWatching] = useState(0);

  useEffect(() => {
    let alive = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const read = async (attempt: number) => {
      try {
        const o = await api<Order>(`/orders/${encodeURIComponent(orderId)}`);
        if (!alive) return;
        setOrder(o);
        const delay = recheckDelaysMs[attempt];
        // Paid but not ticketed yet, or payment sent: look again shortly, then less and less often.
        if (!settled(o) && (o.status === 'PAID' || watching > 0) && delay !== undefined) timer = setTimeout(() => void read(attempt + 1), delay);
      } catch (e) {
        if (alive) setError(e instanceof ApiError ? e.message : String(e));
      }
    };
    void read(0);
    return () => {
      alive = false;
      clearTimeout(timer);
    };
  }, [orderId, watching]);

  const pay = async () => {
    setPaying(true);
    try {
      await api(`/orders/${encodeURIComponent(orderId)}/sandbox-pay`, { method: 'POST', body: { outcome: 'SUCCEEDED' } });
      setWatching((w) => w + 1);
    } catch (e) {
      setError(e instanceof ApiError ? e.message : String(e));
      setPaying(false);
    }
  };

  if (error !== null) return <p role="alert">{error}</p>;
  if (order === null) return <p role="status">{t('loading')}</p>;
  return (
    <section>
      <h1>{t('orderTitle', { id: order.orderId })}</h1>
      <p data-testid="order-status" role="status">{t('orderStatus', { status: t(`order${order.status}` as const) })}</p>
      <p>{order.seatIds.join(', ')} · {money(order.amountCents)}</p>
      {order.status === 'PENDING_PAY' && (
        paying ? <p role="status">{t('paying')}</p> : <button type="button" class="primary" data-testid="pay" onClick={() => void pay()}>{t('paySandbox', { amount: money(order.amountCents) })}</button>
      )}
      {order.status === 'TICKETED' && (
        <>
          <p>{t('ticketsReady')} <a href="/tickets">{t('seeTickets')}</a></p>
          <TicketsPdfLink orderId={order.orderId} />
          <ul class="cards">{order.tickets?.map((ticket) => <TicketCard key={ticket.ticketId} ticket={ticket} />)}</ul>
        </>
      )}
    </section>
  );
}
