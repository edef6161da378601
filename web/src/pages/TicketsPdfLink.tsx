import { useState } from 'preact/hooks';
import { ApiError, type Show, type Ticket } from '../api';
import { ticketPlace } from './TicketCard';
import { t } from '../i18n';
import { downloadWithToken } from '../authed-download';

/**
 * "Download tickets (PDF)" for one order. The API takes a bearer token, not a cookie, so a plain
 * link cannot carry it: a click fetches the PDF with the token and saves it from a blob URL. The
 * href is the real address, so "copy link" and the status bar still say what it is.
 */
export function TicketsPdfLink({ orderId, title, places }: { orderId: string; title?: string; places?: string }) {
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
        {title === undefined ? t('ticketsPdfDownload') : places === undefined ? t('ticketsPdfDownloadFor', { title }) : t('ticketsPdfDownloadForPlaces', { title, places })}
      </a>
      {state !== 'idle' && state !== 'busy' && <span role="alert"> {state}</span>}
    </p>
  );
}

/** Places named in a link at most; more read as "…". */
const placesInLink = 3;

/**
 * One download link per order among a list of tickets, named by the show, and by the order's places
 * when several orders are of one show (three orders of one show read as three different links,
 * issue 35 item 13). A show that cannot be read is named generically, never by its id.
 */
export function TicketsPdfLinks({ tickets, shows }: { tickets: readonly (Ticket & { readonly sectionId?: string })[]; shows: ReadonlyMap<string, Show> }) {
  const orders = new Map<string, { showId: string; places: string[] }>();
  for (const ticket of tickets) {
    const order = orders.get(ticket.orderId) ?? { showId: ticket.showId, places: [] };
    order.places.push(ticketPlace(ticket, shows.get(ticket.showId)));
    orders.set(ticket.orderId, order);
  }
  const perShow = new Map<string, number>();
  for (const { showId } of orders.values()) perShow.set(showId, (perShow.get(showId) ?? 0) + 1);
  return (
    <>
      {[...orders].map(([orderId, { showId, places }]) => {
        const title = shows.get(showId)?.title;
        const named = places.slice(0, placesInLink).join(' / ') + (places.length > placesInLink ? ' …' : '');
        const props = orders.size === 1 || title === undefined ? {} : (perShow.get(showId) ?? 0) > 1 ? { title, places: named } : { title };
        return <TicketsPdfLink key={orderId} orderId={orderId} {...props} />;
      })}
    </>
  );
}
