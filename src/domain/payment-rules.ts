import type { Hold, Order, Payment } from './entities.js';
import { fail, ok, type Result } from './result.js';
import { holdMachine, orderMachine, paymentMachine, type HoldStatus, type OrderStatus, type PaymentStatus } from './states.js';

export interface PaymentReport {
  readonly paymentId: string;
  readonly orderId: string;
  readonly status: 'SUCCEEDED' | 'FAILED';
  readonly amountCents: number;
}

export type SettlementOutcome =
  | 'DUPLICATE' // already applied, or a failure after a success: nothing changes
  | 'SOLD' // paid within the hold: seats sold
  | 'SOLD_LATE' // paid after the hold lapsed, seats were still free: sold anyway
  | 'REFUND_REQUIRED' // paid after the hold lapsed, seats were taken: money goes back
  | 'CANCELLED' // payment failed: order cancelled, seats freed
  | 'AMOUNT_MISMATCH'; // the provider reported another amount than the order's: see settleWrongAmount

interface Move<S> {
  readonly from: S;
  readonly to: S;
}

/**
 * What the store must do to apply a verdict: each row moves from the state the domain read to the
 * state it decided, or nothing happens (the store answers stale and the verdict is decided again).
 * The store derives the inventory effect from the hold's move (see src/ports/engine/payments.ts).
 */
export interface SettlementPlan {
  readonly kind: 'SELL' | 'SELL_LATE' | 'REFUND_REQUIRED' | 'CANCEL' | 'AMOUNT_MISMATCH';
  readonly now: number;
  readonly payment: { readonly paymentId: string; readonly receivedCents: number | null } & Move<PaymentStatus>;
  readonly order: ({ readonly orderId: string } & Move<OrderStatus>) | null;
  readonly hold: ({ readonly holdId: string } & Move<HoldStatus>) | null;
}

export interface Settlement {
  readonly outcome: SettlementOutcome;
  /** null when nothing changes (a duplicate, or a wrong amount on a settled payment). */
  readonly plan: SettlementPlan | null;
}

export interface SettleInput {
  readonly report: PaymentReport;
  readonly payment: Payment;
  readonly order: Order;
  readonly hold: Hold;
  readonly now: number;
}

/**
 * Decides how a provider's verdict settles. Idempotent by (paymentId, orderId): a verdict that is
 * already applied is a DUPLICATE. Money that arrives for a lapsed hold is never lost: SOLD_LATE
 * asks the store to take the inventory back; if it is gone, refundInstead gives the plan that
 * marks the payment for refund.
 */
export function settlePayment(input: SettleInput): Result<Settlement> {
  const { report, payment, order } = input;
  if (payment.orderId !== report.orderId || order.orderId !== report.orderId || order.paymentId !== report.paymentId) {
    return fail('PAYMENT_ORDER_MISMATCH', 'the payment does not belong to this order');
  }
  if (report.amountCents !== payment.amountCents) return settleWrongAmount(input);
  if (isAlreadyApplied(payment, report)) return ok({ outcome: 'DUPLICATE', plan: null });
  return report.status === 'SUCCEEDED' ? settleSuccess(input) : settleFailure(input);
}

/** A verdict the payment already has, or a failure reported after a success (a success is final). */
function isAlreadyApplied(payment: Payment, report: PaymentReport): boolean {
  if (report.status === 'FAILED') return payment.status !== 'PENDING';
  return payment.status === 'SUCCEEDED' || payment.status === 'REFUND_PENDING' || payment.status === 'REFUNDED' || payment.status === 'PARTIALLY_REFUNDED';
}

/** Checks a chain of machine events and returns the move from the first state to the last. */
function chain<S extends string, E extends string>(machine: { transition(from: S, event: E): Result<S> }, from: S, events: readonly E[]): Result<Move<S>> {
  let state = from;
  for (const event of events) {
    const next = machine.transition(state, event);
    if (!next.ok) return next;
    state = next.value;
  }
  return ok({ from, to: state });
}

function settleSuccess(input: SettleInput): Result<Settlement> {
  const { order, hold, payment, now } = input;
  const paid = chain(paymentMachine, payment.status, ['SUCCEED']);
  if (!paid.ok) return paid;
  const paymentMove = { paymentId: payment.paymentId, receivedCents: null, ...paid.value };
  if (order.status === 'PENDING_PAY') {
    if (hold.status !== 'ACTIVE') return fail('INVARIANT_VIOLATED', `order ${order.orderId} awaits payment but its hold is ${hold.status}`);
    const o = chain(orderMachine, order.status, ['PAY']);
    const h = chain(holdMachine, hold.status, ['CONFIRM']);
    if (!o.ok) return o;
    if (!h.ok) return h;
    return ok({ outcome: 'SOLD', plan: { kind: 'SELL', now, payment: paymentMove, order: { orderId: order.orderId, ...o.value }, hold: { holdId: hold.holdId, ...h.value } } });
  }
  if (order.status !== 'CANCELLED') return fail('ILLEGAL_TRANSITION', `order is ${order.status}; cannot take a payment`);
  if (hold.status === 'EXPIRED' || hold.status === 'RELEASED') {
    const o = chain(orderMachine, order.status, ['PAY_LATE']);
    const h = chain(holdMachine, hold.status, ['CONFIRM_LATE']);
    if (!o.ok) return o;
    if (!h.ok) return h;
    return ok({ outcome: 'SOLD_LATE', plan: { kind: 'SELL_LATE', now, payment: paymentMove, order: { orderId: order.orderId, ...o.value }, hold: { holdId: hold.holdId, ...h.value } } });
  }
  return refundInstead(payment, now);
}

