import type { Hold, Order, Payment } from './entities.js';
import { lapseHold } from './hold-rules.js';
import { moveOrder } from './order-rules.js';
import { fail, ok, type Result } from './result.js';
import type { Seat } from './show.js';
import { holdMachine, paymentMachine, seatMachine, type PaymentEvent } from './states.js';

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
  | 'CANCELLED'; // payment failed: order cancelled, seats freed

export interface Settlement {
  readonly outcome: SettlementOutcome;
  readonly order: Order;
  readonly hold: Hold;
  readonly payment: Payment;
  /** Seats whose state changed. */
  readonly seats: Seat[];
}

export interface SettleInput {
  readonly report: PaymentReport;
  readonly payment: Payment;
  readonly order: Order;
  readonly hold: Hold;
  /** Current state of the hold's seats. */
  readonly seats: readonly Seat[];
  readonly now: number;
}

/**
 * Applies a provider's verdict on a payment. Idempotent by (paymentId, orderId): a verdict that is
 * already applied is a DUPLICATE. Money that arrives for a lapsed hold is never lost: the seats
 * are sold if they are all still free, otherwise the payment is marked for refund.
 */
export function settlePayment(input: SettleInput): Result<Settlement> {
  const { report, payment, order } = input;
  if (payment.orderId !== report.orderId || order.orderId !== report.orderId || order.paymentId !== report.paymentId) {
    return fail('PAYMENT_ORDER_MISMATCH', 'the payment does not belong to this order');
  }
  if (report.amountCents !== payment.amountCents) {
    return fail('PAYMENT_AMOUNT_MISMATCH', `expected ${payment.amountCents} cents, got ${report.amountCents}`);
  }
  if (isAlreadyApplied(payment, report)) {
    return ok({ outcome: 'DUPLICATE', order, hold: input.hold, payment, seats: [] });
  }
  return report.status === 'SUCCEEDED' ? settleSuccess(input) : settleFailure(input);
}

/** A verdict the payment already has, or a failure reported after a success (a success is final). */
function isAlreadyApplied(payment: Payment, report: PaymentReport): boolean {
  if (report.status === 'FAILED') return payment.status !== 'PENDING';
  return payment.status === 'SUCCEEDED' || payment.status === 'REFUND_PENDING' || payment.status === 'REFUNDED';
}

function movePayment(payment: Payment, event: PaymentEvent, now: number): Result<Payment> {
  const next = paymentMachine.transition(payment.status, event);
  return next.ok ? ok({ ...payment, status: next.value, updatedAt: now }) : next;
}

function settleSuccess(input: SettleInput): Result<Settlement> {
  const { order, hold, now } = input;
  const paid = movePayment(input.payment, 'SUCCEED', now);
  if (!paid.ok) return paid;
  if (order.status === 'PENDING_PAY') {
    if (hold.status !== 'ACTIVE') return fail('INVARIANT_VIOLATED', `order ${order.orderId} awaits payment but its hold is ${hold.status}`);
    return sell(input, paid.value, 'CONFIRM', 'PAY', 'SOLD');
  }
  if (order.status !== 'CANCELLED') return fail('ILLEGAL_TRANSITION', `order is ${order.status}; cannot take a payment`);
  const mine = input.seats.filter((s) => hold.seatIds.includes(s.seatId));
  const allFree = mine.length === hold.seatIds.length && mine.every((s) => s.status === 'AVAILABLE');
  if (allFree) {
    const held = mine.map((s) => holdSeat(s, hold.holdId));
    const failed = held.find((r) => !r.ok);
    if (failed !== undefined && !failed.ok) return failed;
    const seats = held.flatMap((r) => (r.ok ? [r.value] : []));
    return sell({ ...input, seats }, paid.value, 'CONFIRM_LATE', 'PAY_LATE', 'SOLD_LATE');
  }
  const refund = movePayment(paid.value, 'REQUIRE_REFUND', now);
  if (!refund.ok) return refund;
  return ok({ outcome: 'REFUND_REQUIRED', order, hold, payment: refund.value, seats: [] });
}

/** AVAILABLE -> HELD as the first step of a late sale; `sell` then bumps the version once for both steps. */
function holdSeat(seat: Seat, holdId: string): Result<Seat> {
  const next = seatMachine.transition(seat.status, 'HOLD');
  return next.ok ? ok({ ...seat, status: next.value, holdId }) : next;
}

function sell(
  input: SettleInput,
  payment: Payment,
  holdEvent: 'CONFIRM' | 'CONFIRM_LATE',
  orderEvent: 'PAY' | 'PAY_LATE',
  outcome: 'SOLD' | 'SOLD_LATE',
): Result<Settlement> {
  const { hold, now } = input;
  const holdStatus = holdMachine.transition(hold.status, holdEvent);
  if (!holdStatus.ok) return holdStatus;
  const order = moveOrder(input.order, orderEvent, now);
  if (!order.ok) return order;
  const sold: Seat[] = [];
  for (const seat of input.seats) {
    if (seat.holdId !== hold.holdId) continue;
    const next = seatMachine.transition(seat.status, 'SELL');
    if (!next.ok) return next;
    sold.push({ ...seat, status: next.value, version: seat.version + 1 });
  }
  if (sold.length !== hold.seatIds.length) {
    return fail('INVARIANT_VIOLATED', `hold ${hold.holdId} has ${hold.seatIds.length} seats but ${sold.length} could be sold`);
  }
  return ok({ outcome, order: order.value, hold: { ...hold, status: holdStatus.value }, payment, seats: sold });
}

function settleFailure(input: SettleInput): Result<Settlement> {
  const { order, hold, now } = input;
  const failed = movePayment(input.payment, 'FAIL', now);
  if (!failed.ok) return failed;
  if (order.status === 'CANCELLED') return ok({ outcome: 'CANCELLED', order, hold, payment: failed.value, seats: [] });
  const cancelled = moveOrder(order, 'CANCEL', now);
  if (!cancelled.ok) return cancelled;
  if (hold.status !== 'ACTIVE') return ok({ outcome: 'CANCELLED', order: cancelled.value, hold, payment: failed.value, seats: [] });
  const released = lapseHold(hold, input.seats, 'RELEASE');
  if (!released.ok) return released;
  return ok({ outcome: 'CANCELLED', order: cancelled.value, payment: failed.value, ...released.value });
}

/** The provider confirmed a refund: the payment is REFUNDED and a cancelled order with it. */
export function completeRefund(payment: Payment, order: Order, now: number): Result<{ payment: Payment; order: Order }> {
  const refunded = movePayment(payment, 'COMPLETE_REFUND', now);
  if (!refunded.ok) return refunded;
  if (order.status !== 'CANCELLED') return ok({ payment: refunded.value, order });
  const next = moveOrder(order, 'REFUND', now);
  return next.ok ? ok({ payment: refunded.value, order: next.value }) : next;
}
