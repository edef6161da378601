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
  /** The buyer's contact given at checkout (null: none given). */
  readonly contactName: string | null;
  readonly contactPhone: string | null;
  readonly contactEmail: string | null;
  readonly discountCode: string | null;
  readonly discountCents: number;
  /** What confirmed refunds of this order gave back (issue 32). */
  readonly refundedCents: number;
  /** The value exchanges carried out of this order into new orders (the new orders' charge less their difference). */
  readonly carriedOutCents: number;
  /** The order was created by an exchange (its value came from the old order, not a charge). */
  readonly fromExchange: boolean;
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

/** A bargain's bargain orders (issue 23 item 4): who started, how far friends cut it, and its order if any. */
export interface BargainOrderExportRow {
  readonly bargainOrderId: string;
  readonly username: string;
  readonly currentPriceCents: number;
  readonly cuts: number;
  readonly orderId: string | null;
  readonly orderStatus: OrderStatus | null;
  readonly createdAt: number;
}

export interface ExportStore {
  /** A show's orders after `after` in (createdAt, orderId) order. */
  ordersPage(showId: string, after: KeysetPosition | null, limit: number): Promise<OrderExportRow[]>;
  /** A show's tickets after `after` in (issuedAt, ticketId) order. */
  ticketsPage(showId: string, after: KeysetPosition | null, limit: number): Promise<TicketExportRow[]>;
  /** A bargain's bargain orders after `after` in (createdAt, bargainOrderId) order (index bargain_orders_by_order). */
  bargainOrdersPage(bargainId: string, after: KeysetPosition | null, limit: number): Promise<BargainOrderExportRow[]>;
}
