import type { Hold, Order, Ticket } from './entities.js';
import { paidCentsByTicket } from './paid-price.js';
import { fail, ok, type Result } from './result.js';
import type { Show } from './show.js';
import { holdMachine, ticketMachine } from './states.js';

const hourMs = 3_600_000;

/** Who asks: the buyer is bound by the show's exchange policy; an organizer or admin is not. */
export type ExchangeActor = 'BUYER' | 'ORGANIZER';

export interface ExchangeRequest {
  /** The order whose tickets are given up. */
  readonly order: Order;
  /** Every ticket of the order, as stored now. */
  readonly tickets: readonly Ticket[];
  /** The buyer's hold on the new seats (placed just before, on the same show or another). */
  readonly newHold: Hold;
  readonly actor: ExchangeActor;
  readonly now: number;
  /** What the order's refunds already took (PENDING and REFUNDED), in cents. */
  readonly refundedCents: number;
  /** A section's list price on the old show (the new seats' list price is the new hold's total). */
  readonly oldListCentsOf: (sectionId: string) => number | undefined;
}

/** What the store applies in one transaction (see ExchangeStore.swapExchange). */
export interface ExchangePlan {
  /** The order's VALID tickets, all of them: an exchange swaps the whole order. */
  readonly oldTicketIds: readonly string[];
  /**
   * What the tickets given up bring into the new order: their paid prices (never their list
   * price), and never more than what is left of the order after its refunds.
   */
  readonly carriedCents: number;
  /** The new seats' list price minus the list price of the tickets given up (0: an even swap). */
  readonly differenceCents: number;
  /** The new order's charge: the value carried plus the difference (the order keeps its discount). */
  readonly newAmountCents: number;
}

/**
 * The last moment a buyer may exchange on their own: `exchangeUntilHoursBefore` hours before the
 * show starts. null (no policy set): buyers cannot exchange by themselves; organizers always can.
 */
export function exchangeDeadline(show: Pick<Show, 'startsAt' | 'exchangeUntilHoursBefore'>): number | null {
  const hours = show.exchangeUntilHoursBefore ?? null;
  return hours === null ? null : show.startsAt - hours * hourMs;
}

/** EXCHANGE_NOT_ALLOWED for a buyer past the show's deadline (or without a policy); an organizer any time. */
export function checkExchangeWindow(show: Pick<Show, 'startsAt' | 'exchangeUntilHoursBefore'>, actor: ExchangeActor, now: number): Result<null> {
  if (actor === 'BUYER') {
    const deadline = exchangeDeadline(show);
    if (deadline === null || now > deadline) {
      return fail('EXCHANGE_NOT_ALLOWED', 'the show\'s exchange policy no longer allows an exchange by the buyer', { exchangeUntil: deadline === null ? null : new Date(deadline).toISOString() });
    }
  }
  return ok(null);
}

/**
 * Decides an exchange (改签) of a whole TICKETED order for the seats of a new hold. Refusals
 * (typed, nothing thrown):
 * - EXCHANGE_NOT_ALLOWED: a buyer past the old show's deadline (or it has no exchange policy);
 * - ORDER_NOT_TICKETED: the order is not TICKETED, or none of its tickets is VALID any more;
 * - HOLD_NOT_ACTIVE / HOLD_EXPIRED: the new hold is not the buyer's live hold;
 * - EXCHANGE_PRICE_DIFFERS: the new seats cost more or less (only even swaps are supported).
 * A used ticket (checked in) makes the order unexchangeable: the door already let someone in.
 *
 * Money (issue 32): the difference compares list prices, the new seats' against the tickets given
 * up (after a partial refund, only those still VALID), so a discounted order swaps for seats of
 * the same list price, and buying 3, refunding 1 and exchanging the 2 left for 3 is a difference
 * of one place, not 0. The value carried is the paid price of the tickets given up, bounded by what
 * is left of the order's charge after refunds; the new order's charge is that value plus the
 * difference, so the discount travels with the order and is never paid out twice.
 */
export function planExchange(request: ExchangeRequest, show: Pick<Show, 'startsAt' | 'exchangeUntilHoursBefore'>): Result<ExchangePlan> {
  const { order, tickets, newHold, now } = request;
  const window = checkExchangeWindow(show, request.actor, now);
  if (!window.ok) return window;
  if (order.status !== 'TICKETED') return fail('ORDER_NOT_TICKETED', `an order in ${order.status} cannot be exchanged`);
  if (tickets.some((t) => t.status === 'USED')) return fail('ORDER_NOT_TICKETED', 'a ticket of this order was already used');
  const valid = tickets.filter((t) => t.status === 'VALID' && ticketMachine.can(t.status, 'INVALIDATE'));
  if (valid.length === 0) return fail('ORDER_NOT_TICKETED', 'the order has no valid ticket left to exchange');
  if (newHold.userId !== order.userId || !holdMachine.can(newHold.status, 'CONFIRM')) return fail('HOLD_NOT_ACTIVE', 'the new hold is not active');
  if (newHold.expiresAt <= now) return fail('HOLD_EXPIRED', 'the new hold has expired');
  const oldListCents = valid.reduce((sum, t) => sum + (request.oldListCentsOf(t.sectionId) ?? 0), 0);
  const differenceCents = newHold.totalPriceCents - oldListCents;
  if (differenceCents !== 0) {
    return fail('EXCHANGE_PRICE_DIFFERS', 'the new seats do not cost the same as the old ones', { differenceCents });
  }
  const paid = paidCentsByTicket(order, tickets, request.oldListCentsOf);
  const paidOfValid = valid.reduce((sum, t) => sum + (paid.get(t.ticketId) ?? 0), 0);
  const carriedCents = Math.max(0, Math.min(paidOfValid, order.amountCents - request.refundedCents));
  return ok({ oldTicketIds: valid.map((t) => t.ticketId), carriedCents, differenceCents, newAmountCents: carriedCents + differenceCents });
}
