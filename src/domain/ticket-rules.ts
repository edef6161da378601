import { limits } from './limits.js';
import type { Order, Ticket } from './entities.js';
import { moveOrder } from './order-rules.js';
import { fail, ok, type Result } from './result.js';
import type { Seat } from './show.js';
import { ticketMachine } from './states.js';

export interface TicketIdentity {
  readonly ticketId: string;
  readonly code: string;
}

/**
 * A PAID order gets exactly one ticket per seat, and becomes TICKETED. Every seat must be SOLD to
 * this order's hold: a ticket for a seat that is not ours would be a double sale.
 */
export function issueTickets(
  order: Order,
  seats: readonly Seat[],
  identities: readonly TicketIdentity[],
  now: number,
): Result<{ order: Order; tickets: Ticket[] }> {
  const ticketed = moveOrder(order, 'ISSUE_TICKETS', now);
  if (!ticketed.ok) return ticketed;
  if (identities.length !== order.seatIds.length) return fail('INVARIANT_VIOLATED', 'one ticket identity per seat is required');
  const byId = new Map(seats.map((s) => [s.seatId, s]));
  const tickets: Ticket[] = [];
  for (const [index, seatId] of order.seatIds.entries()) {
    const seat = byId.get(seatId);
    const identity = identities[index];
    if (seat === undefined || seat.status !== 'SOLD' || seat.holdId !== order.holdId || identity === undefined) {
      return fail('INVARIANT_VIOLATED', `seat ${seatId} is not sold to order ${order.orderId}`);
    }
    tickets.push({
      ...identity,
      orderId: order.orderId,
      userId: order.userId,
      showId: order.showId,
      seatId,
      status: 'VALID',
      issuedAt: now,
      usedAt: null,
      checkInNonce: null,
    });
  }
  return ok({ order: ticketed.value, tickets });
}

export type CheckInOutcome = 'ADMITTED' | 'ALREADY_ADMITTED_SAME_SCAN';

/**
 * Marks a ticket USED exactly once. The same scanner nonce retried shortly after (a lost answer)
 * is the same admission, not a second one; later, the nonce no longer admits anyone.
 */
export function checkIn(ticket: Ticket, nonce: string | null, now: number): Result<{ ticket: Ticket; outcome: CheckInOutcome }> {
  const retried = ticket.usedAt !== null && now - ticket.usedAt <= limits.checkInRetrySecondsMax * 1000;
  if (ticket.status === 'USED' && nonce !== null && ticket.checkInNonce === nonce && retried) {
    return ok({ ticket, outcome: 'ALREADY_ADMITTED_SAME_SCAN' });
  }
  if (ticket.status === 'USED') return fail('TICKET_ALREADY_USED', 'this ticket has already been used', { usedAt: ticket.usedAt });
  if (ticket.status === 'INVALID') return fail('TICKET_NOT_VALID', 'this ticket is no longer valid');
  const next = ticketMachine.transition(ticket.status, 'CHECK_IN');
  if (!next.ok) return next;
  return ok({ ticket: { ...ticket, status: next.value, usedAt: now, checkInNonce: nonce }, outcome: 'ADMITTED' });
}
