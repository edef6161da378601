import { orderExtras } from '../shared/discount-rows.js';
import type { Hold, HoldStatus, Order, OrderKind, OrderStatus, ReservationLine, SeatStatus, SectionKind, SellBy } from '../../domain/index.js';
import type { BucketState, SectionAvailability } from '../../ports/engine/index.js';
export type { IdempotencyRow, PaymentRow, ShowRow, TicketRow, UserRow } from '../shared/records.js';
export { toIdempotency, toPayment, toShow, toTicket, toUser } from '../shared/records.js';

/** Column shapes as SQLite returns them (schema v6), and their mapping to domain records. */
export interface SectionRow {
  show_id: string; section_id: string; position: number; name: string; kind: SectionKind; sell_by: SellBy;
  price_cents: number; rows_count: number | null; seats_per_row: number | null; capacity: number; available: number; sold: number;
  /** Raised by one by every change of `available` (migration: stock_version). */
  stock_version: number;
}
export interface SeatRow {
  show_id: string; seat_id: string; section: string; row_no: number; seat_no: number; accessible: 0 | 1;
  status: SeatStatus; hold_id: string | null; version: number;
}
export interface HoldRow {
  hold_id: string; show_id: string; user_id: string; total_price_cents: number; units: number;
  status: HoldStatus; created_at: number; expires_at: number; extensions: number;
}
export interface HoldLineRow { section_id: string; seat_id: string | null; quantity: number }
export interface OrderRow {
  order_id: string; user_id: string; show_id: string; hold_id: string; idempotency_key: string;
  amount_cents: number; status: OrderStatus; payment_id: string | null; created_at: number; updated_at: number;
  kind?: OrderKind; activity_id?: string | null; refunded_cents?: number;
  contact_name?: string | null; contact_phone?: string | null; contact_email?: string | null; discount_code?: string | null; discount_cents?: number | null;
}

export const toSectionAvailability = (r: SectionRow): SectionAvailability => ({
  sectionId: r.section_id, kind: r.kind, sellBy: r.sell_by, capacity: r.capacity, available: r.available,
  sold: r.sell_by === 'QUANTITY' ? r.sold : 0,
  // SQLite keeps a counted section's stock in one row: one bucket, 0.
  ...(r.sell_by === 'QUANTITY' ? { buckets: [{ bucket: 0, available: r.available, version: r.stock_version }] } : {}),
});

/**
 * A hold's stored lines (hold_lines by line_no) back into reservation lines: consecutive seat rows
 * of one section form its SEATS line; a row without a seat is a UNITS line.
 */
export function toLines(rows: readonly HoldLineRow[]): ReservationLine[] {
  const lines: ReservationLine[] = [];
  let seats: { sectionId: string; seatIds: string[] } | null = null;
  for (const row of rows) {
    if (row.seat_id === null) {
      seats = null;
      lines.push({ kind: 'UNITS', sectionId: row.section_id, quantity: row.quantity });
    } else if (seats !== null && seats.sectionId === row.section_id) {
      seats.seatIds.push(row.seat_id);
    } else {
      seats = { sectionId: row.section_id, seatIds: [row.seat_id] };
      lines.push({ kind: 'SEATS', sectionId: seats.sectionId, seatIds: seats.seatIds });
    }
  }
  return lines;
}

export const toHold = (r: HoldRow, lines: readonly ReservationLine[]): Hold => ({
  holdId: r.hold_id, showId: r.show_id, userId: r.user_id, lines, totalPriceCents: r.total_price_cents,
  status: r.status, createdAt: r.created_at, expiresAt: r.expires_at, extensions: r.extensions,
});

export const toOrder = (r: OrderRow, lines: readonly ReservationLine[]): Order => ({
  orderId: r.order_id, userId: r.user_id, showId: r.show_id, holdId: r.hold_id, idempotencyKey: r.idempotency_key,
  lines, amountCents: r.amount_cents, status: r.status, paymentId: r.payment_id, createdAt: r.created_at, updatedAt: r.updated_at,
  ...(r.kind === undefined || r.kind === 'SHOW' ? {} : { kind: r.kind }),
  ...(r.activity_id === undefined || r.activity_id === null ? {} : { activityId: r.activity_id }),
  ...(r.refunded_cents === undefined || Number(r.refunded_cents) === 0 ? {} : { refundedCents: Number(r.refunded_cents) }),
  ...orderExtras(r),
});

/** What a change of a section's stock returns (RETURNING available, stock_version). */
export interface StockRow { available: number; stock_version: number }

/** A section's stock after a change, as the one bucket SQLite keeps (see BucketState). */
export const toBucket = (r: StockRow): BucketState => ({ bucket: 0, available: r.available, version: r.stock_version });
