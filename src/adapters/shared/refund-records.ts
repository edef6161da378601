import type { RefundActor } from '../../domain/index.js';
import type { InventoryChanges, OutboxDraft, Refund, RefundStatus } from '../../ports/engine/index.js';

/** A refunds row as both stores return it (times as numbers or bigint strings). */
export interface RefundRow {
  refund_id: string; order_id: string; user_id: string; show_id: string; payment_id: string | null; amount_cents: number | string;
  ticket_ids: string; whole: number | boolean; status: RefundStatus; reason: string | null; requested_by: RefundActor;
  idempotency_key: string | null; created_at: number | string; updated_at: number | string;
  source_payment_id?: string | null; source_cents?: number | string;
}

export const toRefund = (r: RefundRow): Refund => ({
  refundId: r.refund_id, orderId: r.order_id, userId: r.user_id, showId: r.show_id, paymentId: r.payment_id, amountCents: Number(r.amount_cents),
  ticketIds: JSON.parse(r.ticket_ids) as string[], whole: r.whole === true || r.whole === 1, status: r.status, reason: r.reason,
  requestedBy: r.requested_by, idempotencyKey: r.idempotency_key, createdAt: Number(r.created_at), updatedAt: Number(r.updated_at),
  ...(r.source_payment_id === null || r.source_payment_id === undefined ? {} : { through: { paymentId: r.source_payment_id, amountCents: Number(r.source_cents ?? 0) } }),
});

const someChanges = (changes: InventoryChanges): InventoryChanges | null => (changes.seats.length === 0 && changes.stock.length === 0 ? null : changes);

/** Tickets revoked at once, seats REFUND_PENDING: other processes' seat maps and the door learn it now. */
export function refundRequested(refund: Refund, changes: InventoryChanges): OutboxDraft {
  return {
    type: 'refund.requested', showId: refund.showId, changes: someChanges(changes),
    data: { refundId: refund.refundId, orderId: refund.orderId, userId: refund.userId, showId: refund.showId, amountCents: refund.amountCents, ticketIds: refund.ticketIds },
  };
}

/** The provider gave the money back; the seats and units it freed are in `changes` (the waitlist watches them). */
export function refundCompleted(refund: Refund, changes: InventoryChanges): OutboxDraft {
  return {
    type: 'refund.completed', showId: refund.showId, changes: someChanges(changes),
    data: { refundId: refund.refundId, orderId: refund.orderId, userId: refund.userId, showId: refund.showId, amountCents: refund.amountCents, ticketIds: refund.ticketIds },
  };
}

/** The provider refused: the tickets admit again and their seats are SOLD again. */
export function refundFailed(refund: Refund, changes: InventoryChanges): OutboxDraft {
  return {
    type: 'refund.failed', showId: refund.showId, changes: someChanges(changes),
    data: { refundId: refund.refundId, orderId: refund.orderId, userId: refund.userId, showId: refund.showId, reason: refund.reason, ticketIds: refund.ticketIds },
  };
}

/** A show was cancelled: a notifier tells its buyers; sales stopped (show.changed follows with the new details). */
export function showCancelled(showId: string, reason: string): OutboxDraft {
  return { type: 'show.cancelled', showId, data: { showId, reason }, changes: null };
}
