import type { SectionSpec, Show, Ticket } from '../domain/index.js';
import type { AppContext } from './context.js';
import { AppError, found } from './errors.js';
import { encodeTicketQr } from './ticket-qr.js';

/** Where a ticket admits, as a person reads it; the edge words it. */
export type PrintablePlace =
  | { readonly kind: 'SEAT'; readonly section: string; readonly row: number; readonly number: number }
  | { readonly kind: 'GENERAL_ADMISSION'; readonly section: string };

export interface PrintableTicket {
  readonly ticketId: string;
  readonly code: string;
  /** The signed payload the ticket's QR code carries (the same as GET /tickets/{id}). */
  readonly qr: string;
  readonly status: Ticket['status'];
  readonly place: PrintablePlace;
}

export interface PrintableOrder {
  readonly orderId: string;
  readonly show: Pick<Show, 'showId' | 'title' | 'venue' | 'city' | 'startsAt'>;
  /** One per unit of the order: bounded by the hold limits, so a print is bounded too. */
  readonly tickets: readonly PrintableTicket[];
}

/**
 * An order's tickets with what a printed ticket shows: the show, each ticket's place named by its
 * section's name, its code and QR payload. Visible to whom GET /orders/{id} is (the buyer, or an
 * admin); anyone else is told the order does not exist. An order without tickets yet (not paid, or
 * paid and being ticketed) is ORDER_NOT_TICKETED, so the page can say "not yet" rather than "none".
 */
export async function printableTickets(ctx: AppContext, viewerUserId: string, orderId: string): Promise<PrintableOrder> {
  const order = await ctx.store.getOrder(orderId);
  const mayView = order !== null && (order.userId === viewerUserId || (await ctx.store.getUser(viewerUserId))?.role === 'ADMIN');
  const visible = found(mayView ? order : null, 'ORDER_NOT_FOUND', 'no such order');
  const tickets = visible.status === 'TICKETED' ? await ctx.store.ticketsByOrder(orderId) : [];
  if (tickets.length === 0) {
    throw new AppError('ORDER_NOT_TICKETED', `order ${orderId} has no tickets yet (it is ${visible.status}); tickets are issued once it is paid`, { status: visible.status });
  }
  const show = found(await ctx.store.getShow(visible.showId), 'SHOW_NOT_FOUND', 'no such show');
  const sections = new Map(show.seatMap.sections.map((s) => [s.id, s]));
  return {
    orderId,
    show: { showId: show.showId, title: show.title, venue: show.venue, city: show.city, startsAt: show.startsAt },
    tickets: tickets.map((ticket) => ({
      ticketId: ticket.ticketId,
      code: ticket.code,
      qr: encodeTicketQr(ctx.signer, ticket),
      status: ticket.status,
      place: placeOf(ticket, sections.get(ticket.sectionId)),
    })),
  };
}

/** Seat ids are `<section>-<row>-<number>`, read from the end since a section id may hold dashes. */
function placeOf(ticket: Ticket, section: SectionSpec | undefined): PrintablePlace {
  const name = section?.name ?? ticket.sectionId;
  const match = ticket.seatId === null ? null : /-(\d+)-(\d+)$/.exec(ticket.seatId);
  if (match === null) return { kind: 'GENERAL_ADMISSION', section: name };
  return { kind: 'SEAT', section: name, row: Number(match[1]), number: Number(match[2]) };
}
