import type { SandboxEntry, SandboxLedger } from '../payments/sandbox-ledger.js';
import { unexpected, type PgDb } from './db.js';

interface LedgerRow { payment_id: string; order_id: string; amount_cents: number; status: SandboxEntry['status']; delivered: boolean; refunded: boolean }

/**
 * The sandbox provider's ledger in the shared database (migration 8), so every process over it
 * knows every sandbox payment. Each method one statement; the provider's decisions are
 * conditional updates (PENDING → verdict, refunded once), right however many processes race.
 */
export function pgSandboxLedger(db: PgDb): SandboxLedger {
  const write = async <R extends object>(operation: string, sql: string, params: readonly unknown[]): Promise<{ rows: R[]; rowCount: number }> => {
    const result = await db.statement(operation, (c) => c.query<R & Record<string, unknown>>(sql, params as unknown[]));
    if (!result.ok) return unexpected(operation, result);
    return { rows: result.value.rows, rowCount: result.value.rowCount ?? 0 };
  };
  return {
    async open({ paymentId, orderId, amountCents, idempotencyKey }) {
      // The no-op DO UPDATE makes RETURNING answer the row that holds the key, new or old, in one statement.
      const { rows } = await write<{ payment_id: string }>('sandboxOpen',
        `INSERT INTO sandbox_payments (payment_id, order_id, amount_cents, status, idempotency_key) VALUES ($1, $2, $3, 'PENDING', $4)
         ON CONFLICT (idempotency_key) DO UPDATE SET idempotency_key = EXCLUDED.idempotency_key RETURNING payment_id`,
        [paymentId, orderId, amountCents, idempotencyKey]);
      return (rows[0] as { payment_id: string }).payment_id;
    },
    async get(paymentId) {
      const row = (await db.query<LedgerRow>('SELECT * FROM sandbox_payments WHERE payment_id = $1', [paymentId])).rows[0];
      return row === undefined ? null : {
        paymentId: row.payment_id, orderId: row.order_id, amountCents: Number(row.amount_cents), status: row.status, delivered: row.delivered, refunded: row.refunded,
      };
    },
    async decide(paymentId, outcome) {
      const { rowCount } = await write('sandboxDecide',
        `UPDATE sandbox_payments SET status = $2, decided_at = $3 WHERE payment_id = $1 AND status = 'PENDING'`, [paymentId, outcome, Date.now()]);
      return rowCount === 1;
    },
    async markDelivered(paymentId) {
      await write('sandboxDelivered', 'UPDATE sandbox_payments SET delivered = true WHERE payment_id = $1', [paymentId]);
    },
    // One transaction: the payment's row is locked first, so two refunds of one payment (same key
    // or not) decide one after the other; the key's earlier answer, or a new refund within what
    // was paid.
    async refund({ paymentId, amountCents, idempotencyKey }) {
      const result = await db.tx('sandboxRefund', async (c) => {
        const paid = (await c.query<{ status: string; amount_cents: string }>(
          'SELECT status, amount_cents FROM sandbox_payments WHERE payment_id = $1 FOR UPDATE', [paymentId])).rows[0];
        const earlier = (await c.query<{ payment_id: string }>('SELECT payment_id FROM sandbox_refunds WHERE idempotency_key = $1', [idempotencyKey])).rows[0];
        if (earlier !== undefined) return earlier.payment_id === paymentId;
        if (paid === undefined || paid.status !== 'SUCCEEDED') return false;
        const given = Number((await c.query<{ cents: string }>('SELECT coalesce(sum(amount_cents), 0) AS cents FROM sandbox_refunds WHERE payment_id = $1', [paymentId])).rows[0]?.cents ?? 0);
        if (given + amountCents > Number(paid.amount_cents)) return false;
        await c.query('INSERT INTO sandbox_refunds (idempotency_key, payment_id, amount_cents) VALUES ($1, $2, $3)', [idempotencyKey, paymentId, amountCents]);
        await c.query('UPDATE sandbox_payments SET refunded = true WHERE payment_id = $1', [paymentId]);
        return true;
      });
      if (!result.ok) return unexpected('sandboxRefund', result);
      return result.value;
    },
    async refundedCents(paymentId) {
      const { rows } = await db.query<{ cents: string }>('SELECT coalesce(sum(amount_cents), 0) AS cents FROM sandbox_refunds WHERE payment_id = $1', [paymentId]);
      return Number(rows[0]?.cents ?? 0);
    },
    async undelivered(limit) {
      const { rows } = await db.query<{ payment_id: string }>(
        `SELECT payment_id FROM sandbox_payments WHERE NOT delivered AND status <> 'PENDING' ORDER BY decided_at LIMIT $1`, [limit]);
      return rows.map((r) => r.payment_id);
    },
    // The store owns the pools.
    async close() {},
  };
}
