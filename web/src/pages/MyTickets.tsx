import { api, type Show, type Ticket } from '../api';
import { useLoad } from '../hooks';
import { t } from '../i18n';
import { session } from '../session';
import { TicketCard } from './TicketCard';
import { TicketsPdfLinks } from './TicketsPdfLink';

export function MyTickets() {
  const loaded = useLoad(async () => {
    if (session.value === null) return null;
    const { tickets } = await api<{ tickets: Ticket[] }>('/me/tickets?limit=100');
    const ids = [...new Set(tickets.map((tk) => tk.showId))];
    const shows = await Promise.all(ids.map((id) => api<Show>(`/shows/${encodeURIComponent(id)}`).catch(() => null)));
    const titles = new Map(shows.filter((s): s is Show => s !== null).map((s) => [s.showId, s.title]));
    return { tickets, titles };
  }, [session.value?.token]);
  if (session.value === null) return <p><a href="/signin">{t('navSignIn')}</a></p>;
  if (loaded.error !== null) return <p role="alert">{loaded.error}</p>;
  if (loaded.data === null || loaded.data === undefined) return <p role="status">{t('loading')}</p>;
  const { tickets, titles } = loaded.data;
  return (
    <section>
      <h1>{t('ticketsTitle')}</h1>
      {tickets.length === 0 && <p>{t('noTickets')}</p>}
      <TicketsPdfLinks tickets={tickets} titles={titles} />
      <ul class="cards">{tickets.map((ticket) => <TicketCard key={ticket.ticketId} ticket={ticket} title={titles.get(ticket.showId) ?? ticket.showId} />)}</ul>
    </section>
  );
}
