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
   * USED) per seat" refuses a second one.
   */
  issueTickets(input: IssueTicketsInput): Promise<IssueTicketsOutcome>;
  /** Precondition: the stored status is `expectedStatus` (else stale). Effect: the ticket as given. */
  checkIn(input: CheckInInput): Promise<CheckInOutcome>;
  getTicket(ticketId: string): Promise<Ticket | null>;
  /** The order's tickets, by seat id (nulls last), then ticket id. */
  ticketsByOrder(orderId: string): Promise<Ticket[]>;
  /** Ids of a show's tickets that no longer admit (INVALID), by ticket id, at most `limit` (door scanners' revocation list). */
  revokedTicketIds(showId: string, limit: number): Promise<string[]>;
  /** The user's tickets, newest first (issuedAt desc, then ticketId asc). */
  ticketsByUser(userId: string, page: Page): Promise<Ticket[]>;
}
