import { useState } from 'preact/hooks';
import { ApiError } from '../api';
import { t } from '../i18n';
import { downloadWithToken } from '../authed-download';

/**
 * "Download tickets (PDF)" for one order. The API takes a bearer token, not a cookie, so a plain
 * link cannot carry it: a click fetches the PDF with the token and saves it from a blob URL. The
 * href is the real address, so "copy link" and the status bar still say what it is.
 */
export function TicketsPdfLink({ orderId, title }: { orderId: string; title?: string }) {
  const [state, setState] = useState<'idle' | 'busy' | string>('idle');
  const href = `/api/v1/orders/${encodeURIComponent(orderId)}/tickets.pdf`;
  const download = async (event: MouseEvent) => {
    event.preventDefault();
    if (state === 'busy') return;
    setState('busy');
    try {
      await downloadWithToken(href, `tickets-${orderId}.pdf`);
      setState('idle');
    } catch (e) {
      setState(e instanceof ApiError && e.code === 'ORDER_NOT_TICKETED' ? t('ticketsPdfNotYet') : t('ticketsPdfFailed'));
    }
  };
  return (
    <p>
      <a href={href} download={`tickets-${orderId}.pdf`} onClick={(e) => void download(e)} aria-busy={state === 'busy'} data-testid="tickets-pdf">
        {title === undefined ? t('ticketsPdfDownload') : t('ticketsPdfDownloadFor', { title })}
      </a>
      {state !== 'idle' && state !== 'busy' && <span role="alert"> {state}</span>}
    </p>
  );
}

/** One download link per order among a list of tickets, named by the show. */
export function TicketsPdfLinks({ tickets, titles }: { tickets: readonly { orderId: string; showId: string }[]; titles: ReadonlyMap<string, string> }) {
  const orders = new Map(tickets.map((ticket) => [ticket.orderId, titles.get(ticket.showId) ?? ticket.showId]));
  return <>{[...orders].map(([orderId, title]) => <TicketsPdfLink key={orderId} orderId={orderId} {...(orders.size > 1 ? { title } : {})} />)}</>;
}
