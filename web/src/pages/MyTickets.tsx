import { api, type Show, type Ticket } from '../api';
import { useLoad } from '../hooks';
import { t } from '../i18n';
import { session } from '../session';
import { TicketCard } from './TicketCard';
import { TicketsPdfLinks } from './TicketsPdfLink';

/** Tickets one page shows; their shows are read once each, so the page costs at most this many show reads. */
const ticketsPerPage = 50;

export function MyTickets() {
  const loaded = useLoad(async () => {
    if (session.value === null) return null;
    const { tickets } = await api<{ tickets: Ticket[] }>(`/me/tickets?limit=${ticketsPerPage}`);
    const ids = [...new Set(tickets.map((tk) => tk.showId))];
    const shows = await Promise.all(ids.map((id) => api<Show>(`/shows/${encodeURIComponent(id)}`).catch(() => null)));
    return { tickets, shows: new Map(shows.filter((s): s is Show => s !== null).map((s) => [s.showId, s])) };
  }, [session.value?.token]);
  if (session.value === null) return <p><a href="/signin">{t('navSignIn')}</a></p>;
  if (loaded.error !== null) return <p role="alert">{loaded.error}</p>;
  if (loaded.data === null || loaded.data === undefined) return <p role="status">{t('loading')}</p>;
  const { tickets, shows } = loaded.data;
  return (
    <section>
      <h1>{t('ticketsTitle')}</h1>
      {tickets.length === 0 && <p>{t('noTickets')}</p>}
      <TicketsPdfLinks tickets={tickets} shows={shows} />
      <ul class="cards">{tickets.map((ticket) => <TicketCard key={ticket.ticketId} ticket={ticket} show={shows.get(ticket.showId)} title={ticket.showId} />)}</ul>
    </section>
  );
}
