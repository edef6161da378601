import { isLiveOrder, moveOrder } from '../domain/index.js';
import type { StoreTx } from '../ports/store.js';

/** When a hold ends, so does the order waiting on it: an unpaid order cannot outlive its seats. */
export async function cancelLiveOrder(tx: StoreTx, holdId: string, now: number): Promise<void> {
  const order = await tx.orders.findLiveByHold(holdId);
  if (order === null || !isLiveOrder(order)) return;
  const event = order.status === 'INIT' ? 'ABORT' : 'CANCEL';
  const next = moveOrder(order, event, now);
  if (!next.ok) return; // PAID/TICKETED orders keep their (confirmed) hold; nothing to cancel.
  await tx.orders.save(next.value, order.status);
}
