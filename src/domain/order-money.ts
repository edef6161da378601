import type { OrderStatus } from './states.js';

/** What the store knows of one order's money (issue 32), for the organizer's figures and exports. */
export interface OrderMoneyFacts {
  readonly status: OrderStatus;
  /** The charge, already net of any discount (for an order from an exchange: the value carried in). */
  readonly amountCents: number;
  readonly discountCents: number;
  /** What confirmed refunds of this order gave back (orders.refunded_cents). */
  readonly refundedCents: number;
  /** The value exchanges carried out of this order into new orders. */
  readonly carriedOutCents: number;
  /** The order was created by an exchange: its money came in with the old order, not by a charge. */
  readonly fromExchange: boolean;
}

export interface OrderMoney {
  /** The list price charged for (charge + discount); 0 when no money came in, or it came by exchange. */
  readonly grossCents: number;
  readonly refundedCents: number;
  /** What the order holds now: its money less refunds and value carried out. */
  readonly netCents: number;
}

/** States in which the order's money came in (paid, possibly refunded since). */
const moneyTaken: ReadonlySet<OrderStatus> = new Set<OrderStatus>(['PAID', 'TICKETED', 'REFUND_PENDING', 'REFUNDED']);

/**
 * One order's money, so that a sum over every order never counts money twice: a charge's gross is
 * counted once, on the order that was charged (an order born of an exchange has gross 0: its value
 * was charged on the old order); value carried by an exchange leaves the old order's net and is the
 * new order's net, so Σ net = charges − refunds and Σ (gross − discount) = charges. Unpaid or
 * cancelled orders took nothing: all 0. A REFUNDED order whose refund went by the late-payment path
 * (nothing recorded in refundedCents) counts its whole charge as refunded.
 */
export function orderMoney(o: OrderMoneyFacts): OrderMoney {
  if (!moneyTaken.has(o.status)) return { grossCents: 0, refundedCents: 0, netCents: 0 };
  // Only a late payment refunded whole has no refund recorded: an order REFUNDED by its refunds
  // counts what they paid back, so a cheaper exchange's difference still pending stays in its net.
  const refundedCents = o.status === 'REFUNDED' && o.refundedCents === 0 ? o.amountCents - o.carriedOutCents : o.refundedCents;
  return {
    grossCents: o.fromExchange ? 0 : o.amountCents + o.discountCents,
    refundedCents,
    netCents: Math.max(0, o.amountCents - refundedCents - o.carriedOutCents),
  };
}
