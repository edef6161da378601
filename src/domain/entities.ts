import type { OrderContact, OrderDiscount } from './discount.js';
import type { ReservationLine } from './reservation.js';
import type { HoldStatus, OrderStatus, PaymentStatus, TicketStatus } from './states.js';

export type Role = 'BUYER' | 'STAFF' | 'ADMIN';
export const roles: readonly Role[] = ['BUYER', 'STAFF', 'ADMIN'];

export interface User {
  readonly userId: string;
  readonly username: string;
  readonly passwordHash: string;
  readonly role: Role;
  readonly createdAt: number;
}

export interface Hold {
  readonly holdId: string;
  readonly showId: string;
  readonly userId: string;
  /** What the hold takes: specific seats, or a quantity of a counted section (see reservation.ts). */
  readonly lines: readonly ReservationLine[];
  readonly totalPriceCents: number;
  readonly status: HoldStatus;
  readonly createdAt: number;
  readonly expiresAt: number;
  /** How many times the buyer has extended the hold (bounded by policy). */
  readonly extensions: number;
}

/** What an order sells: a show's seats or places, a flash sale's items, a bargain's goods (issue 23). */
export const orderKinds = ['SHOW', 'FLASH_SALE', 'BARGAIN'] as const;
export type OrderKind = (typeof orderKinds)[number];

export interface Order {
  readonly orderId: string;
  /** Absent on orders of shows (stored as SHOW): a campaign's order always says its kind. */
  readonly kind?: OrderKind;
  /** The campaign sold (a flash sale's id); absent on a show's order, whose activity is its showId. */
  readonly activityId?: string;
  readonly userId: string;
  readonly showId: string;
  readonly holdId: string;
  readonly idempotencyKey: string;
  /** The hold's lines, copied when the order is opened. */
  readonly lines: readonly ReservationLine[];
  readonly amountCents: number;
  readonly status: OrderStatus;
  readonly paymentId: string | null;
  readonly createdAt: number;
  readonly updatedAt: number;
  /** The buyer's contact given at checkout (seed 002 §5); absent on orders from before, or without one. */
  readonly contact?: OrderContact;
  /** The discount code that priced the order; amountCents is already net of it. */
  readonly discount?: OrderDiscount;
  /** What refunds gave back so far (issue 25); absent while nothing was refunded. */
  readonly refundedCents?: number;
}

export interface Payment {
  readonly paymentId: string;
  readonly orderId: string;
  readonly amountCents: number;
  readonly status: PaymentStatus;
  readonly updatedAt: number;
  /**
   * What the provider reported taking, set only when it differs from amountCents (an anomaly):
   * a refund returns this, the money that really arrived.
   */
  readonly receivedCents?: number;
  /** The provider's hosted page to pay on (Stripe Checkout); absent for the sandbox. */
  readonly checkoutUrl?: string;
}

export interface Ticket {
  readonly ticketId: string;
  readonly orderId: string;
  readonly userId: string;
  readonly showId: string;
  readonly sectionId: string;
  /** The seat it admits to; null for general admission. */
  readonly seatId: string | null;
  readonly code: string;
  readonly status: TicketStatus;
  readonly issuedAt: number;
  readonly usedAt: number | null;
  /** The scanner's nonce of the check-in, so a retried scan is recognised as the same one. */
  readonly checkInNonce: string | null;
  /** Who admitted the ticket, and at which gate and on which device when the scanner said: a nonce is only the same scan from the same steward, gate and device. */
  readonly checkedInBy: string | null;
  readonly checkInGate: string | null;
  readonly checkInDevice: string | null;
  /**
   * What was paid for this ticket: its share of the order's charge (see allocatePaidCents). Absent
   * on tickets issued before paid prices were stored (paidCentsByTicket allocates theirs on read).
   */
  readonly paidCents?: number;
}
