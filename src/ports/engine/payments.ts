import type { Hold, Order, OrderStatus, Payment, PaymentStatus, SettlementPlan } from '../../domain/index.js';
import type { InventoryChanges, KeysetPosition, Stale } from './common.js';

/**
 * Kind B: the domain decided how a provider's verdict settles (src/domain/payment-rules.ts); the
 * adapter applies the plan as conditional updates, each on the row's expected prior status, in one
 * transaction. Any precondition failing -> rollback and stale '<entity>'.
 *
 * Inventory effects follow from the hold's transition (and only happen when it is in the plan):
 * - ACTIVE -> CONFIRMED (SELL): the hold's seats HELD -> SOLD (version + 1); units stay taken;
 *   the user's units unchanged (they were counted at the claim).
 * - EXPIRED|RELEASED -> CONFIRMED (SELL_LATE): the inventory is taken back, all or nothing: every
 *   seat of the hold's SEATS lines must have no live claim (AVAILABLE -> SOLD, hold_id = this
 *   hold, version + 1), every UNITS line's section must have available >= quantity (decrement);
 *   the user's units go up by the hold's units WITHOUT the cap (the money is already taken).
 *   If any seat or unit is gone -> { ok:false, code:'INVENTORY_TAKEN' }, nothing written; the
 *   application then applies the REFUND_REQUIRED plan instead.
 * - ACTIVE -> RELEASED (CANCEL, AMOUNT_MISMATCH): exactly lapseHold's RELEASE effects (seats
 *   AVAILABLE, units back to stock, user's units down), without its order effect (the plan's
 *   order part says what happens to the order).
 * The plan type lives in the domain (src/domain/payment-rules.ts), which builds it:
 * { kind, now, payment: {paymentId, from, to, receivedCents|null}, order: {orderId, from, to}|null,
 *   hold: {holdId, from, to}|null }. receivedCents non-null: store it on the payment.
 */
export type { SettlementPlan } from '../../domain/index.js';

export type SettleOutcome =
  | { readonly ok: true; readonly payment: Payment; readonly order: Order | null; readonly hold: Hold | null; readonly changes: InventoryChanges | null }
  | { readonly ok: false; readonly code: 'INVENTORY_TAKEN' }
  | Stale<'payment' | 'order' | 'hold'>;

export interface CompleteRefundInput {
  readonly paymentId: string;
  readonly now: number;
  /** The order moves CANCELLED -> REFUNDED with the payment; null when the order stays as it is. */
  readonly order: { readonly orderId: string; readonly from: OrderStatus; readonly to: OrderStatus } | null;
}

export type CompleteRefundOutcome = { readonly ok: true; readonly payment: Payment } | Stale<'payment' | 'order'>;

export interface PaymentStore {
  /** Applies one settlement plan (see SettlementPlan). updated_at = now on every row it changes. */
  settlePayment(plan: SettlementPlan): Promise<SettleOutcome>;
  /**
   * Precondition: payment REFUND_PENDING (else stale 'payment'); the order part's `from` (else
   * stale 'order'). Effect: payment REFUNDED; the order as planned. Stock is not touched: a
   * payment is refunded only for an order that never kept its inventory (it went back when the
   * hold lapsed), so nothing can be given back twice.
   */
  completeRefund(input: CompleteRefundInput): Promise<CompleteRefundOutcome>;
  getPayment(paymentId: string): Promise<Payment | null>;
  /** Payments in `status` last changed at or before `updatedBefore`, by (updatedAt, paymentId), after `after` when given. */
  paymentsByStatus(status: PaymentStatus, updatedBefore: number, after: KeysetPosition | null, limit: number): Promise<Payment[]>;
}
