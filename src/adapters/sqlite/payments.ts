import type { Database as Db } from 'better-sqlite3';
import type { Hold, Order } from '../../domain/index.js';
import type {
  CompleteRefundInput, CompleteRefundOutcome, InventoryChanges, KeysetPosition, PaymentStore, SettleOutcome, SettlementPlan,
} from '../../ports/engine/index.js';
import { orderRefunded, settlementDrafts, type Payer } from '../shared/outbox-drafts.js';
import { Rollback, type GroupCommit } from './group-commit.js';
import type { OutboxWriter } from './outbox.js';
import * as records from './records.js';
import type { Shared } from './shared.js';

/**
 * Settlements as compare-and-set plans: every row moves only from the status the domain read, so
 * two callbacks (or a callback and an expiry) can never both apply; the inventory effect follows
 * from the hold's transition in the plan.
 */
export function sqlitePayments(db: Db, gc: GroupCommit, shared: Shared, ob: OutboxWriter): PaymentStore {
  const q = {
    payment: db.prepare(`UPDATE payments SET status = ?, updated_at = ?, received_cents = coalesce(?, received_cents)
      WHERE payment_id = ? AND status = ? RETURNING *`),
    order: db.prepare('UPDATE orders SET status = ?, updated_at = ? WHERE order_id = ? AND status = ? RETURNING *'),
    hold: db.prepare('UPDATE holds SET status = ? WHERE hold_id = ? AND status = ? RETURNING *'),
    get: db.prepare('SELECT * FROM payments WHERE payment_id = ?'),
    // Who paid and in which currency, for the order.paid payload.
    payer: db.prepare('SELECT u.username, s.currency FROM orders o JOIN users u ON u.user_id = o.user_id JOIN shows s ON s.show_id = o.show_id WHERE o.order_id = ?'),
    byStatus: db.prepare(`SELECT * FROM payments WHERE status = ? AND updated_at <= ? AND (updated_at, payment_id) > (?, ?)
      ORDER BY updated_at, payment_id LIMIT ?`),
  };
  const stale = <E extends 'payment' | 'order' | 'hold'>(entity: E): Rollback<SettleOutcome> => new Rollback<SettleOutcome>({ ok: false, stale: entity });

  function settle(plan: SettlementPlan): SettleOutcome {
    const p = plan.payment;
    const paymentRow = q.payment.get(p.to, plan.now, p.receivedCents, p.paymentId, p.from) as records.PaymentRow | undefined;
    if (paymentRow === undefined) return { ok: false, stale: 'payment' };
    let order: Order | null = null;
    if (plan.order !== null) {
      const row = q.order.get(plan.order.to, plan.now, plan.order.orderId, plan.order.from) as records.OrderRow | undefined;
      if (row === undefined) throw stale('order');
      order = shared.order(row);
    }
    let hold: Hold | null = null;
    let changes: InventoryChanges | null = null;
    if (plan.hold !== null) {
      const { from, to } = plan.hold;
      const row = q.hold.get(to, plan.hold.holdId, from) as records.HoldRow | undefined;
      if (row === undefined) throw stale('hold');
      if (from === 'ACTIVE' && to === 'CONFIRMED') {
        const sold = shared.sell(row);
        if (sold === false) throw stale('hold');
        changes = sold;
      } else if ((from === 'EXPIRED' || from === 'RELEASED') && to === 'CONFIRMED') {
        const taken = shared.takeBackSold(row);
        if (taken === false) throw new Rollback<SettleOutcome>({ ok: false, code: 'INVENTORY_TAKEN' });
        changes = taken;
      } else if (from === 'ACTIVE' && (to === 'RELEASED' || to === 'EXPIRED')) {
        changes = shared.giveBack(row);
      }
      hold = shared.hold(row);
    }
    const payer = order?.status === 'PAID' ? ((q.payer.get(order.orderId) as Payer | undefined) ?? null) : null;
    ob.append(plan.now, settlementDrafts(hold, plan.hold !== null, order, payer, changes));
    return { ok: true, payment: records.toPayment(paymentRow), order, hold, changes };
  }

  return {
    settlePayment: (plan) => gc.write('settlePayment', () => settle(plan)),
    completeRefund: (input: CompleteRefundInput) =>
      gc.write('completeRefund', (): CompleteRefundOutcome => {
        const row = q.payment.get('REFUNDED', input.now, null, input.paymentId, 'REFUND_PENDING') as records.PaymentRow | undefined;
        if (row === undefined) return { ok: false, stale: 'payment' };
        if (input.order !== null) {
          const order = q.order.get(input.order.to, input.now, input.order.orderId, input.order.from) as records.OrderRow | undefined;
          if (order === undefined) throw new Rollback<CompleteRefundOutcome>({ ok: false, stale: 'order' });
          if (order.status === 'REFUNDED') ob.append(input.now, [orderRefunded(order.order_id, order.show_id, input.paymentId)]);
        }
        return { ok: true, payment: records.toPayment(row) };
      }),
    getPayment: async (paymentId) => {
      const row = q.get.get(paymentId) as records.PaymentRow | undefined;
      return row === undefined ? null : records.toPayment(row);
    },
    paymentsByStatus: async (status, updatedBefore, after: KeysetPosition | null, limit) =>
      (q.byStatus.all(status, updatedBefore, after?.at ?? -1, after?.id ?? '', limit) as records.PaymentRow[]).map(records.toPayment),
  };
}
