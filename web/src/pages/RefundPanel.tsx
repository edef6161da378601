import { useEffect, useRef, useState } from 'preact/hooks';
import { api, type Order, type Refund } from '../api';
import { errorText } from '../errors';
import { dateTime, money } from '../format';
import { t } from '../i18n';

interface RefundsAnswer {
  readonly refunds: readonly Refund[];
  readonly refundUntil: string | null;
}

/**
 * Refunds of an order (issue 25), for its buyer and for an organizer (the server decides who may:
 * a buyer within the show's policy, an admin any time): the policy, the refunds so far, and the
 * valid tickets to choose from, each with what refunding it gives back (its paid price). Each click sends its own idempotency key, so a double click or a
 * retried request is one refund.
 */
export function RefundPanel({ order, onChanged }: { order: Order; onChanged(): void }) {
  const [answer, setAnswer] = useState<RefundsAnswer | null>(null);
  const [chosen, setChosen] = useState<ReadonlySet<string>>(new Set());
  const [notice, setNotice] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [version, setVersion] = useState(0);
  /** The refunds' states last read: when one changes (settled by the provider), the order is read again. */
  const seen = useRef<string | null>(null);

  useEffect(() => {
    let alive = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const read = async () => {
      try {
        const a = await api<RefundsAnswer>(`/orders/${encodeURIComponent(order.orderId)}/refunds`);
        if (!alive) return;
        setAnswer(a);
        const states = a.refunds.map((r) => `${r.refundId}:${r.status}`).join(',');
        if (seen.current !== null && seen.current !== states) onChanged();
        seen.current = states;
        // A refund waits for the provider: look again until it is settled.
        if (a.refunds.some((r) => r.status === 'PENDING')) timer = setTimeout(() => void read(), 700);
      } catch (e) {
        if (alive) setNotice(errorText(e));
      }
    };
    void read();
    return () => {
      alive = false;
      clearTimeout(timer);
    };
  }, [order.orderId, version]);

  const valid = (order.tickets ?? []).filter((k) => k.status === 'VALID');
  const send = async (ticketIds: readonly string[] | null) => {
    setBusy(true);
    setNotice(null);
    try {
      await api(`/orders/${encodeURIComponent(order.orderId)}/refund`, {
        method: 'POST', body: ticketIds === null ? {} : { ticketIds }, headers: { 'x-idempotency-key': `web-${crypto.randomUUID()}` },
      });
      setNotice(t('refundSent'));
      setChosen(new Set());
      setVersion((v) => v + 1);
      onChanged();
    } catch (e) {
      setNotice(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  const toggle = (ticketId: string) => setChosen((s) => {
    const next = new Set(s);
    if (next.has(ticketId)) next.delete(ticketId);
    else next.add(ticketId);
    return next;
  });

  return (
    <section aria-labelledby="refund-title" data-testid="refund-panel">
      <h2 id="refund-title">{t('refundTitle')}</h2>
      {answer !== null && (
        <p data-testid="refund-policy">{answer.refundUntil === null ? t('refundNoPolicy') : t('refundUntil', { when: dateTime(answer.refundUntil) })}</p>
      )}
      {(order.refundedCents ?? 0) > 0 && <p data-testid="refunded-so-far">{t('refundedSoFar', { amount: money(order.refundedCents ?? 0) })}</p>}
      {answer !== null && answer.refunds.length > 0 && (
        <ul data-testid="refund-list">
          {answer.refunds.map((r) => (
            <li key={r.refundId} data-testid="refund-row" data-status={r.status}>
              {t('refundRow', { amount: money(r.amountCents), status: t(`refund${r.status}` as const) })}
              {r.reason === 'exchange difference' && r.ticketIds.length === 0 && <> · {t('refundExchangeDifference')}</>}
            </li>
          ))}
        </ul>
      )}
      {notice !== null && <p class="notice" role="alert" data-testid="refund-notice">{notice}</p>}
      {order.status === 'TICKETED' && valid.length > 0 && (
        <fieldset disabled={busy}>
          <legend>{t('refundChoose')}</legend>
          {valid.map((k) => (
            <label key={k.ticketId} class="row">
              <input type="checkbox" data-testid={`refund-pick-${k.ticketId}`} checked={chosen.has(k.ticketId)} onChange={() => toggle(k.ticketId)} />
              <span class="mono">{k.seatId ?? k.code}</span>
              {k.paidCents !== undefined && <span data-testid={`refund-amount-${k.ticketId}`}>{t('refundTicketAmount', { amount: money(k.paidCents) })}</span>}
            </label>
          ))}
          <p class="row">
            <button type="button" data-testid="refund-selected" disabled={chosen.size === 0} onClick={() => void send([...chosen])}>{t('refundSelected', { n: chosen.size })}</button>
            <button type="button" data-testid="refund-whole" onClick={() => void send(null)}>{t('refundWhole')}</button>
          </p>
        </fieldset>
      )}
    </section>
  );
}
