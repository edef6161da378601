import type { Order, SeatPoint, Ticket, TicketStatus } from '../../domain/index.js';
import type { InventoryChanges, Page, Stale } from './common.js';

/** One ticket to issue: identity made by the application, seat decided by the line. */
export interface TicketDraft {
  readonly ticketId: string;
  readonly code: string;
  readonly sectionId: string;
  /**
   * The seat, for a SEATS line. null for a UNITS line: GENERAL_ADMISSION tickets keep it null; for
   * a SEATED section sold by QUANTITY the adapter picks the seat (see issueTickets).
   */
  readonly seatId: string | null;
  /** What is paid for it: its share of the order's charge (the domain's allocatePaidCents), stored with the ticket. */
  readonly paidCents: number;
}

export interface IssueTicketsInput {
  readonly orderId: string;
  /** One draft per unit of the order's lines, in line order. */
  readonly tickets: readonly TicketDraft[];
  readonly now: number;
  /** Where seats picked at issue time should be nearest; each section's front-centre when absent. */
  readonly near?: SeatPoint;
}

export type IssueTicketsOutcome =
  | { readonly ok: true; readonly order: Order; readonly tickets: readonly Ticket[]; readonly changes: InventoryChanges }
  /** A seated sellBy-QUANTITY section has fewer free seats than the tickets need (stock and seats disagree: a bug). */
  | { readonly ok: false; readonly code: 'NOT_ENOUGH_SEATS'; readonly sectionId: string }
  /** The order is no longer PAID (someone issued them first). */
  | Stale<'order'>;

export interface CheckInInput {
  /** The ticket as the domain's checkIn made it (status USED, usedAt, nonce, steward, gate, device). */
  readonly ticket: Ticket;
  readonly expectedStatus: TicketStatus;
}
export type CheckInOutcome = { readonly ok: true; readonly ticket: Ticket } | Stale<'ticket'>;

/** How many of a show's tickets admit (VALID or USED) and how many of them were used (USED). */
export interface DoorCounts {
  readonly admitting: number;
  readonly checkedIn: number;
}

/** A ticket with its buyer's username (as registered), for the door's search and the attendee list. */
export interface Attendee {
  readonly ticket: Ticket;
  readonly username: string;
}

export interface AttendeesByNameInput {
  readonly showId: string;
  /** Username key (usernameKey of the domain) the buyer's key starts with; '' for every buyer. */
  readonly keyPrefix: string;
  /** Left out of the page (the caller already shows it first, found by its code); null for none. */
  readonly excludeTicketId: string | null;
  readonly limit: number;
  readonly offset: number;
}

export interface TicketStore {
  /**
   * Precondition: the order is PAID (else stale 'order'). Effects in one transaction: the order
   * becomes TICKETED (updated_at = now); one VALID ticket per draft is inserted (issuedAt = now).
   * For drafts of a SEATED section sold by QUANTITY (seatId null), the adapter picks the seats now:
   * the free seats of that section (no live claim), chosen by the domain chooser
   * chooseBestAvailable(seatMap, freeSeatsOfSection, {quantity, section, near, adjacentOnly:false})
   * — nearest the point, side by side where a run is left — each becoming SOLD to the order's hold
   * (hold_id, version + 1), and the draft gets that seat id. The stock counter is not touched (it
   * was decremented at the claim). Guard: the partial unique index "one admitting ticket (VALID or
   * USED) per seat" refuses a second one. Each ticket records its buyer's username key (for
   * attendeesByName), and the show's door counts rise by the number of tickets.
   */
  issueTickets(input: IssueTicketsInput): Promise<IssueTicketsOutcome>;
  /**
   * Precondition: the stored status is `expectedStatus` (else stale). Effect: the ticket as given,
   * and the show's door counts moved by the change (doorCounts), in the same transaction.
   */
  checkIn(input: CheckInInput): Promise<CheckInOutcome>;
  getTicket(ticketId: string): Promise<Ticket | null>;
  /** The order's tickets, by seat id (nulls last), then ticket id. */
  ticketsByOrder(orderId: string): Promise<Ticket[]>;
  /** Ids of a show's tickets that no longer admit (INVALID), by ticket id, at most `limit` (door scanners' revocation list). */
  revokedTicketIds(showId: string, limit: number): Promise<string[]>;
  /** The user's tickets, newest first (issuedAt desc, then ticketId asc). */
  ticketsByUser(userId: string, page: Page): Promise<Ticket[]>;
  /**
   * The show's ticket with this short code (exact, as issued), or null. One indexed lookup by
   * (show, code): the door types the code printed on a ticket when its QR will not scan.
   */
  ticketByCode(showId: string, code: string): Promise<Ticket | null>;
  /**
   * The show's counters of admitting and used tickets, kept up to date by issueTickets (+ each
   * ticket) and checkIn (by the status change) in their own transactions: a read of a few rows,
   * never a count of the show's tickets. A show without tickets counts 0 and 0.
   */
  doorCounts(showId: string): Promise<DoorCounts>;
  /**
   * A page of the show's tickets whose buyer's username key starts with `keyPrefix`, ordered by
   * that key, then order id, then seq; an index range on (show, buyer key) at most offset + limit
   * rows long. The buyer key is the username key copied onto each ticket at issue.
   */
  attendeesByName(input: AttendeesByNameInput): Promise<Attendee[]>;
}
