import { renderSVG } from 'uqr';
import { useMemo } from 'preact/hooks';
import type { Show, Ticket } from '../api';
import { dateTime } from '../format';
import { t } from '../i18n';
import { seatName } from '../seat-names';

/** Where a ticket lets its holder in: the seat ("Stalls, row 4, seat 10"), else its standing section. */
export function ticketPlace(ticket: Pick<Ticket, 'seatId'> & { readonly sectionId?: string }, show: Pick<Show, 'sections'> | undefined): string {
  const sections = show?.sections ?? [];
  const sectionName = sections.find((s) => s.id === ticket.sectionId)?.name ?? ticket.sectionId;
  // A general-admission place has no seat: name its section.
  if (ticket.seatId !== null) return seatName(sections, ticket.seatId);
  return sectionName === undefined ? t('ticketStanding') : t('ticketPlace', { section: sectionName });
}

/**
 * A ticket with its signed QR payload drawn as an image, big enough to scan from a phone, and what
 * a person checks on it: the show, when and where, and the seat ("Stalls, row 4, seat 10") or the
 * standing section.
 */
export function TicketCard({ ticket, show, title }: { ticket: Ticket & { readonly sectionId?: string }; show?: Show | undefined; title?: string }) {
  const src = useMemo(() => `data:image/svg+xml;charset=utf-8,${encodeURIComponent(renderSVG(ticket.qr, { border: 2, ecc: 'M' }))}`, [ticket.qr]);
  const place = ticketPlace(ticket, show);
  const heading = show?.title ?? title;
  return (
    <li class="card ticket" data-testid="ticket">
      {heading !== undefined && <h2>{heading}</h2>}
      {show !== undefined && <p data-testid="ticket-show">{t('orderShowWhen', { when: dateTime(show.startsAt), venue: show.venue, city: show.city })}</p>}
      <p class="big" data-testid="ticket-place">{place}</p>
      <img class="qr" src={src} width={260} height={260} alt={t('ticketQrAltFor', { what: place })} data-testid="ticket-qr" />
      <p>{t('ticketStatus', { status: t(`ticket${ticket.status}` as const) })}</p>
      <p class="muted mono">{ticket.code}</p>
    </li>
  );
}
