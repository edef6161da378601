import type pg from 'pg';
import type { Order, OrderStatus } from '../../domain/index.js';
import type { KeysetPosition, OrderStore } from '../../ports/engine/index.js';
import { unexpected, type PgDb } from './db.js';
import { toOrder, type OrderRow } from './rows.js';
import { refuse } from './stock.js';

/** Keyset page of rows in `status` by (updated_at, id): the background passes' access path. */
export async function byStatusPage<R>(c: pg.ClientBase | pg.Pool, table: 'orders' | 'payments', status: string, updatedBefore: number, after: KeysetPosition | null, limit: number): Promise<R[]> {
  const id = table === 'orders' ? 'order_id' : 'payment_id';
  const { rows } = after === null
    ? await c.query(`SELECT * FROM ${table} WHERE status = $1 AND updated_at <= $2 ORDER BY updated_at, ${id} COLLATE "C" LIMIT $3`, [status, updatedBefore, limit])
    : await c.query(
      `SELECT * FROM ${table} WHERE status = $1 AND updated_at <= $2 AND (updated_at, ${id} COLLATE "C") > ($3, $4 COLLATE "C")
       ORDER BY updated_at, ${id} COLLATE "C" LIMIT $5`, [status, updatedBefore, after.at, after.id, limit]);
  return rows as R[];
}

export function pgOrders(db: PgDb): OrderStore {
  const orderWhere = async (sql: string, params: unknown[]): Promise<Order | null> => {
    const { rows } = await db.pool.query<OrderRow>(sql, params);
    return rows[0] === undefined ? null : toOrder(rows[0]);
  };

  return {
    // READ COMMITTED with a share lock on the hold row: SELECT ... FOR SHARE re-checks
    // "ACTIVE, unexpired, this buyer's" on the newest committed version. A lapse that committed
    // first leaves nothing to lock (stale); a lapse that comes after waits for our commit and
    // then, in its next statement's snapshot, sees and cancels the new order with the hold. So an
    // order never outlives its hold's seats. The unique indexes decide the rest: one live order
    // per hold, one order per (user, key); their refusals become typed outcomes.
    async openOrder(order) {
      const result = await db.tx('openOrder', async (c) => {
        const hold = await c.query(
          "SELECT 1 FROM holds WHERE hold_id = $1 AND status = 'ACTIVE' AND expires_at > $2 AND user_id = $3 FOR SHARE",
          [order.holdId, order.createdAt, order.userId]);
        if (hold.rowCount === 0) return { ok: false, stale: 'hold' } as const;
        await c.query(
          `INSERT INTO orders (order_id, user_id, show_id, hold_id, idempotency_key, lines, amount_cents, status, payment_id, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
          [order.orderId, order.userId, order.showId, order.holdId, order.idempotencyKey, JSON.stringify(order.lines), order.amountCents, order.status, order.paymentId, order.createdAt, order.updatedAt]);
        return { ok: true, order } as const;
      });
      if (result.ok) return result.value;
      if (result.kind === 'unique' && result.constraint === 'orders_one_per_user_key') {
        const taken = await orderWhere('SELECT * FROM orders WHERE user_id = $1 AND idempotency_key = $2', [order.userId, order.idempotencyKey]);
        if (taken !== null) return { ok: false, code: 'KEY_TAKEN', orderId: taken.orderId };
      }
      if (result.kind === 'unique' && result.constraint === 'orders_one_live_per_hold') {
        const live = await orderWhere("SELECT * FROM orders WHERE hold_id = $1 AND status NOT IN ('CANCELLED','REFUNDED')", [order.holdId]);
        // The live order may have been cancelled since; then the hold lapsed too: stale.
        return live === null ? { ok: false, stale: 'hold' } : { ok: false, code: 'HOLD_ALREADY_ORDERED', orderId: live.orderId };
      }
      return unexpected('openOrder', result);
    },

    // One conditional UPDATE on status INIT.
    async abortOrder(input) {
      const result = await db.tx('abortOrder', (c) => c.query<OrderRow>(
        "UPDATE orders SET status = 'CANCELLED', updated_at = $2 WHERE order_id = $1 AND status = 'INIT' RETURNING *", [input.orderId, input.now]));
      if (!result.ok) return unexpected('abortOrder', result);
      const row = result.value.rows[0];
      return row === undefined ? { ok: false, stale: 'order' } : { ok: true, order: toOrder(row) };
    },

    // READ COMMITTED, conditional updates in the stated order: the key record must still be this
    // request's IN_FLIGHT one (a takeover changed created_at), then the order must still be INIT
    // (a lapse cancelled it otherwise). Each UPDATE locks its row, so a concurrent takeover or
    // lapse either committed before (0 rows: refused, all rolled back) or waits for our commit.
    async awaitPayment(input) {
      const result = await db.tx('awaitPayment', async (c) => {
        const key = await c.query(
          `UPDATE idempotency_keys SET state = 'DONE', outcome = 'SUCCEEDED', response_body = $4
           WHERE scope = $1 AND key = $2 AND created_at = $3 AND state = 'IN_FLIGHT'`,
          [input.key.scope, input.key.key, input.key.createdAt, input.responseBody]);
        if (key.rowCount !== 1) refuse({ ok: false, code: 'KEY_TAKEN' } as const);
        const { rows } = await c.query<OrderRow>(
          "UPDATE orders SET status = 'PENDING_PAY', payment_id = $2, updated_at = $3 WHERE order_id = $1 AND status = 'INIT' RETURNING *",
          [input.orderId, input.payment.paymentId, input.now]);
        if (rows[0] === undefined) refuse({ ok: false, stale: 'order' } as const);
        const p = input.payment;
        await c.query(
          'INSERT INTO payments (payment_id, order_id, amount_cents, status, updated_at, received_cents) VALUES ($1, $2, $3, $4, $5, $6)',
          [p.paymentId, p.orderId, p.amountCents, p.status, input.now, p.receivedCents ?? null]);
        return { ok: true, order: toOrder(rows[0] as OrderRow) } as const;
      });
      return result.ok ? result.value : unexpected('awaitPayment', result);
    },

    getOrder: (orderId) => orderWhere('SELECT * FROM orders WHERE order_id = $1', [orderId]),
    getOrderByKey: (userId, key) => orderWhere('SELECT * FROM orders WHERE user_id = $1 AND idempotency_key = $2', [userId, key]),
    liveOrderOfHold: (holdId) => orderWhere("SELECT * FROM orders WHERE hold_id = $1 AND status NOT IN ('CANCELLED','REFUNDED')", [holdId]),
    async listOrdersByUser(userId, page) {
      const { rows } = await db.pool.query<OrderRow>('SELECT * FROM orders WHERE user_id = $1 ORDER BY created_at DESC, order_id COLLATE "C" LIMIT $2 OFFSET $3', [userId, page.limit, page.offset]);
      return rows.map(toOrder);
    },
    async ordersByStatus(status: OrderStatus, updatedBefore, after, limit) {
      return (await byStatusPage<OrderRow>(db.pool, 'orders', status, updatedBefore, after, limit)).map(toOrder);
    },
  };
}