/** Money that cannot buy its seats (they are taken) is taken in and marked for refund at once. */
export function refundInstead(payment: Payment, now: number, receivedCents: number | null = null): Result<Settlement> {
  const refund = chain(paymentMachine, payment.status, ['SUCCEED', 'REQUIRE_REFUND']);
  if (!refund.ok) return refund;
  return ok({ outcome: 'REFUND_REQUIRED', plan: { kind: 'REFUND_REQUIRED', now, payment: { paymentId: payment.paymentId, receivedCents, ...refund.value }, order: null, hold: null } });
}

/**
 * A dearer exchange's difference arrived but the swap cannot happen any more (the old tickets were
 * used, refunded or exchanged meanwhile): the money is taken in and marked for refund at once
 * (the late-payment REFUND_PENDING path), the difference order is cancelled and its hold released.
 */
export function refundUnswapped(payment: Payment, order: Order, hold: Hold, now: number): Result<Settlement> {
  const refund = chain(paymentMachine, payment.status, ['SUCCEED', 'REQUIRE_REFUND']);
  if (!refund.ok) return refund;
  const rest = cancelWith(order, hold);
  if (!rest.ok) return rest;
  return ok({ outcome: 'REFUND_REQUIRED', plan: { kind: 'REFUND_REQUIRED', now, payment: { paymentId: payment.paymentId, receivedCents: null, ...refund.value }, ...rest.value } });
}

/** An unpaid order ends with its payment, and an ACTIVE hold under it gives its seats back. */
function cancelWith(order: Order, hold: Hold): Result<Pick<SettlementPlan, 'order' | 'hold'>> {
  if (order.status !== 'PENDING_PAY') return ok({ order: null, hold: null });
  const o = chain(orderMachine, order.status, ['CANCEL']);
  if (!o.ok) return o;
  if (hold.status !== 'ACTIVE') return ok({ order: { orderId: order.orderId, ...o.value }, hold: null });
  const h = chain(holdMachine, hold.status, ['RELEASE']);
  if (!h.ok) return h;
  return ok({ order: { orderId: order.orderId, ...o.value }, hold: { holdId: hold.holdId, ...h.value } });
}

/**
 * The provider reports another amount than the order's. Retrying cannot fix that, so it is
 * acknowledged, never applied as sent: money that arrived for a payment still open is taken in
 * (SUCCEED) and marked for refund at once (REQUIRE_REFUND), and the order does not become PAID:
 * it is cancelled and its seats are freed, as for a declined card; the refund then moves it to
 * REFUNDED. A wrong amount on a payment already settled, or on a decline, changes nothing.
 */
function settleWrongAmount(input: SettleInput): Result<Settlement> {
  const { report, order, hold, payment, now } = input;
  if (report.status !== 'SUCCEEDED' || !paymentMachine.can(payment.status, 'SUCCEED')) return ok({ outcome: 'AMOUNT_MISMATCH', plan: null });
  const refund = chain(paymentMachine, payment.status, ['SUCCEED', 'REQUIRE_REFUND']);
  if (!refund.ok) return refund;
  const rest = cancelWith(order, hold);
  if (!rest.ok) return rest;
  return ok({
    outcome: 'AMOUNT_MISMATCH',
    plan: { kind: 'AMOUNT_MISMATCH', now, payment: { paymentId: payment.paymentId, receivedCents: report.amountCents, ...refund.value }, ...rest.value },
  });
}

function settleFailure(input: SettleInput): Result<Settlement> {
  const { order, hold, payment, now } = input;
  const failed = chain(paymentMachine, payment.status, ['FAIL']);
  if (!failed.ok) return failed;
  const rest = cancelWith(order, hold);
  if (!rest.ok) return rest;
  return ok({ outcome: 'CANCELLED', plan: { kind: 'CANCEL', now, payment: { paymentId: payment.paymentId, receivedCents: null, ...failed.value }, ...rest.value } });
}

/** The money a refund of `payment` returns: what really arrived. */
export const refundCents = (payment: Payment): number => payment.receivedCents ?? payment.amountCents;

/** The provider confirmed a refund: the payment is REFUNDED, and a cancelled order with it. */
export function completeRefund(payment: Payment, order: Order): Result<{ order: ({ orderId: string } & Move<OrderStatus>) | null }> {
  const refunded = chain(paymentMachine, payment.status, ['COMPLETE_REFUND']);
  if (!refunded.ok) return refunded;
  if (order.status !== 'CANCELLED') return ok({ order: null });
  const next = chain(orderMachine, order.status, ['REFUND']);
  return next.ok ? ok({ order: { orderId: order.orderId, ...next.value } }) : next;
}

/**
 * A payment's state once refunds the provider confirmed add up to `refundedCents` (issue 32: the
 * row reflects the ledger): all of it REFUNDED, some PARTIALLY_REFUNDED. null when the machine has
 * no such move (nothing refunded, or the payment is not a settled charge, e.g. a late payment's
 * REFUND_PENDING): the row stays as it is.
 */
export function paymentAfterRefund(status: PaymentStatus, amountCents: number, refundedCents: number): PaymentStatus | null {
  if (refundedCents <= 0) return null;
  const event = refundedCents >= amountCents ? 'REFUND_ALL' : 'REFUND_PART';
  const moved = paymentMachine.transition(status, event);
  return moved.ok ? moved.value : null;
}
