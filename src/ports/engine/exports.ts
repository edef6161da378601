import type { OrderStatus, TicketStatus } from '../../domain/index.js';
import type { KeysetPosition } from './common.js';

/**
 * Reads for the CSV exports (issue 23 item 5): keyset pages, each one range of an index, so an
 * export of a million rows reads a page at a time and never holds more than a page in memory.
 * The position's `at` and `id` are the last row's (createdAt, orderId) / (issuedAt, ticketId).
 */
export interface OrderExportRow {
  readonly orderId: string;
  readonly username: string;
  readonly status: OrderStatus;
  readonly amountCents: number;
  readonly paymentId: string | null;
  readonly createdAt: number;
  readonly updatedAt: number;
}

export interface TicketExportRow {
  readonly ticketId: string;
  readonly orderId: string;
  readonly username: string;
  readonly code: string;
  readonly sectionId: string;
  readonly seatId: string | null;
  readonly status: TicketStatus;
  readonly issuedAt: number;
  readonly usedAt: number | null;
}

export interface ExportStore {
  /** A show's orders after `after` in (createdAt, orderId) order. */
  ordersPage(showId: string, after: KeysetPosition | null, limit: number): Promise<OrderExportRow[]>;
  /** A show's tickets after `after` in (issuedAt, ticketId) order. */
  ticketsPage(showId: string, after: KeysetPosition | null, limit: number): Promise<TicketExportRow[]>;
}
