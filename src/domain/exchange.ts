import type { Hold, Order, Ticket } from './entities.js';
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
}

/** What the store applies in one transaction (see ExchangeStore.swapExchange). */
export interface ExchangePlan {
  /** The order's VALID tickets, all of them: an exchange swaps the whole order. */
  readonly oldTicketIds: readonly string[];
  /** New price minus old price (0: an even swap). */
  readonly differenceCents: number;
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
  const differenceCents = newHold.totalPriceCents - order.amountCents;
  if (differenceCents !== 0) {
    return fail('EXCHANGE_PRICE_DIFFERS', 'the new seats do not cost the same as the old ones', { differenceCents });
  }
  return ok({ oldTicketIds: valid.map((t) => t.ticketId), differenceCents });
}
