import type { Hold, Order, Payment, Role, Seat, SeatMapSpec, Show, Ticket, User } from '../../domain/index.js';
import type { HoldStatus, OrderStatus, PaymentStatus, SeatStatus, TicketStatus } from '../../domain/index.js';
import type { IdempotencyRecord } from '../../ports/store.js';

/** Column shapes as SQLite returns them, and their mapping to domain records. */
export interface UserRow { user_id: string; username: string; password_hash: string; role: Role; created_at: number }
export interface ShowRow {
  show_id: string; title: string; venue: string; city: string; starts_at: number; sale_starts_at: number;
  sale_ends_at: number; seat_map: string; capacity: number; created_at: number;
}
export interface SeatRow {
  show_id: string; seat_id: string; section: string; row_no: number; seat_no: number; price_cents: number;
  status: SeatStatus; hold_id: string | null; version: number;
}
export interface HoldRow {
  hold_id: string; show_id: string; user_id: string; seat_ids: string; total_price_cents: number;
  status: HoldStatus; created_at: number; expires_at: number; extensions: number;
}
export interface OrderRow {
  order_id: string; user_id: string; show_id: string; hold_id: string; idempotency_key: string; seat_ids: string;
  amount_cents: number; status: OrderStatus; payment_id: string | null; created_at: number; updated_at: number;
}
export interface PaymentRow { payment_id: string; order_id: string; amount_cents: number; status: PaymentStatus; updated_at: number }
export interface TicketRow {
  ticket_id: string; order_id: string; user_id: string; show_id: string; seat_id: string; code: string;
  status: TicketStatus; issued_at: number; used_at: number | null; checkin_nonce: string | null;
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
  capacity: r.capacity, createdAt: r.created_at,
});

export const toSeat = (r: SeatRow): Seat => ({
  showId: r.show_id, seatId: r.seat_id, section: r.section, row: r.row_no, number: r.seat_no,
  priceCents: r.price_cents, status: r.status, holdId: r.hold_id, version: r.version,
});

export const toHold = (r: HoldRow): Hold => ({
  holdId: r.hold_id, showId: r.show_id, userId: r.user_id, seatIds: JSON.parse(r.seat_ids) as string[],
  totalPriceCents: r.total_price_cents, status: r.status, createdAt: r.created_at, expiresAt: r.expires_at,
  extensions: r.extensions,
});

export const toOrder = (r: OrderRow): Order => ({
  orderId: r.order_id, userId: r.user_id, showId: r.show_id, holdId: r.hold_id, idempotencyKey: r.idempotency_key,
  seatIds: JSON.parse(r.seat_ids) as string[], amountCents: r.amount_cents, status: r.status, paymentId: r.payment_id,
  createdAt: r.created_at, updatedAt: r.updated_at,
});

export const toPayment = (r: PaymentRow): Payment => ({
  paymentId: r.payment_id, orderId: r.order_id, amountCents: r.amount_cents, status: r.status, updatedAt: r.updated_at,
});

export const toTicket = (r: TicketRow): Ticket => ({
  ticketId: r.ticket_id, orderId: r.order_id, userId: r.user_id, showId: r.show_id, seatId: r.seat_id, code: r.code,
  status: r.status, issuedAt: r.issued_at, usedAt: r.used_at, checkInNonce: r.checkin_nonce,
});

export const toIdempotency = (r: IdempotencyRow): IdempotencyRecord => ({
  scope: r.scope, key: r.key, requestHash: r.request_hash, state: r.state, outcome: r.outcome,
  responseBody: r.response_body, createdAt: r.created_at,
});
