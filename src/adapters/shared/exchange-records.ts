import type { ExchangeStatus } from '../../domain/index.js';
import type { Exchange, InventoryChanges, OutboxDraft } from '../../ports/engine/index.js';

/** An exchanges row as both stores return it (times as numbers or bigint strings). */
export interface ExchangeRow {
  exchange_id: string; user_id: string; old_order_id: string; old_show_id: string; old_ticket_ids: string; new_order_id: string;
  new_show_id: string; new_hold_id: string; new_ticket_ids: string; difference_cents: number | string; status: string; created_at: number | string;
}

export const toExchange = (r: ExchangeRow): Exchange => ({
  exchangeId: r.exchange_id, userId: r.user_id, oldOrderId: r.old_order_id, oldShowId: r.old_show_id, oldTicketIds: JSON.parse(r.old_ticket_ids) as string[],
  newOrderId: r.new_order_id, newShowId: r.new_show_id, newHoldId: r.new_hold_id, newTicketIds: JSON.parse(r.new_ticket_ids) as string[],
  differenceCents: Number(r.difference_cents), status: r.status as ExchangeStatus, createdAt: Number(r.created_at),
});

export const exchangeParams = (e: Exchange): unknown[] => [
  e.exchangeId, e.userId, e.oldOrderId, e.oldShowId, JSON.stringify(e.oldTicketIds), e.newOrderId, e.newShowId, e.newHoldId,
  JSON.stringify(e.newTicketIds), e.differenceCents, e.createdAt, e.status,
];

/**
 * The swap is done: the notifier tells the buyer (orderId is the old order, the payload the
 * notifications consume), and the old show's freed seats and units reach read models, the Redis
 * gate and the waitlist sink through `changes`.
 */
export function exchangeCompleted(e: Exchange, freed: InventoryChanges): OutboxDraft {
  return {
    type: 'exchange.completed', showId: e.oldShowId,
    changes: freed.seats.length === 0 && freed.stock.length === 0 ? null : freed,
    data: {
      exchangeId: e.exchangeId, orderId: e.oldOrderId, userId: e.userId, oldTicketIds: e.oldTicketIds, newTicketIds: e.newTicketIds,
      showId: e.oldShowId, newShowId: e.newShowId, newOrderId: e.newOrderId,
    },
  };
}
