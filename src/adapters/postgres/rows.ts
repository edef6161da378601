import { orderExtras } from '../shared/discount-rows.js';
import type pg from 'pg';
import type { Hold, HoldStatus, Order, OrderKind, OrderStatus, ReservationLine, SeatStatus } from '../../domain/index.js';
export type { IdempotencyRow, PaymentRow, ShowRow, TicketRow, UserRow } from '../shared/records.js';
export { toIdempotency, toPayment, toShow, toTicket, toUser } from '../shared/records.js';

/** Column shapes as node-postgres returns them (int8 parsed to number, see pool.ts), and their mapping to domain records. */
export interface SeatRow {
  show_id: string; seat_id: string; section_id: string; row_no: number; seat_no: number; accessible: boolean;
  status: SeatStatus; hold_id: string | null; version: number;
}
export interface HoldRow {
  hold_id: string; show_id: string; user_id: string; total_price_cents: number; units: number;
  status: HoldStatus; created_at: number; expires_at: number; extensions: number;
}
export interface HoldLineRow { hold_id: string; line_no: number; section_id: string; seat_id: string | null; bucket: number | null; quantity: number; claim: boolean | null }
export interface OrderRow {
  order_id: string; user_id: string; show_id: string; hold_id: string; idempotency_key: string; lines: ReservationLine[];
  amount_cents: number; status: OrderStatus; payment_id: string | null; created_at: number; updated_at: number;
  kind?: OrderKind; activity_id?: string | null; refunded_cents?: number;
  contact_name?: string | null; contact_phone?: string | null; contact_email?: string | null; discount_code?: string | null; discount_cents?: number | null;
}

/**
 * A hold's lines from its hold_lines rows (by line_no): seats of one section form one SEATS line
 * (in the order they were taken), the bucket rows of one section one UNITS line (their sum).
 */
export function linesOf(rows: readonly HoldLineRow[]): ReservationLine[] {
  const order: { kind: 'SEATS' | 'UNITS'; sectionId: string; seatIds: string[]; quantity: number }[] = [];
  const find = (kind: 'SEATS' | 'UNITS', sectionId: string) => {
    let line = order.find((l) => l.kind === kind && l.sectionId === sectionId);
    if (line === undefined) {
      line = { kind, sectionId, seatIds: [], quantity: 0 };
      order.push(line);
    }
    return line;
  };
  for (const row of rows) {
    if (row.seat_id !== null) find('SEATS', row.section_id).seatIds.push(row.seat_id);
    else find('UNITS', row.section_id).quantity += row.quantity;
  }
  return order.map((l): ReservationLine => (l.kind === 'SEATS'
    ? { kind: 'SEATS', sectionId: l.sectionId, seatIds: l.seatIds }
    : { kind: 'UNITS', sectionId: l.sectionId, quantity: l.quantity }));
}

export const toHold = (r: HoldRow, lines: readonly HoldLineRow[]): Hold => ({
  holdId: r.hold_id, showId: r.show_id, userId: r.user_id, lines: linesOf(lines),
  totalPriceCents: r.total_price_cents, status: r.status, createdAt: r.created_at, expiresAt: r.expires_at,
  extensions: r.extensions,
});

export const toOrder = (r: OrderRow): Order => ({
  orderId: r.order_id, userId: r.user_id, showId: r.show_id, holdId: r.hold_id, idempotencyKey: r.idempotency_key,
  lines: r.lines, amountCents: r.amount_cents, status: r.status, paymentId: r.payment_id,
  createdAt: r.created_at, updatedAt: r.updated_at,
  ...(r.kind === undefined || r.kind === 'SHOW' ? {} : { kind: r.kind }),
  ...(r.activity_id === undefined || r.activity_id === null ? {} : { activityId: r.activity_id }),
  ...(r.refunded_cents === undefined || Number(r.refunded_cents) === 0 ? {} : { refundedCents: Number(r.refunded_cents) }),
  ...orderExtras(r),
});

/** Holds with their lines, two queries whatever the number of holds. */
export async function loadHolds(client: pg.ClientBase | pg.Pool, rows: readonly HoldRow[]): Promise<Hold[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.hold_id);
  const { rows: lineRows } = await client.query<HoldLineRow>(
    'SELECT hold_id, line_no, section_id, seat_id, bucket, quantity, claim FROM hold_lines WHERE hold_id = ANY($1) ORDER BY hold_id, line_no', [ids]);
  const byHold = new Map<string, HoldLineRow[]>();
  for (const line of lineRows) {
    const list = byHold.get(line.hold_id);
    if (list === undefined) byHold.set(line.hold_id, [line]);
    else list.push(line);
  }
  return rows.map((r) => toHold(r, byHold.get(r.hold_id) ?? []));
}
