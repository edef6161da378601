import type { Hold, Order } from './entities.js';
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
}

/** An order may only come from the buyer's own ACTIVE, unexpired hold that has no live order yet. */
export function openOrder(input: OpenOrderInput): Result<Order> {
  const { hold, now } = input;
  if (hold.userId !== input.userId) return fail('HOLD_NOT_OWNED', 'this hold belongs to someone else');
  if (hold.status === 'EXPIRED' || (hold.status === 'ACTIVE' && hold.expiresAt <= now)) {
    return fail('HOLD_EXPIRED', 'the hold has expired; hold the seats again');
  }
  if (hold.status !== 'ACTIVE') return fail('HOLD_NOT_ACTIVE', `the hold is ${hold.status.toLowerCase()}`, { status: hold.status });
  if (input.existingOrder !== null) {
    return fail('HOLD_ALREADY_ORDERED', 'an order already exists for this hold', { orderId: input.existingOrder.orderId });
  }
  return ok({
    orderId: input.orderId,
    userId: input.userId,
    showId: hold.showId,
    holdId: hold.holdId,
    idempotencyKey: input.idempotencyKey,
    seatIds: hold.seatIds,
    amountCents: hold.totalPriceCents,
    status: 'INIT',
    paymentId: null,
    createdAt: now,
    updatedAt: now,
  });
}

export function moveOrder(order: Order, event: OrderEvent, now: number, patch: Partial<Pick<Order, 'paymentId'>> = {}): Result<Order> {
  const next = orderMachine.transition(order.status, event);
  if (!next.ok) return next;
  return ok({ ...order, ...patch, status: next.value, updatedAt: now });
}

/** Orders that still tie up seats or money: a second order for the same hold is refused while one is live. */
export function isLiveOrder(order: Pick<Order, 'status'>): boolean {
  return order.status !== 'CANCELLED' && order.status !== 'REFUNDED';
}
