import { renderSVG } from 'uqr';
import { useMemo } from 'preact/hooks';
import type { Ticket } from '../api';
import { t } from '../i18n';

/** A ticket with its signed QR payload drawn as an image, big enough to scan from a phone. */
export function TicketCard({ ticket, title }: { ticket: Ticket; title?: string }) {
  const src = useMemo(() => `data:image/svg+xml;charset=utf-8,${encodeURIComponent(renderSVG(ticket.qr, { border: 2, ecc: 'M' }))}`, [ticket.qr]);
  // A general-admission place has no seat.
  const seat = ticket.seatId ?? t('ticketStanding');
  return (
    <li class="card ticket" data-testid="ticket">
      {title !== undefined && <h2>{title}</h2>}
      <p class="big">{ticket.seatId === null ? seat : t('ticketSeat', { seat })}</p>
      <img class="qr" src={src} width={260} height={260} alt={t('ticketQrAlt', { seat })} data-testid="ticket-qr" />
      <p>{t('ticketStatus', { status: t(`ticket${ticket.status}` as const) })}</p>
      <p class="muted mono">{ticket.code}</p>
    </li>
  );
}
