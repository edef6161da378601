import type pg from 'pg';
import type { Order, OrderStatus } from '../../domain/index.js';
import type { KeysetPosition, OpenOrderOutcome, OrderStore } from '../../ports/engine/index.js';
import { orderCreated, orderMoved } from '../shared/outbox-drafts.js';
import { unexpected, type PgDb } from './db.js';
import { appendOutbox } from './outbox.js';
import { toOrder, type OrderRow } from './rows.js';
import { orderExtrasParams } from '../shared/discount-rows.js';
import { takeDiscountUse } from './discounts.js';
import { Rollback } from './transaction.js';

/** Keyset page of rows in `status` by (updated_at, id): the background passes' access path. */
export async function byStatusPage<R>(c: pg.ClientBase, table: 'orders' | 'payments', status: string, updatedBefore: number, after: KeysetPosition | null, limit: number): Promise<R[]> {
  const id = table === 'orders' ? 'order_id' : 'payment_id';
  const { rows } = after === null
    ? await c.query(`SELECT * FROM ${table} WHERE status = $1 AND updated_at <= $2 ORDER BY updated_at, ${id} COLLATE "C" LIMIT $3`, [status, updatedBefore, limit])
    : await c.query(
      `SELECT * FROM ${table} WHERE status = $1 AND updated_at <= $2 AND (updated_at, ${id} COLLATE "C") > ($3, $4 COLLATE "C")
       ORDER BY updated_at, ${id} COLLATE "C" LIMIT $5`, [status, updatedBefore, after.at, after.id, limit]);
  return rows as R[];
}

