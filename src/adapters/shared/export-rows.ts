import type { OrderStatus, TicketStatus } from '../../domain/index.js';
import type { BargainOrderExportRow, OrderExportRow, TicketExportRow } from '../../ports/engine/index.js';

/** Column shapes of the export pages, the same on both stores, and their mapping. */
export interface OrderRow {
  order_id: string; username: string; status: OrderStatus; amount_cents: number; payment_id: string | null; created_at: number; updated_at: number;
  contact_name: string | null; contact_phone: string | null; contact_email: string | null; discount_code: string | null; discount_cents: number | null;
  refunded_cents: number | null; carried_out_cents: number | string | null; from_exchange: number | boolean;
}
export interface TicketRow {
  ticket_id: string; order_id: string; username: string; code: string; section_id: string; seat_id: string | null;
  status: TicketStatus; issued_at: number; used_at: number | null;
}

export const toOrderRow = (r: OrderRow): OrderExportRow => ({
  orderId: r.order_id, username: r.username, status: r.status, amountCents: r.amount_cents, paymentId: r.payment_id, createdAt: r.created_at, updatedAt: r.updated_at,
  contactName: r.contact_name, contactPhone: r.contact_phone, contactEmail: r.contact_email, discountCode: r.discount_code, discountCents: r.discount_cents ?? 0,
  refundedCents: r.refunded_cents ?? 0, carriedOutCents: Number(r.carried_out_cents ?? 0), fromExchange: r.from_exchange === true || r.from_exchange === 1,
});
export const toTicketRow = (r: TicketRow): TicketExportRow => ({
  ticketId: r.ticket_id, orderId: r.order_id, username: r.username, code: r.code, sectionId: r.section_id, seatId: r.seat_id,
  status: r.status, issuedAt: r.issued_at, usedAt: r.used_at,
});
export interface BargainOrderRow {
  bargain_order_id: string; username: string; current_price_cents: number; cuts: number; order_id: string | null; order_status: OrderStatus | null; created_at: number | string;
}
export const toBargainOrderRow = (r: BargainOrderRow): BargainOrderExportRow => ({
  bargainOrderId: r.bargain_order_id, username: r.username, currentPriceCents: r.current_price_cents, cuts: r.cuts, orderId: r.order_id,
  orderStatus: r.order_status, createdAt: Number(r.created_at),
});
