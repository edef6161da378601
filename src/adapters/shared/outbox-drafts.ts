import type { Hold, Order, OrderStatus, ReservationLine, Show, Ticket, WaitingRoom } from '../../domain/index.js';
import type { InventoryChanges, LeftAdmission, OutboxDraft, OutboxEventType } from '../../ports/engine/index.js';

/**
 * The outbox rows each operation writes, built the same way by every adapter (so the contract
 * suite can compare them): the public payload a webhook receiver gets as `data`, and the
 * inventory changes for read models. Payloads stay small (ids and counts): the insert is one more
 * row in the hottest transaction there is, a claim.
 */

const seatIdsOf = (lines: readonly ReservationLine[]): string[] => lines.flatMap((l) => (l.kind === 'SEATS' ? [...l.seatIds] : []));
const quantityOf = (lines: readonly ReservationLine[]): number => lines.reduce((n, l) => n + (l.kind === 'SEATS' ? l.seatIds.length : l.quantity), 0);

/** Changes worth carrying: null when the operation moved nothing. */
const someChanges = (changes: InventoryChanges | null): InventoryChanges | null =>
  changes === null || (changes.seats.length === 0 && changes.stock.length === 0) ? null : changes;

/**
 * A hold's payload without its price: PostgreSQL's one-statement claims add `totalPriceCents`
 * in SQL (the statement prices the seats it took).
 */
export const holdCreatedData = (hold: Pick<Hold, 'holdId' | 'showId' | 'userId' | 'expiresAt'>, seatIds: readonly string[], quantity: number): Record<string, unknown> => ({
  holdId: hold.holdId, showId: hold.showId, userId: hold.userId, seatIds, quantity, expiresAt: hold.expiresAt,
});

const holdData = (hold: Hold): Record<string, unknown> => ({
  ...holdCreatedData(hold, seatIdsOf(hold.lines), quantityOf(hold.lines)), totalPriceCents: hold.totalPriceCents,
});

export function holdCreated(hold: Hold, changes: InventoryChanges | null): OutboxDraft {
  return { type: 'hold.created', showId: hold.showId, data: holdData(hold), changes: someChanges(changes) };
}

/** A hold that ended without a sale: EXPIRED (its time ran out) or RELEASED (given back, or its payment failed). */
export function holdEnded(hold: Hold, changes: InventoryChanges | null): OutboxDraft {
  const type: OutboxEventType = hold.status === 'EXPIRED' ? 'hold.expired' : 'hold.released';
  return { type, showId: hold.showId, data: holdData(hold), changes: someChanges(changes) };
}

const orderData = (order: Order): Record<string, unknown> => ({
  orderId: order.orderId, showId: order.showId, holdId: order.holdId, userId: order.userId, amountCents: order.amountCents,
  quantity: quantityOf(order.lines), seatIds: seatIdsOf(order.lines), status: order.status,
});

export function orderCreated(order: Order): OutboxDraft {
  return { type: 'order.created', showId: order.showId, data: orderData(order), changes: null };
}

/** Who paid and in which currency: read in the operation's transaction (null: the configured currency). */
export interface Payer {
  readonly username: string | null;
  readonly currency: string | null;
}

const orderEvents: Partial<Record<OrderStatus, OutboxEventType>> = { PAID: 'order.paid', CANCELLED: 'order.cancelled', REFUNDED: 'order.refunded' };

/** An order moved to `order.status`: PAID, CANCELLED or REFUNDED have an event; anything else none. */
export function orderMoved(order: Order, payer: Payer | null, changes: InventoryChanges | null = null): OutboxDraft | null {
  const type = orderEvents[order.status];
  if (type === undefined) return null;
  const data = type === 'order.paid'
    ? { ...orderData(order), paymentId: order.paymentId, currency: payer?.currency ?? null, username: payer?.username ?? null }
    : orderData(order);
  return { type, showId: order.showId, data, changes: someChanges(changes) };
}

/** An order moved by id only (a refund completed): the payload names it. */
export function orderRefunded(orderId: string, showId: string, paymentId: string): OutboxDraft {
  return { type: 'order.refunded', showId, data: { orderId, showId, paymentId, status: 'REFUNDED' }, changes: null };
}

export function ticketsIssued(order: Order, tickets: readonly Ticket[], changes: InventoryChanges | null): OutboxDraft {
  return {
    type: 'tickets.issued', showId: order.showId, changes: someChanges(changes),
    data: { orderId: order.orderId, showId: order.showId, userId: order.userId, ticketIds: tickets.map((t) => t.ticketId), seatIds: tickets.flatMap((t) => (t.seatId === null ? [] : [t.seatId])) },
  };
}

/** A ticket's door status changed (admitted, or its admission undone). */
export function ticketCheckedIn(ticket: Ticket): OutboxDraft {
  return {
    type: 'ticket.checked_in', showId: ticket.showId, changes: null,
    data: { ticketId: ticket.ticketId, orderId: ticket.orderId, showId: ticket.showId, status: ticket.status, usedAt: ticket.usedAt, gate: ticket.checkInGate },
  };
}

/** A show was created (published) or edited: other processes drop their "no such show" memo and take the new details. */
export function showChanged(show: Show): OutboxDraft {
  return { type: 'show.changed', showId: show.showId, data: { showId: show.showId, version: show.version }, changes: null };
}

/** An activity's waiting room changed: every process's room cache takes the new settings (newest version wins). */
export function waitingRoomChanged(room: WaitingRoom): OutboxDraft {
  return {
    type: 'waiting-room.changed', showId: null, changes: null,
    data: { activityId: room.activityId, enabled: room.enabled, admitPerMinute: room.admitPerMinute, admissionSeconds: room.admissionSeconds, version: room.version, updatedAt: room.updatedAt },
  };
}

/** A code pool's details changed: every process drops the pool from its cache (its grab's window). */
export function codePoolChanged(poolId: string, version: number): OutboxDraft {
  return { type: 'code-pool.changed', showId: null, changes: null, data: { poolId, version } };
}

/** A buyer left the line while admitted: every process ends that admission's token (the buyer gate's admission check). */
export function queueLeft(left: LeftAdmission): OutboxDraft {
  return {
    type: 'queue.left', showId: null, changes: null,
    data: { activityId: left.activityId, userId: left.userId, admittedUntil: left.admittedUntil },
  };
}

/**
 * A settlement's rows: the hold's end (a failed payment releases it), then the order's move.
 * The inventory changes ride on the first row only, so a read model applies them once.
 */
export function settlementDrafts(hold: Hold | null, holdMoved: boolean, order: Order | null, payer: Payer | null, changes: InventoryChanges | null): OutboxDraft[] {
  const drafts: OutboxDraft[] = [];
  if (hold !== null && holdMoved && (hold.status === 'RELEASED' || hold.status === 'EXPIRED')) drafts.push(holdEnded(hold, changes));
  const moved = order === null ? null : orderMoved(order, payer, drafts.length === 0 ? changes : null);
  if (moved !== null) drafts.push(moved);
  return drafts;
}

/** A waitlist entry was offered a hold: the notifications consumer tells the buyer. */
export function waitlistOffered(entry: { entryId: string; userId: string; showId: string }, holdId: string, claimUntil: number): OutboxDraft {
  return { type: 'waitlist.offered', showId: entry.showId, changes: null, data: { entryId: entry.entryId, userId: entry.userId, showId: entry.showId, holdId, claimUntil } };
}
