import type { Hold, Order, RefundActor, Show } from '../../domain/index.js';
import type { AuditEntryDraft } from './change-log.js';
import type { InventoryChanges, KeysetPosition, Stale } from './common.js';

export const refundStatuses = ['PENDING', 'REFUNDED', 'REFUSED'] as const;
export type RefundStatus = (typeof refundStatuses)[number];

/** One refund of (part of) an order: its own id, which is also the provider's idempotency key (`refund:{refundId}`). */
export interface Refund {
  readonly refundId: string;
  readonly orderId: string;
  readonly userId: string;
  readonly showId: string;
  readonly paymentId: string | null;
  readonly amountCents: number;
  readonly ticketIds: readonly string[];
  /** The whole order (it moved TICKETED -> REFUND_PENDING). */
  readonly whole: boolean;
  readonly status: RefundStatus;
  /** Why: the provider's reason for a REFUSED refund, or 'exchange difference' for a cheaper exchange's difference (kept when settled). */
  readonly reason: string | null;
  readonly requestedBy: RefundActor;
  readonly idempotencyKey: string | null;
  readonly createdAt: number;
  readonly updatedAt: number;
  /** Settled REFUNDED through two payments (a dearer exchange's order): the part paid back through the chain's source (see SettleRefundInput.through). */
  readonly through?: { readonly paymentId: string; readonly amountCents: number };
}

export interface RequestRefundInput {
  /** The new refund row (status PENDING, createdAt = updatedAt = now). */
  readonly refund: Refund;
  /** The order's status the plan was decided on (TICKETED). */
  readonly orderFrom: 'TICKETED';
  readonly now: number;
}

export type RequestRefundOutcome =
  | { readonly ok: true; readonly refund: Refund; readonly order: Order; readonly changes: InventoryChanges }
  /** (order_id, idempotency_key) or refund_id already stored: that refund, nothing written. */
  | { readonly ok: false; readonly code: 'REFUND_EXISTS'; readonly refund: Refund }
  /** The order is no longer `orderFrom`, or a named ticket is no longer VALID (a check-in or another refund came first). */
  | Stale<'order' | 'ticket'>;

export interface SettleRefundInput {
  readonly refundId: string;
  /** The provider's answer: REFUNDED (money back) or REFUSED (the buyer keeps the tickets). */
  readonly outcome: 'REFUNDED' | 'REFUSED';
  readonly reason: string | null;
  readonly now: number;
  /**
   * REFUNDED only: the part of the refund that went back through a second payment (an order from a
   * dearer exchange pays back its difference payment, the refund's paymentId, first, then the chain's
   * source: this). Written on the refund row (source_payment_id, source_cents), so each payment's
   * state derives from what really went back through it. Absent: all of it through paymentId.
   */
  readonly through?: { readonly paymentId: string; readonly amountCents: number } | null;
}

export type SettleRefundOutcome =
  | { readonly ok: true; readonly refund: Refund; readonly changes: InventoryChanges }
  /** The refund is not PENDING (settled already: at most once). */
  | Stale<'refund'>;

/**
 * Refunds (issue 25). Guards: a ticket moves VALID -> INVALID only once (conditional update: a
 * check-in or a second refund of the same ticket finds it changed and the whole plan rolls back);
 * a whole order moves TICKETED -> REFUND_PENDING only once; the refund moves PENDING -> settled
 * once, and only that step gives seats and units back (exactly once).
 */
export interface RefundStore {
  /**
   * One transaction: the refund row inserted (unique refund_id and (order_id, idempotency_key):
   * else REFUND_EXISTS with the stored one); each named ticket VALID -> INVALID (else stale
   * 'ticket'), door counts down; their seats SOLD -> REFUND_PENDING (version + 1); a whole refund
   * moves the order `orderFrom` -> REFUND_PENDING (else stale 'order'); outbox 'refund.requested'
   * with the seat changes.
   */
  requestRefund(input: RequestRefundInput): Promise<RequestRefundOutcome>;
  /**
   * Precondition: the refund is PENDING (else stale 'refund'). REFUNDED: seats REFUND_PENDING ->
   * AVAILABLE (their hold line's claim cleared), units back to their sections' stock, the buyer's
   * units down, the order's refunded_cents up (a whole refund: REFUND_PENDING -> REFUNDED); outbox
   * 'refund.completed' with the changes. REFUSED: the tickets INVALID -> VALID (REINSTATE), seats
   * back to SOLD, a whole order back to TICKETED; outbox 'refund.failed'.
   */
  settleRefund(input: SettleRefundInput): Promise<SettleRefundOutcome>;
  getRefund(refundId: string): Promise<Refund | null>;
  /** The order's refunds, oldest first. */
  refundsByOrder(orderId: string): Promise<Refund[]>;
  /** PENDING refunds last changed at or before `updatedBefore`, by (updatedAt, refundId), after `after` (the resume sweep). */
  pendingRefunds(updatedBefore: number, after: KeysetPosition | null, limit: number): Promise<Refund[]>;
  /** What the order's refunds already took (PENDING and REFUNDED), in cents. */
  refundedCentsOfOrder(orderId: string): Promise<number>;
}

export interface CancelShowInput {
  readonly showId: string;
  readonly reason: string;
  readonly now: number;
  /** The audit-trail entry, written in the cancellation's own transaction (only when it commits). */
  readonly audit?: AuditEntryDraft | null;
}

export type CancelShowOutcome =
  | { readonly ok: true; readonly show: Show }
  | { readonly ok: false; readonly code: 'SHOW_NOT_FOUND' }
  /** Cancelled before: nothing written, the stored show (the cancellation goes on as it was). */
  | { readonly ok: false; readonly code: 'SHOW_CANCELLED'; readonly show: Show };

/** Where a show's cancellation stands, read from the orders and refunds themselves (their states are the durable per-order cursor). */
export interface CancellationProgress {
  /** The show's orders by status (TICKETED ones with a valid ticket are still to refund). */
  readonly ordersByStatus: Readonly<Record<string, number>>;
  /** TICKETED orders that still have a VALID ticket: left to refund. */
  readonly ordersToRefund: number;
  /** The show's refunds by status. */
  readonly refundsByStatus: Readonly<Record<string, number>>;
  readonly activeHolds: number;
}

/**
 * A show's cancellation (issue 25): one conditional update stops the sale at once; a background
 * pass then releases the holds and refunds every paid order, each through requestRefund under the
 * key `cancel:{showId}` (the unique (order_id, idempotency_key) makes it once per order, whoever
 * runs the pass and however often it is resumed).
 */
export interface ShowCancellationStore {
  /**
   * Precondition: the show exists and is published (else SHOW_NOT_FOUND) and is not cancelled
   * (else SHOW_CANCELLED). Effect: cancelled_at = now, the reason, version + 1; outbox
   * 'show.cancelled' {showId, reason} and 'show.changed'.
   */
  cancelShow(input: CancelShowInput): Promise<CancelShowOutcome>;
  /** Up to `limit` ACTIVE holds of the show, by hold id. */
  activeHoldsOfShow(showId: string, limit: number): Promise<Hold[]>;
  /** The show's TICKETED orders with at least one VALID ticket, by order id, after `afterOrderId`. */
  refundableOrdersOfShow(showId: string, afterOrderId: string | null, limit: number): Promise<Order[]>;
  cancellationProgress(showId: string): Promise<CancellationProgress>;
  /** Cancelled shows with something left to do (a refundable or PAID order, a PENDING refund, an ACTIVE hold), at most `limit`. */
  unfinishedCancellations(limit: number): Promise<string[]>;
}
