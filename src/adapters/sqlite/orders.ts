import type { Database as Db } from 'better-sqlite3';
import type { Order } from '../../domain/index.js';
import type {
  AbortOrderInput, AbortOrderOutcome, AwaitPaymentInput, AwaitPaymentOutcome, KeysetPosition, OpenOrderOutcome, OrderStore, Page,
} from '../../ports/engine/index.js';
import { orderCreated, orderMoved } from '../shared/outbox-drafts.js';
import { orderExtrasParams } from '../shared/discount-rows.js';
import { discountUseTaker } from './discounts.js';
import { Rollback, type GroupCommit } from './group-commit.js';
import type { OutboxWriter } from './outbox.js';
import type * as records from './records.js';
import { isUniqueViolation, type Shared } from './shared.js';

/** Orders as compare-and-set plans; an order's lines are its hold's lines (hold_lines). */
export function sqliteOrders(db: Db, gc: GroupCommit, shared: Shared, ob: OutboxWriter): OrderStore {
  const q = {
    // Conditional insert: only on an ACTIVE, unexpired hold of the same buyer. The unique indexes
    // "one live order per hold" and (user_id, idempotency_key) refuse the rest.
    open: db.prepare(`INSERT INTO orders (order_id, user_id, show_id, hold_id, idempotency_key, amount_cents, status, payment_id, created_at, updated_at,
        contact_name, contact_phone, contact_email, discount_code, discount_cents)
      SELECT @orderId, @userId, @showId, @holdId, @idempotencyKey, @amountCents, @status, @paymentId, @createdAt, @updatedAt,
        @contactName, @contactPhone, @contactEmail, @discountCode, @discountCents
      WHERE EXISTS (SELECT 1 FROM holds WHERE hold_id = @holdId AND status = 'ACTIVE' AND expires_at > @createdAt AND user_id = @userId)`),
    get: db.prepare('SELECT * FROM orders WHERE order_id = ?'),
    byKey: db.prepare('SELECT * FROM orders WHERE user_id = ? AND idempotency_key = ?'),
    liveOfHold: db.prepare(`SELECT * FROM orders WHERE hold_id = ? AND status NOT IN ('CANCELLED','REFUNDED')`),
    byUser: db.prepare('SELECT * FROM orders WHERE user_id = ? ORDER BY created_at DESC, order_id DESC LIMIT ? OFFSET ?'),
    byStatus: db.prepare(`SELECT * FROM orders WHERE status = ? AND updated_at <= ? AND (updated_at, order_id) > (?, ?)
      ORDER BY updated_at, order_id LIMIT ?`),
    abort: db.prepare(`UPDATE orders SET status = 'CANCELLED', updated_at = ? WHERE order_id = ? AND status = 'INIT' RETURNING *`),
    keyInFlight: db.prepare(`SELECT 1 FROM idempotency_keys WHERE scope = ? AND key = ? AND created_at = ? AND state = 'IN_FLIGHT'`),
    awaitPay: db.prepare(`UPDATE orders SET status = 'PENDING_PAY', payment_id = ?, updated_at = ? WHERE order_id = ? AND status = 'INIT' RETURNING *`),
    paymentInsert: db.prepare(`INSERT INTO payments (payment_id, order_id, amount_cents, status, updated_at, received_cents, checkout_url)
      VALUES (?, ?, ?, ?, ?, ?, ?)`),
    completeKey: db.prepare(`UPDATE idempotency_keys SET state = 'DONE', outcome = 'SUCCEEDED', response_body = ?
      WHERE scope = ? AND key = ? AND created_at = ? AND state = 'IN_FLIGHT'`),
  };
  const order = (row: records.OrderRow | undefined): Order | null => (row === undefined ? null : shared.order(row));
  const takeDiscountUse = discountUseTaker(db);

  return {
    openOrder: (input: Order) =>
      gc.write('openOrder', (): OpenOrderOutcome => {
        try {
          if (q.open.run({ ...input, ...orderExtrasParams(input) }).changes !== 1) return { ok: false, stale: 'hold' };
          // The discount's use in the same transaction: a refusal rolls the order back with it.
          const refused = takeDiscountUse(input);
          if (refused !== null) throw new Rollback<OpenOrderOutcome>({ ok: false, code: refused });
          ob.append(input.createdAt, [orderCreated(input)]);
          return { ok: true, order: input };
        } catch (error) {
          if (!isUniqueViolation(error)) throw error;
          const byKey = q.byKey.get(input.userId, input.idempotencyKey) as records.OrderRow | undefined;
          if (byKey !== undefined) return { ok: false, code: 'KEY_TAKEN', orderId: byKey.order_id };
          const live = q.liveOfHold.get(input.holdId) as records.OrderRow | undefined;
          if (live !== undefined) return { ok: false, code: 'HOLD_ALREADY_ORDERED', orderId: live.order_id };
          throw error;
        }
      }),
    abortOrder: (input: AbortOrderInput) =>
      gc.write('abortOrder', (): AbortOrderOutcome => {
        const row = q.abort.get(input.now, input.orderId) as records.OrderRow | undefined;
        if (row === undefined) return { ok: false, stale: 'order' };
        const order = shared.order(row);
        ob.append(input.now, [orderMoved(order, null)]);
        return { ok: true, order };
      }),
    awaitPayment: (input: AwaitPaymentInput) =>
      gc.write('awaitPayment', (): AwaitPaymentOutcome => {
        const { key, payment } = input;
        if (q.keyInFlight.get(key.scope, key.key, key.createdAt) === undefined) return { ok: false, code: 'KEY_TAKEN' };
        const row = q.awaitPay.get(payment.paymentId, input.now, input.orderId) as records.OrderRow | undefined;
        if (row === undefined) return { ok: false, stale: 'order' };
        q.paymentInsert.run(payment.paymentId, input.orderId, payment.amountCents, payment.status, payment.updatedAt, payment.receivedCents ?? null, payment.checkoutUrl ?? null);
        if (q.completeKey.run(input.responseBody, key.scope, key.key, key.createdAt).changes !== 1) throw new Rollback<AwaitPaymentOutcome>({ ok: false, code: 'KEY_TAKEN' });
        return { ok: true, order: shared.order(row) };
      }),
    getOrder: async (orderId) => order(q.get.get(orderId) as records.OrderRow | undefined),
    getOrderByKey: async (userId, key) => order(q.byKey.get(userId, key) as records.OrderRow | undefined),
    liveOrderOfHold: async (holdId) => order(q.liveOfHold.get(holdId) as records.OrderRow | undefined),
    listOrdersByUser: async (userId, page: Page) => (q.byUser.all(userId, page.limit, page.offset) as records.OrderRow[]).map(shared.order),
    ordersByStatus: async (status, updatedBefore, after: KeysetPosition | null, limit) =>
      (q.byStatus.all(status, updatedBefore, after?.at ?? -1, after?.id ?? '', limit) as records.OrderRow[]).map(shared.order),
  };
}
