import type { Order, Ticket } from './entities.js';
import { paidCentsByTicket } from './paid-price.js';
import { fail, ok, type Result } from './result.js';
import type { Show } from './show.js';
import { orderMachine, ticketMachine } from './states.js';

const hourMs = 3_600_000;

/** Who asks: the buyer is bound by the show's policy; an organizer or admin (or the show's cancellation) is not. */
export type RefundActor = 'BUYER' | 'ORGANIZER';

export interface RefundRequest {
  readonly order: Order;
  /** Every ticket of the order, as stored now. */
  readonly tickets: readonly Ticket[];
  /** The tickets asked for; null: every ticket still VALID (the whole order). */
  readonly ticketIds: readonly string[] | null;
  readonly actor: RefundActor;
  /** What earlier refunds of the order already gave back (completed or pending). */
  readonly refundedCents: number;
  /** What exchanges carried out of the order (a partial exchange took some tickets' value into a new order). */
  readonly carriedOutCents: number;
  readonly now: number;
}

/** What the store applies in one transaction (see RefundStore.requestRefund). */
export interface RefundPlan {
  readonly ticketIds: readonly string[];
  readonly amountCents: number;
  /** Every still-admitting ticket goes: the order moves TICKETED -> REFUND_PENDING (else it stays TICKETED). */
  readonly whole: boolean;
}

/**
 * The last moment a buyer may refund on their own: `refundUntilHoursBefore` hours before the show
 * starts. null (no policy set): buyers cannot refund by themselves; organizers always can.
 */
export function refundDeadline(show: Pick<Show, 'startsAt' | 'refundUntilHoursBefore'>): number | null {
  const hours = show.refundUntilHoursBefore ?? null;
  return hours === null ? null : show.startsAt - hours * hourMs;
}

/**
 * Decides a refund. Refusals (typed, nothing thrown):
 * - REFUND_NOT_ALLOWED: a buyer past the show's deadline (or the show has no refund policy);
 * - ORDER_NOT_REFUNDABLE: the order is not TICKETED (a whole refund is already pending or done);
 * - TICKET_NOT_REFUNDABLE: a named ticket is not the order's, or is not VALID (used, refunded,
 *   or in a pending refund), or the list is empty or repeats one.
 * The amount is each ticket's paid price (allocatePaidCents: 2 × 380 with 20% off refunds 304 a
 * ticket, not 380), never more than what is left of the order's charge (after refunds and the
 * value exchanges carried out); a refund of every
 * remaining ticket gives back exactly the rest.
 */
export function planRefund(request: RefundRequest, show: Pick<Show, 'startsAt' | 'refundUntilHoursBefore' | 'seatMap'>): Result<RefundPlan> {
  const { order, tickets, now } = request;
  if (request.actor === 'BUYER') {
    const deadline = refundDeadline(show);
    if (deadline === null || now > deadline) {
      return fail('REFUND_NOT_ALLOWED', 'the show\'s refund policy no longer allows a refund by the buyer', { refundUntil: deadline === null ? null : new Date(deadline).toISOString() });
    }
  }
  if (!orderMachine.can(order.status, 'REQUEST_REFUND')) return fail('ORDER_NOT_REFUNDABLE', `an order in ${order.status} cannot be refunded`);
  const valid = tickets.filter((t) => ticketMachine.can(t.status, 'INVALIDATE') && t.status === 'VALID');
  let chosen: Ticket[];
  if (request.ticketIds === null) {
    chosen = valid;
  } else {
    const asked = new Set(request.ticketIds);
    if (asked.size !== request.ticketIds.length) return fail('TICKET_NOT_REFUNDABLE', 'a ticket is named twice');
    chosen = valid.filter((t) => asked.has(t.ticketId));
    if (chosen.length !== asked.size) return fail('TICKET_NOT_REFUNDABLE', 'a named ticket is not a valid ticket of this order', { ticketIds: [...asked].filter((id) => !chosen.some((t) => t.ticketId === id)) });
  }
  if (chosen.length === 0) return fail('TICKET_NOT_REFUNDABLE', 'the order has no valid ticket left to refund');
  const left = Math.max(0, order.amountCents - request.refundedCents - request.carriedOutCents);
  const whole = chosen.length === valid.length && valid.length === tickets.filter((t) => t.status !== 'INVALID').length;
  // Each ticket gives back what was paid for it (its share of the discounted charge), never its list price.
  const paid = paidCentsByTicket(order, tickets, (sectionId) => show.seatMap.sections.find((s) => s.id === sectionId)?.priceCents);
  const amountCents = whole ? left : Math.min(left, chosen.reduce((sum, t) => sum + (paid.get(t.ticketId) ?? 0), 0));
  return ok({ ticketIds: chosen.map((t) => t.ticketId), amountCents, whole });
}
