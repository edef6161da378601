import Database from 'better-sqlite3';
import type { SandboxEntry, SandboxLedger } from './sandbox-ledger.js';

interface LedgerRow { payment_id: string; order_id: string; amount_cents: number; status: SandboxEntry['status']; delivered: number; refunded: number }

/** The embedded server's sandbox ledger: a SQLite file of its data directory (it outlives restarts). */
export function openSqliteSandboxLedger(file: string): SandboxLedger {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.exec(`CREATE TABLE IF NOT EXISTS sandbox_payments (
    payment_id TEXT PRIMARY KEY, order_id TEXT NOT NULL, amount_cents INTEGER NOT NULL,
    status TEXT NOT NULL, delivered INTEGER NOT NULL DEFAULT 0, refunded INTEGER NOT NULL DEFAULT 0)`);
  // Ledgers from before idempotency keys get the column; old rows have none (NULLs never collide).
  const columns = db.prepare('PRAGMA table_info(sandbox_payments)').all() as { name: string }[];
  if (!columns.some((c) => c.name === 'idempotency_key')) db.exec('ALTER TABLE sandbox_payments ADD COLUMN idempotency_key TEXT');
  db.exec('CREATE UNIQUE INDEX IF NOT EXISTS sandbox_payments_idempotency ON sandbox_payments (idempotency_key)');
  const q = {
    get: db.prepare('SELECT * FROM sandbox_payments WHERE payment_id = ?'),
    open: db.prepare(`INSERT INTO sandbox_payments (payment_id, order_id, amount_cents, status, idempotency_key) VALUES (?, ?, ?, 'PENDING', ?)
      ON CONFLICT (idempotency_key) DO NOTHING`),
    byKey: db.prepare('SELECT payment_id FROM sandbox_payments WHERE idempotency_key = ?'),
    decide: db.prepare(`UPDATE sandbox_payments SET status = ? WHERE payment_id = ? AND status = 'PENDING'`),
    delivered: db.prepare('UPDATE sandbox_payments SET delivered = 1 WHERE payment_id = ?'),
    refund: db.prepare(`UPDATE sandbox_payments SET refunded = 1 WHERE payment_id = ? AND status = 'SUCCEEDED' AND refunded = 0`),
    undelivered: db.prepare(`SELECT payment_id FROM sandbox_payments WHERE delivered = 0 AND status IN ('SUCCEEDED','FAILED') LIMIT ?`),
  };
  const get = (paymentId: string): SandboxEntry | null => {
    const row = q.get.get(paymentId) as LedgerRow | undefined;
    return row === undefined ? null : {
      paymentId: row.payment_id, orderId: row.order_id, amountCents: row.amount_cents, status: row.status, delivered: row.delivered === 1, refunded: row.refunded === 1,
    };
  };
  return {
    async open({ paymentId, orderId, amountCents, idempotencyKey }) {
      q.open.run(paymentId, orderId, amountCents, idempotencyKey);
      return (q.byKey.get(idempotencyKey) as { payment_id: string }).payment_id;
    },
    get: async (paymentId) => get(paymentId),
    decide: async (paymentId, outcome) => q.decide.run(outcome, paymentId).changes === 1,
    async markDelivered(paymentId) {
      q.delivered.run(paymentId);
    },
    async refund(paymentId) {
      q.refund.run(paymentId);
      return get(paymentId)?.refunded === true;
    },
    undelivered: async (limit) => (q.undelivered.all(limit) as { payment_id: string }[]).map((r) => r.payment_id),
    async close() {
      db.close();
    },
  };
}
