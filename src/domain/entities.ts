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
  readonly seatIds: readonly string[];
  readonly totalPriceCents: number;
  readonly status: HoldStatus;
  readonly createdAt: number;
  readonly expiresAt: number;
  /** How many times the buyer has extended the hold (bounded by policy). */
  readonly extensions: number;
}

export interface Order {
  readonly orderId: string;
  readonly userId: string;
  readonly showId: string;
  readonly holdId: string;
  readonly idempotencyKey: string;
  readonly seatIds: readonly string[];
  readonly amountCents: number;
  readonly status: OrderStatus;
  readonly paymentId: string | null;
  readonly createdAt: number;
  readonly updatedAt: number;
}

export interface Payment {
  readonly paymentId: string;
  readonly orderId: string;
  readonly amountCents: number;
  readonly status: PaymentStatus;
  readonly updatedAt: number;
}

export interface Ticket {
  readonly ticketId: string;
  readonly orderId: string;
  readonly userId: string;
  readonly showId: string;
  readonly seatId: string;
  readonly code: string;
  readonly status: TicketStatus;
  readonly issuedAt: number;
  readonly usedAt: number | null;
  /** The scanner's nonce of the check-in, so a retried scan is recognised as the same one. */
  readonly checkInNonce: string | null;
}
