import type { Payment, PaymentStatus, Role, SeatMapSpec, Show, Ticket, TicketStatus, User } from '../../domain/index.js';
import type { IdempotencyRecord } from '../../ports/engine/index.js';

/**
 * Rows both SQL adapters store in the same shape (times as epoch ms numbers, ids as text), and
 * their mapping to domain records. Shapes that differ by engine (booleans, hold lines) stay with
 * each adapter (sqlite/records.ts, postgres/rows.ts).
 */
export interface UserRow { user_id: string; username: string; password_hash: string; role: Role; created_at: number }

export interface ShowRow {
  show_id: string; title: string; venue: string; city: string; starts_at: number; sale_starts_at: number;
  sale_ends_at: number; seat_map: string; capacity: number; max_seats_per_user: number | null; created_at: number;
  description: string; image_url: string | null; currency: string | null; version: number;
  /** NULL on a show; FLASH_SALE on a flash sale's show (issue 23). */
  campaign?: string | null;
  refund_until_hours_before?: number | null;
  exchange_until_hours_before?: number | null;
  cancelled_at?: number | string | null;
  cancel_reason?: string | null;
}

export interface PaymentRow { payment_id: string; order_id: string; amount_cents: number; status: PaymentStatus; updated_at: number; received_cents: number | null; checkout_url?: string | null }

export interface TicketRow {
  ticket_id: string; order_id: string; user_id: string; show_id: string; section_id: string; seat_id: string | null; seq: number; code: string;
  status: TicketStatus; issued_at: number; used_at: number | null; checkin_nonce: string | null;
  checkin_by: string | null; checkin_gate: string | null; checkin_device: string | null;
  /** null on tickets issued before the paid-price migration. */
  paid_cents?: number | null;
}

export interface IdempotencyRow {
  scope: string; key: string; request_hash: string; state: 'IN_FLIGHT' | 'DONE';
  outcome: 'SUCCEEDED' | 'FAILED' | null; response_body: string | null; created_at: number;
}

export const toUser = (r: UserRow): User => ({
  userId: r.user_id, username: r.username, passwordHash: r.password_hash, role: r.role, createdAt: r.created_at,
});

export const toShow = (r: ShowRow): Show => ({
  showId: r.show_id, title: r.title, venue: r.venue, city: r.city, startsAt: r.starts_at,
  saleStartsAt: r.sale_starts_at, saleEndsAt: r.sale_ends_at, seatMap: JSON.parse(r.seat_map) as SeatMapSpec,
  capacity: r.capacity, maxSeatsPerUser: r.max_seats_per_user, createdAt: r.created_at,
  description: r.description, imageUrl: r.image_url, currency: r.currency, version: Number(r.version),
  ...(r.campaign === 'FLASH_SALE' || r.campaign === 'BARGAIN' ? { campaign: r.campaign } : {}),
  refundUntilHoursBefore: r.refund_until_hours_before ?? null,
  exchangeUntilHoursBefore: r.exchange_until_hours_before ?? null,
  ...(r.cancelled_at === undefined || r.cancelled_at === null ? {} : { cancelledAt: Number(r.cancelled_at), cancelReason: r.cancel_reason ?? null }),
});

export const toPayment = (r: PaymentRow): Payment => ({
  paymentId: r.payment_id, orderId: r.order_id, amountCents: r.amount_cents, status: r.status, updatedAt: r.updated_at,
  ...(r.received_cents === null ? {} : { receivedCents: r.received_cents }),
  ...(r.checkout_url == null ? {} : { checkoutUrl: r.checkout_url }),
});

export const toTicket = (r: TicketRow): Ticket => ({
  ticketId: r.ticket_id, orderId: r.order_id, userId: r.user_id, showId: r.show_id, sectionId: r.section_id, seatId: r.seat_id, code: r.code,
  status: r.status, issuedAt: r.issued_at, usedAt: r.used_at, checkInNonce: r.checkin_nonce,
  checkedInBy: r.checkin_by, checkInGate: r.checkin_gate, checkInDevice: r.checkin_device,
  ...(r.paid_cents === null || r.paid_cents === undefined ? {} : { paidCents: Number(r.paid_cents) }),
});

export const toIdempotency = (r: IdempotencyRow): IdempotencyRecord => ({
  scope: r.scope, key: r.key, requestHash: r.request_hash, state: r.state, outcome: r.outcome,
  responseBody: r.response_body, createdAt: r.created_at,
});
