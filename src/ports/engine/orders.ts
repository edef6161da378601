import type { Order, OrderStatus, Payment } from '../../domain/index.js';
import type { KeysetPosition, Page, Stale } from './common.js';
import type { KeyClaim } from './idempotency.js';

export type OpenOrderOutcome =
  | { readonly ok: true; readonly order: Order }
  /** The unique index "one live order per hold" (status not CANCELLED/REFUNDED) refused it. */
  | { readonly ok: false; readonly code: 'HOLD_ALREADY_ORDERED'; readonly orderId: string }
  /** The unique index (user_id, idempotency_key) refused it: the key already opened that order. */
  | { readonly ok: false; readonly code: 'KEY_TAKEN'; readonly orderId: string }
  /**
   * The order carries a discount and its use could not be taken: the code has no use left, is no
   * longer ACTIVE / valid at order.createdAt / for this show (DISCOUNT_UNAVAILABLE), or the buyer
   * used it perUserMax times. Nothing written.
   */
  | { readonly ok: false; readonly code: 'DISCOUNT_USED_UP' | 'DISCOUNT_PER_USER_LIMIT' | 'DISCOUNT_UNAVAILABLE' }
  /** The hold is missing, not ACTIVE, overdue at `order.createdAt`, or someone else's. */
  | Stale<'hold'>;

export interface AbortOrderInput {
  readonly orderId: string;
  readonly now: number;
}
export type AbortOrderOutcome = { readonly ok: true; readonly order: Order } | Stale<'order'>;

export interface AwaitPaymentInput {
  readonly orderId: string;
  /** The provider's payment; inserted PENDING for the order's amount, updatedAt = now. */
  readonly payment: Payment;
  readonly now: number;
  /** The request's key record, completed SUCCEEDED with `responseBody` in the same transaction. */
  readonly key: KeyClaim;
  /** The answer to replay for the key: the order view as it is after this plan (JSON). */
  readonly responseBody: string;
}

export type AwaitPaymentOutcome =
  | { readonly ok: true; readonly order: Order }
  /** The key record is no longer this request's IN_FLIGHT one (a retry took it over). Nothing written. */
  | { readonly ok: false; readonly code: 'KEY_TAKEN' }
  /** The order is no longer INIT (its hold lapsed and cancelled it). Nothing written. */
  | Stale<'order'>;

export interface OrderStore {
  /**
   * Kind B, conditional insert. `order` is the domain's new order (status INIT, the hold's lines
   * and price, paymentId null). Preconditions checked in the same transaction: the hold exists, is
   * ACTIVE, expires_at > order.createdAt, and belongs to order.userId (else stale 'hold'); the
   * unique indexes "one live order per hold" and (user_id, idempotency_key) (else their codes).
   * PostgreSQL: the hold row is read FOR SHARE (or the insert is INSERT ... SELECT ... WHERE the
   * hold is ACTIVE) so a concurrent lapseHold either commits first (stale) or waits for it and then
   * cancels the new order with the hold.
   */
  openOrder(order: Order): Promise<OpenOrderOutcome>;
  /** Precondition: status INIT (else stale). Effect: CANCELLED, updated_at = now (the hold stays as it is). */
  abortOrder(input: AbortOrderInput): Promise<AbortOrderOutcome>;
  /**
   * Preconditions, in this order: the key record (scope, key, createdAt) is stored and IN_FLIGHT
   * (else KEY_TAKEN); the order is INIT (else stale 'order'). Effects: order PENDING_PAY with
   * payment_id and updated_at = now; payment inserted; key record DONE/SUCCEEDED with the body.
   */
  awaitPayment(input: AwaitPaymentInput): Promise<AwaitPaymentOutcome>;
  getOrder(orderId: string): Promise<Order | null>;
  /** The order a user's idempotency key opened, whatever became of it. */
  getOrderByKey(userId: string, idempotencyKey: string): Promise<Order | null>;
  /** The hold's order that is not CANCELLED or REFUNDED, if any. */
  liveOrderOfHold(holdId: string): Promise<Order | null>;
  /** The user's orders, newest first (createdAt desc, then orderId asc). */
  listOrdersByUser(userId: string, page: Page): Promise<Order[]>;
  /** Orders in `status` last changed at or before `updatedBefore`, by (updatedAt, orderId), after `after` when given. */
  ordersByStatus(status: OrderStatus, updatedBefore: number, after: KeysetPosition | null, limit: number): Promise<Order[]>;
}