export function pgOrders(db: PgDb, origin: string): OrderStore {
  const orderWhere = async (sql: string, params: unknown[]): Promise<Order | null> => {
    const { rows } = await db.query<OrderRow>(sql, params);
    return rows[0] === undefined ? null : toOrder(rows[0]);
  };

  return {
    // One statement in autocommit, READ COMMITTED, with a share lock on the hold row: the CTE's
    // FOR SHARE re-checks "ACTIVE, unexpired, this buyer's" on the newest committed version. A
    // lapse that committed first leaves nothing to lock (no row inserted: stale); a lapse that
    // comes after waits for our commit and then, in its next statement's snapshot, sees and
    // cancels the new order with the hold. So an order never outlives its hold's seats. The unique
    // indexes decide the rest: one live order per hold, one order per (user, key); their refusals
    // become typed outcomes.
    async openOrder(order) {
      // With a discount: one short transaction that takes the code's use (discounts.ts) and then
      // opens the order by the same statement; a refusal of either rolls both back.
      const run = order.discount === undefined ? db.statement.bind(db) : db.tx.bind(db);
      const result = await run('openOrder', async (c): Promise<OpenOrderOutcome> => {
        const refused = await takeDiscountUse(c, order);
        if (refused !== null) throw new Rollback<OpenOrderOutcome>({ ok: false, code: refused });
        const inserted = await c.query({
          name: 'open-order',
          // The order and its outbox row in one statement: the row only where the order went in.
          text: `WITH h AS (SELECT 1 FROM holds WHERE hold_id = $4 AND status = 'ACTIVE' AND expires_at > $10::bigint AND user_id = $2 FOR SHARE),
           o AS (
             INSERT INTO orders (order_id, user_id, show_id, hold_id, idempotency_key, lines, amount_cents, status, payment_id, created_at, updated_at,
               contact_name, contact_phone, contact_email, discount_code, discount_cents)
             SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10::bigint, $11, $14, $15, $16, $17, $18 FROM h
             RETURNING order_id),
           ob AS (
             INSERT INTO outbox (type, show_id, created_at, origin, data, changes)
             SELECT 'order.created', $3, $10::bigint, $12::text, $13::jsonb, NULL FROM o)
           SELECT count(*)::int AS n FROM o`,
          values: [order.orderId, order.userId, order.showId, order.holdId, order.idempotencyKey, JSON.stringify(order.lines), order.amountCents, order.status, order.paymentId, order.createdAt, order.updatedAt,
            origin, JSON.stringify(orderCreated(order).data), ...Object.values(orderExtrasParams(order))],
        });
        if ((inserted.rows[0] as { n: number }).n === 1) return { ok: true, order };
        // A use taken for an order that could not be opened goes back with the rollback.
        if (order.discount !== undefined) throw new Rollback<OpenOrderOutcome>({ ok: false, stale: 'hold' });
        return { ok: false, stale: 'hold' };
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
      const result = await db.tx('abortOrder', async (c) => {
        const moved = await c.query<OrderRow>(
          "UPDATE orders SET status = 'CANCELLED', updated_at = $2 WHERE order_id = $1 AND status = 'INIT' RETURNING *", [input.orderId, input.now]);
        if (moved.rows[0] !== undefined) await appendOutbox(c, origin, input.now, [orderMoved(toOrder(moved.rows[0]), null)]);
        return moved;
      });
      if (!result.ok) return unexpected('abortOrder', result);
      const row = result.value.rows[0];
      return row === undefined ? { ok: false, stale: 'order' } : { ok: true, order: toOrder(row) };
    },

    // One statement in autocommit, READ COMMITTED. `o` locks the order while it is INIT; the key
    // update is conditional on it and on the key record still being this request's IN_FLIGHT one
    // (a takeover changed created_at), the order update on the key update, the payment insert on
    // the order update: everything or nothing. A concurrent takeover or lapse either committed
    // before (its row no longer matches: nothing written) or waits for our commit. `kc` reads the
    // key without a lock only to say which precondition failed, key first as the port orders them.
    async awaitPayment(input) {
      const p = input.payment;
      const result = await db.statement('awaitPayment', (c) => c.query<OrderRow & { key_ok: boolean; order_ok: boolean; moved: boolean }>({
        name: 'await-payment',
        text: `WITH o AS MATERIALIZED (SELECT order_id FROM orders WHERE order_id = $1 AND status = 'INIT' FOR UPDATE),
         kc AS (SELECT 1 FROM idempotency_keys WHERE scope = $4 AND key = $5 AND created_at = $6 AND state = 'IN_FLIGHT'),
         k AS (
           UPDATE idempotency_keys SET state = 'DONE', outcome = 'SUCCEEDED', response_body = $7
           WHERE scope = $4 AND key = $5 AND created_at = $6 AND state = 'IN_FLIGHT' AND EXISTS (SELECT 1 FROM o)
           RETURNING 1),
         u AS (
           UPDATE orders SET status = 'PENDING_PAY', payment_id = $2, updated_at = $3
           WHERE order_id = $1 AND EXISTS (SELECT 1 FROM o) AND EXISTS (SELECT 1 FROM k)
           RETURNING *),
         pay AS (
           INSERT INTO payments (payment_id, order_id, amount_cents, status, updated_at, received_cents, checkout_url)
           SELECT $2, $1, $8, $9, $3, $10, $11 WHERE EXISTS (SELECT 1 FROM u))
         SELECT EXISTS (SELECT 1 FROM kc) AS key_ok, EXISTS (SELECT 1 FROM o) AS order_ok, u.order_id IS NOT NULL AS moved, u.*
         FROM (SELECT 1) AS one LEFT JOIN u ON true`,
        values: [input.orderId, p.paymentId, input.now, input.key.scope, input.key.key, input.key.createdAt, input.responseBody, p.amountCents, p.status, p.receivedCents ?? null, p.checkoutUrl ?? null],
      }));
      if (!result.ok) return unexpected('awaitPayment', result);
      const row = result.value.rows[0] as OrderRow & { key_ok: boolean; order_ok: boolean; moved: boolean };
      if (row.moved) return { ok: true, order: toOrder(row) };
      // Nothing was written. The key's own UPDATE may have found it taken after a wait even when the read said otherwise.
      if (!row.key_ok || row.order_ok) return { ok: false, code: 'KEY_TAKEN' };
      return { ok: false, stale: 'order' };
    },

    getOrder: (orderId) => orderWhere('SELECT * FROM orders WHERE order_id = $1', [orderId]),
    getOrderByKey: (userId, key) => orderWhere('SELECT * FROM orders WHERE user_id = $1 AND idempotency_key = $2', [userId, key]),
    liveOrderOfHold: (holdId) => orderWhere("SELECT * FROM orders WHERE hold_id = $1 AND status NOT IN ('CANCELLED','REFUNDED')", [holdId]),
    async listOrdersByUser(userId, page) {
      const { rows } = await db.query<OrderRow>('SELECT * FROM orders WHERE user_id = $1 ORDER BY created_at DESC, order_id COLLATE "C" LIMIT $2 OFFSET $3', [userId, page.limit, page.offset]);
      return rows.map(toOrder);
    },
    async ordersByStatus(status: OrderStatus, updatedBefore, after, limit) {
      return (await db.read((c) => byStatusPage<OrderRow>(c, 'orders', status, updatedBefore, after, limit))).map(toOrder);
    },
  };
}

