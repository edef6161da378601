import type { Hold, Order, Ticket } from '../domain/index.js';

/** What the API shows of each record. Times cross the edge as ISO 8601. */
export const iso = (ms: number): string => new Date(ms).toISOString();

export interface HoldView {
  holdId: string;
  showId: string;
  seatIds: string[];
  totalPriceCents: number;
  status: Hold['status'];
  expiresAt: string;
  extensions: number;
}

export const holdView = (h: Hold): HoldView => ({
  holdId: h.holdId,
  showId: h.showId,
  seatIds: [...h.seatIds],
  totalPriceCents: h.totalPriceCents,
  status: h.status,
  expiresAt: iso(h.expiresAt),
  extensions: h.extensions,
});

export interface OrderView {
  orderId: string;
  showId: string;
  holdId: string;
  seatIds: string[];
  status: Order['status'];
  amountCents: number;
  paymentId: string | null;
  createdAt: string;
  updatedAt: string;
}

export const orderView = (o: Order): OrderView => ({
  orderId: o.orderId,
  showId: o.showId,
  holdId: o.holdId,
  seatIds: [...o.seatIds],
  status: o.status,
  amountCents: o.amountCents,
  paymentId: o.paymentId,
  createdAt: iso(o.createdAt),
  updatedAt: iso(o.updatedAt),
});

export interface TicketView {
  ticketId: string;
  orderId: string;
  showId: string;
  seatId: string;
  code: string;
  status: Ticket['status'];
  issuedAt: string;
  usedAt: string | null;
  qr: string;
}

export const ticketView = (t: Ticket, qr: string): TicketView => ({
  ticketId: t.ticketId,
  orderId: t.orderId,
  showId: t.showId,
  seatId: t.seatId,
  code: t.code,
  status: t.status,
  issuedAt: iso(t.issuedAt),
  usedAt: t.usedAt === null ? null : iso(t.usedAt),
  qr,
});
