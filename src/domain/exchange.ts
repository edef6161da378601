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
  /** The tickets to give up; null: every VALID ticket of the order (the whole order). */
  readonly ticketIds: readonly string[] | null;
  /** What the order's refunds already took (PENDING and REFUNDED), in cents. */
  readonly refundedCents: number;
  /** What earlier (partial) exchanges already carried out of the order (valueCarriedOut of each), in cents. */
  readonly carriedOutCents: number;
  /** A section's list price on the old show (the new seats' list price is the new hold's total). */
  readonly oldListCentsOf: (sectionId: string) => number | undefined;
}

/** What the store applies in one transaction (see ExchangeStore.swapExchange). */
export interface ExchangePlan {
  /** The tickets given up: the named ones, or every VALID ticket of the order. */
  readonly oldTicketIds: readonly string[];
  /**
   * What the tickets given up bring into the new order: their paid prices (never their list
   * price), and never more than what is left of the order after its refunds and earlier exchanges.
   */
  readonly carriedCents: number;
  /** The new seats' list price minus the list price of the tickets given up (0: an even swap, < 0: cheaper). */
  readonly differenceCents: number;
  /**
   * A cheaper swap: what goes back to the money's source once the swap commits (a refund of the old
   * order with no tickets): the list difference, never more than the value carried. 0 otherwise.
   */
  readonly refundCents: number;
  /** A dearer swap: the difference the buyer pays through the provider before the swap commits (the list difference). 0 otherwise. */
  readonly payCents: number;
  /** The new order's value: the value carried less what is given back (never below 0), plus a dearer swap's difference. */
  readonly newAmountCents: number;
}

/** The refund of a cheaper exchange's difference is recorded with this reason (and no tickets). */
export const exchangeDifferenceReason = 'exchange difference';

/** A refund with no tickets that gives back a cheaper exchange's difference (processRefund retries it rather than refuse it). */
export const isExchangeDifferenceRefund = (refund: { readonly ticketIds: readonly string[]; readonly whole: boolean; readonly reason: string | null }): boolean =>
  refund.ticketIds.length === 0 && !refund.whole && refund.reason === exchangeDifferenceReason;

/**
 * The value an exchange carried out of its old order into its new one: the new order's value less
 * what the new order was charged on its own (a positive difference; nothing for an even or cheaper
 * swap, whose difference went back as a refund of the old order). Exports, refunds and later
 * exchanges of the old order subtract it, so a cent is never in two orders.
 */
export const valueCarriedOut = (newOrderAmountCents: number, differenceCents: number): number => newOrderAmountCents - Math.max(0, differenceCents);

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
 * The tickets an exchange gives up: the named ones, each a VALID ticket of the order, once
 * (TICKET_NOT_EXCHANGEABLE otherwise); null: every VALID ticket, and then none may be USED
 * (ORDER_NOT_TICKETED, as for none left). The app asks it before holding the new seats too.
 */
export function exchangeTickets(tickets: readonly Ticket[], ticketIds: readonly string[] | null): Result<Ticket[]> {
  const valid = tickets.filter((t) => t.status === 'VALID' && ticketMachine.can(t.status, 'INVALIDATE'));
  let chosen: Ticket[];
  if (ticketIds === null) {
    if (tickets.some((t) => t.status === 'USED')) return fail('ORDER_NOT_TICKETED', 'a ticket of this order was already used');
    chosen = valid;
  } else {
    const asked = new Set(ticketIds);
    if (asked.size !== ticketIds.length || asked.size === 0) return fail('TICKET_NOT_EXCHANGEABLE', 'name each ticket to exchange once');
    chosen = valid.filter((t) => asked.has(t.ticketId));
    if (chosen.length !== asked.size) {
      return fail('TICKET_NOT_EXCHANGEABLE', 'a named ticket is not a valid ticket of this order', { ticketIds: [...asked].filter((id) => !chosen.some((t) => t.ticketId === id)) });
    }
  }
  if (chosen.length === 0) return fail('ORDER_NOT_TICKETED', 'the order has no valid ticket left to exchange');
  return ok(chosen);
}

/**
 * Decides an exchange (改签) of a TICKETED order, whole or the named tickets, for the seats of a
 * new hold. Refusals (typed, nothing thrown):
 * - EXCHANGE_NOT_ALLOWED: a buyer past the old show's deadline (or it has no exchange policy);
 * - ORDER_NOT_TICKETED: the order is not TICKETED, or none of its tickets is VALID any more;
 * - TICKET_NOT_EXCHANGEABLE: a named ticket is not a VALID ticket of the order, or one is named twice;
 * - HOLD_NOT_ACTIVE / HOLD_EXPIRED: the new hold is not the buyer's live hold;
 * A used ticket (checked in) makes the whole order unexchangeable (the door already let someone
 * in); a partial exchange may leave used tickets behind.
 *
 * Money (issue 32): the difference compares list prices, the new seats' against the tickets given
 * up (after a partial refund, only those still VALID), so a discounted order swaps for seats of
 * the same list price, and buying 3, refunding 1 and exchanging the 2 left for 3 is a difference
 * of one place, not 0. The value carried is the paid price of the tickets given up, bounded by what
 * is left of the order's charge after refunds and earlier exchanges. A cheaper swap gives back the
 * list difference, never more than the value carried (refundCents), and the new order holds the
 * rest (never below 0), so the discount is never paid out twice. A dearer swap (payCents > 0) commits
 * only once the buyer paid the list difference on a payment of its own (see app/exchanges.ts).
 */
export function planExchange(request: ExchangeRequest, show: Pick<Show, 'startsAt' | 'exchangeUntilHoursBefore'>): Result<ExchangePlan> {
  const { order, tickets, newHold, now } = request;
  const window = checkExchangeWindow(show, request.actor, now);
  if (!window.ok) return window;
  if (order.status !== 'TICKETED') return fail('ORDER_NOT_TICKETED', `an order in ${order.status} cannot be exchanged`);
  const picked = exchangeTickets(tickets, request.ticketIds);
  if (!picked.ok) return picked;
  const chosen = picked.value;
  if (newHold.userId !== order.userId || !holdMachine.can(newHold.status, 'CONFIRM')) return fail('HOLD_NOT_ACTIVE', 'the new hold is not active');
  if (newHold.expiresAt <= now) return fail('HOLD_EXPIRED', 'the new hold has expired');
  const oldListCents = chosen.reduce((sum, t) => sum + (request.oldListCentsOf(t.sectionId) ?? 0), 0);
  const differenceCents = newHold.totalPriceCents - oldListCents;
  const paid = paidCentsByTicket(order, tickets, request.oldListCentsOf);
  const paidOfChosen = chosen.reduce((sum, t) => sum + (paid.get(t.ticketId) ?? 0), 0);
  const left = order.amountCents - request.refundedCents - request.carriedOutCents;
  const carriedCents = Math.max(0, Math.min(paidOfChosen, left));
  // Cheaper: the list difference goes back, never more than the value carried.
  const refundCents = Math.max(0, Math.min(carriedCents, -differenceCents));
  // Dearer: the new order holds the value carried plus the difference, which the buyer pays on its own payment.
  const payCents = Math.max(0, differenceCents);
  return ok({ oldTicketIds: chosen.map((t) => t.ticketId), carriedCents, differenceCents, refundCents, payCents, newAmountCents: Math.max(0, carriedCents - refundCents) + payCents });
}
