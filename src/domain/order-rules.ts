import type { OrderContact, OrderDiscount } from './discount.js';
import type { Hold, Order } from './entities.js';
import { requireActiveHold } from './hold-rules.js';
import { fail, ok, type Result } from './result.js';
import { orderMachine, type OrderEvent } from './states.js';

export interface OpenOrderInput {
  readonly hold: Hold;
  readonly userId: string;
  readonly orderId: string;
  readonly idempotencyKey: string;
  /** The hold's live order, if it has one already. */
  readonly existingOrder: Order | null;
  readonly now: number;
  /** The buyer's contact (checked with checkContact). */
  readonly contact?: OrderContact;
  /** The discount code's verdict (applyDiscount): taken off the hold's price. */
  readonly discount?: OrderDiscount;
}

/** Only the buyer who holds the seats may order them; checked before anything of the hold changes. */
export function checkHoldOwner(hold: Pick<Hold, 'userId'>, userId: string): Result<true> {
  return hold.userId === userId ? ok(true) : fail('HOLD_NOT_OWNED', 'this hold belongs to someone else');
}

/** An order may only come from the buyer's own ACTIVE, unexpired hold that has no live order yet. */
export function openOrder(input: OpenOrderInput): Result<Order> {
  const { hold, now } = input;
  const owner = checkHoldOwner(hold, input.userId);
  if (!owner.ok) return owner;
  const active = requireActiveHold(hold, now);
  if (!active.ok) return active;
  if (input.existingOrder !== null) {
    return fail('HOLD_ALREADY_ORDERED', 'an order already exists for this hold', { orderId: input.existingOrder.orderId });
  }
  return ok({
    orderId: input.orderId,
    userId: input.userId,
    showId: hold.showId,
    holdId: hold.holdId,
    idempotencyKey: input.idempotencyKey,
    lines: hold.lines,
    // discountCents is at most the price (discount.ts: the price floor), so this is never below zero.
    amountCents: hold.totalPriceCents - (input.discount?.discountCents ?? 0),
    status: 'INIT',
    paymentId: null,
    createdAt: now,
    updatedAt: now,
    ...(input.contact === undefined ? {} : { contact: input.contact }),
    ...(input.discount === undefined ? {} : { discount: input.discount }),
  });
}

export function moveOrder(order: Order, event: OrderEvent, now: number, patch: Partial<Pick<Order, 'paymentId'>> = {}): Result<Order> {
  const next = orderMachine.transition(order.status, event);
  if (!next.ok) return next;
  return ok({ ...order, ...patch, status: next.value, updatedAt: now });
}

/**
 * The payment a buyer may pay now: the order must await payment on a hold that is still active,
 * refused in the same words as every other route on that hold.
 */
export function paymentToCollect(order: Order, hold: Hold, now: number): Result<string> {
  // A second payment of a paid order is told that the order is paid, not that its hold is
  // confirmed: the buyer thinks in orders.
  if (isPaidOrder(order)) return fail('ORDER_ALREADY_PAID', `the order is ${order.status.toLowerCase()}: it is paid already`, { status: order.status });
  const active = requireActiveHold(hold, now);
  if (!active.ok) return active;
  if (order.status !== 'PENDING_PAY' || order.paymentId === null) {
    return fail('ORDER_NOT_PAYABLE', `the order is ${order.status.toLowerCase()}, not awaiting payment`, { status: order.status });
  }
  return ok(order.paymentId);
}

/** The money arrived: the order is PAID or its tickets are issued. */
export function isPaidOrder(order: Pick<Order, 'status'>): boolean {
  return order.status === 'PAID' || order.status === 'TICKETED';
}

/**
 * The buyer calls off their own unpaid order: INIT is aborted, PENDING_PAY cancelled (the state
 * machine's own events). A paid order is ORDER_ALREADY_PAID; one already cancelled or refunded is
 * ORDER_NOT_CANCELLABLE. Ownership is the caller's to check first. The caller then releases the
 * hold, which cancels the order in the same store operation (lapseHold): seats and order end together.
 */
export function buyerCancellation(order: Order): Result<Extract<OrderEvent, 'ABORT' | 'CANCEL'>> {
  if (isPaidOrder(order)) return fail('ORDER_ALREADY_PAID', `the order is ${order.status.toLowerCase()}: it is paid already`, { status: order.status });
  const event = order.status === 'INIT' ? 'ABORT' : 'CANCEL';
  const next = orderMachine.transition(order.status, event);
  if (!next.ok) return fail('ORDER_NOT_CANCELLABLE', `the order is ${order.status.toLowerCase()}`, { status: order.status });
  return ok(event);
}
