import { seatIdsOf, type Hold, type Order, type OrderKind, type ReservationLine, type Ticket } from '../domain/index.js';

/** What the API shows of each record. Times cross the edge as ISO 8601. */
export const iso = (ms: number): string => new Date(ms).toISOString();

/** A line as the API shows it. */
export type LineView = { kind: 'SEATS'; sectionId: string; seatIds: string[] } | { kind: 'UNITS'; sectionId: string; quantity: number };
const lineViews = (lines: readonly ReservationLine[]): LineView[] =>
  lines.map((l) => (l.kind === 'SEATS' ? { kind: 'SEATS', sectionId: l.sectionId, seatIds: [...l.seatIds] } : { kind: 'UNITS', sectionId: l.sectionId, quantity: l.quantity }));

export interface HoldView {
  holdId: string;
  showId: string;
  /** The specific seats held (none for units of a counted section: see lines). */
  seatIds: string[];
  lines: LineView[];
  totalPriceCents: number;
  status: Hold['status'];
  expiresAt: string;
  extensions: number;
}

export const holdView = (h: Hold): HoldView => ({
  holdId: h.holdId,
  showId: h.showId,
  seatIds: seatIdsOf(h.lines),
  lines: lineViews(h.lines),
  totalPriceCents: h.totalPriceCents,
  status: h.status,
  expiresAt: iso(h.expiresAt),
  extensions: h.extensions,
});

/** What a buyer needs to extend a hold: the policy's bounds, applied to this hold. */
export interface HoldTermsView {
  /** How many extensions a hold may have in all (`extensions` says how many were used). */
  extensionsMax: number;
  /** No extension takes the hold past this (its creation plus the policy's life cap). */
  latestExpiresAt: string;
}

export const holdTermsView = (h: Hold, policy: { readonly holdExtensionsMax: number; readonly holdLifeSecondsMax: number }): HoldTermsView => ({
  extensionsMax: policy.holdExtensionsMax,
  latestExpiresAt: iso(h.createdAt + policy.holdLifeSecondsMax * 1000),
});

/** The show of a hold, as much as a page needs to name it. */
export interface HoldShowView {
  showId: string;
  title: string;
  startsAt: string;
  venue: string;
  city: string;
}

/** One of the buyer's live holds, as GET /me/holds lists it. */
export type MyHoldView = HoldView & HoldTermsView & { show: HoldShowView };

export interface OrderView {
  orderId: string;
  /** What the order sells (issue 23): a show's seats or places, a flash sale's items, a bargain's goods. */
  kind: OrderKind;
  /** The show (kind SHOW: its showId) or campaign sold. */
  activityId: string;
  /** The show, for kind SHOW; null for a campaign's order (see activityId). */
  showId: string | null;
  holdId: string;
  seatIds: string[];
  lines: LineView[];
  status: Order['status'];
  amountCents: number;
  paymentId: string | null;
  /** What refunds gave back so far. */
  refundedCents: number;
  createdAt: string;
  updatedAt: string;
  /** Only in the answer that opened the payment: the provider's hosted page to pay on (Stripe Checkout). */
  checkoutUrl?: string;
  /** The buyer's contact, when given at checkout. */
  contact?: { name: string; phone: string; email: string };
  /** The discount code that priced the order and what it took off, when one did. */
  discount?: { code: string; discountCents: number };
}

export const orderView = (o: Order): OrderView => ({
  orderId: o.orderId,
  kind: o.kind ?? 'SHOW',
  activityId: o.activityId ?? o.showId,
  showId: (o.kind ?? 'SHOW') === 'SHOW' ? o.showId : null,
  holdId: o.holdId,
  seatIds: seatIdsOf(o.lines),
  lines: lineViews(o.lines),
  status: o.status,
  amountCents: o.amountCents,
  paymentId: o.paymentId,
  refundedCents: o.refundedCents ?? 0,
  createdAt: iso(o.createdAt),
  updatedAt: iso(o.updatedAt),
  ...(o.contact === undefined ? {} : { contact: { ...o.contact } }),
  ...(o.discount === undefined ? {} : { discount: { ...o.discount } }),
});

export interface TicketView {
  ticketId: string;
  orderId: string;
  showId: string;
  sectionId: string;
  /** null for general admission. */
  seatId: string | null;
  code: string;
  status: Ticket['status'];
  issuedAt: string;
  usedAt: string | null;
  qr: string;
  /** What was paid for it (its share of the order's charge, what a refund of it gives back); absent on tickets issued before it was stored. */
  paidCents?: number;
}

export const ticketView = (t: Ticket, qr: string): TicketView => ({
  ticketId: t.ticketId,
  orderId: t.orderId,
  showId: t.showId,
  sectionId: t.sectionId,
  seatId: t.seatId,
  code: t.code,
  status: t.status,
  issuedAt: iso(t.issuedAt),
  usedAt: t.usedAt === null ? null : iso(t.usedAt),
  qr,
  ...(t.paidCents === undefined ? {} : { paidCents: t.paidCents }),
});
