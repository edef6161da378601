import { limits } from './limits.js';
import type { Order, Ticket } from './entities.js';
import { moveOrder } from './order-rules.js';
import { allocatePaidCents } from './paid-price.js';
import { fail, ok, type Result } from './result.js';
import { ticketMachine } from './states.js';

export interface TicketIdentity {
  readonly ticketId: string;
  readonly code: string;
}

/** A ticket before the store issues it: its seat, or null (general admission, or picked at issue). */
export interface TicketDraftPlan {
  readonly ticketId: string;
  readonly code: string;
  readonly sectionId: string;
  readonly seatId: string | null;
  /** Its share of the order's charge (allocatePaidCents over the order's units). */
  readonly paidCents: number;
}

/**
 * A PAID order gets exactly one ticket per unit of its lines (one per seat of a SEATS line,
 * `quantity` of a UNITS line), and becomes TICKETED. Needs one identity per unit. Each ticket
 * carries its paid price: the order's charge allocated over the units by their sections' list
 * prices (`listCentsOf`; absent: equal weights).
 */
export function planTicketIssue(
  order: Order, identities: readonly TicketIdentity[], now: number, listCentsOf?: (sectionId: string) => number | undefined,
): Result<TicketDraftPlan[]> {
  const ticketed = moveOrder(order, 'ISSUE_TICKETS', now);
  if (!ticketed.ok) return ticketed;
  const drafts: Omit<TicketDraftPlan, 'paidCents'>[] = [];
  const next = (): TicketIdentity | undefined => identities[drafts.length];
  for (const line of order.lines) {
    const seats: (string | null)[] = line.kind === 'SEATS' ? [...line.seatIds] : Array.from({ length: line.quantity }, () => null);
    for (const seatId of seats) {
      const identity = next();
      if (identity === undefined) return fail('INVARIANT_VIOLATED', 'one ticket identity per unit is required');
      drafts.push({ ...identity, sectionId: line.sectionId, seatId });
    }
  }
  if (drafts.length !== identities.length) return fail('INVARIANT_VIOLATED', 'one ticket identity per unit is required');
  const paid = allocatePaidCents(order.amountCents, drafts.map((d) => listCentsOf?.(d.sectionId) ?? 1));
  return ok(drafts.map((d, i) => ({ ...d, paidCents: paid[i] ?? 0 })));
}

export type CheckInOutcome = 'ADMITTED' | 'ALREADY_ADMITTED_SAME_SCAN';

/** One scan at the door: the scanner's nonce, the steward's account, and the gate and device when given. */
export interface DoorScan {
  readonly nonce: string | null;
  readonly staffUserId: string;
  readonly gate: string | null;
  readonly deviceId: string | null;
}

/**
 * Marks a ticket USED exactly once. The same scan retried shortly after (a lost answer) is the
 * same admission, not a second one: the same nonce from the same steward at the same gate on the
 * same device. The same nonce from anyone or anywhere else is a second use; later, the nonce no
 * longer admits anyone.
 */
export function checkIn(ticket: Ticket, scan: DoorScan, now: number): Result<{ ticket: Ticket; outcome: CheckInOutcome }> {
  if (ticket.status === 'USED' && isSameScan(ticket, scan, now)) return ok({ ticket, outcome: 'ALREADY_ADMITTED_SAME_SCAN' });
  if (ticket.status === 'USED') {
    // Details cross the API as they are, so the time is ISO 8601 like every other time there.
    const usedAt = ticket.usedAt === null ? null : new Date(ticket.usedAt).toISOString();
    return fail('TICKET_ALREADY_USED', 'this ticket has already been used', { usedAt });
  }
  if (ticket.status === 'INVALID') return fail('TICKET_NOT_VALID', 'this ticket is no longer valid');
  const next = ticketMachine.transition(ticket.status, 'CHECK_IN');
  if (!next.ok) return next;
  return ok({
    ticket: {
      ...ticket,
      status: next.value,
      usedAt: now,
      checkInNonce: scan.nonce,
      checkedInBy: scan.staffUserId,
      checkInGate: scan.gate,
      checkInDevice: scan.deviceId,
    },
    outcome: 'ADMITTED',
  });
}

function isSameScan(ticket: Ticket, scan: DoorScan, now: number): boolean {
  const retried = ticket.usedAt !== null && now - ticket.usedAt <= limits.checkInRetrySecondsMax * 1000;
  return retried && scan.nonce !== null && ticket.checkInNonce === scan.nonce && ticket.checkedInBy === scan.staffUserId
    && ticket.checkInGate === scan.gate && ticket.checkInDevice === scan.deviceId;
}
