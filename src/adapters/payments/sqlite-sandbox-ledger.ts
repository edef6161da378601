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
  // Refunds by idempotency key, as real providers keep them: a key refunds once, whoever asks again.
  db.exec(`CREATE TABLE IF NOT EXISTS sandbox_refunds (
    idempotency_key TEXT PRIMARY KEY, payment_id TEXT NOT NULL, amount_cents INTEGER NOT NULL)`);
  // Ledgers from before refund keys: their refunds under the key the booking core sends, so a retry is no second refund.
  // Only payments with no keyed refund at all: this runs at every open, and a payment refunded under
  // per-refund keys (order refunds, issue 25) must not get an invented second refund at a restart.
  db.exec(`INSERT OR IGNORE INTO sandbox_refunds (idempotency_key, payment_id, amount_cents)
    SELECT 'refund:' || p.payment_id, p.payment_id, p.amount_cents FROM sandbox_payments p
    WHERE p.refunded = 1 AND NOT EXISTS (SELECT 1 FROM sandbox_refunds r WHERE r.payment_id = p.payment_id)`);
  const q = {
    get: db.prepare('SELECT * FROM sandbox_payments WHERE payment_id = ?'),
    open: db.prepare(`INSERT INTO sandbox_payments (payment_id, order_id, amount_cents, status, idempotency_key) VALUES (?, ?, ?, 'PENDING', ?)
      ON CONFLICT (idempotency_key) DO NOTHING`),
    byKey: db.prepare('SELECT payment_id FROM sandbox_payments WHERE idempotency_key = ?'),
    decide: db.prepare(`UPDATE sandbox_payments SET status = ? WHERE payment_id = ? AND status = 'PENDING'`),
    delivered: db.prepare('UPDATE sandbox_payments SET delivered = 1 WHERE payment_id = ?'),
    refundByKey: db.prepare('SELECT payment_id FROM sandbox_refunds WHERE idempotency_key = ?'),
    refundedCents: db.prepare('SELECT coalesce(sum(amount_cents), 0) AS cents FROM sandbox_refunds WHERE payment_id = ?'),
    addRefund: db.prepare('INSERT INTO sandbox_refunds (idempotency_key, payment_id, amount_cents) VALUES (?, ?, ?)'),
    refunded: db.prepare('UPDATE sandbox_payments SET refunded = 1 WHERE payment_id = ?'),
    undelivered: db.prepare(`SELECT payment_id FROM sandbox_payments WHERE delivered = 0 AND status IN ('SUCCEEDED','FAILED') LIMIT ?`),
  };
  const get = (paymentId: string): SandboxEntry | null => {
    const row = q.get.get(paymentId) as LedgerRow | undefined;
    return row === undefined ? null : {
      paymentId: row.payment_id, orderId: row.order_id, amountCents: row.amount_cents, status: row.status, delivered: row.delivered === 1, refunded: row.refunded === 1,
    };
  };
  /** The key's earlier answer, or a new refund within what was paid: one transaction. */
  const refundOnce = db.transaction((paymentId: string, amountCents: number, key: string): boolean => {
    const earlier = q.refundByKey.get(key) as { payment_id: string } | undefined;
    if (earlier !== undefined) return earlier.payment_id === paymentId;
    const entry = get(paymentId);
    if (entry === null || entry.status !== 'SUCCEEDED') return false;
    // More than was paid is refused, as a provider would: a refund under another key is a second refund.
    if ((q.refundedCents.get(paymentId) as { cents: number }).cents + amountCents > entry.amountCents) return false;
    q.addRefund.run(key, paymentId, amountCents);
    q.refunded.run(paymentId);
    return true;
  });
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
    refund: async ({ paymentId, amountCents, idempotencyKey }) => refundOnce(paymentId, amountCents, idempotencyKey),
    refundedCents: async (paymentId) => (q.refundedCents.get(paymentId) as { cents: number }).cents,
    undelivered: async (limit) => (q.undelivered.all(limit) as { payment_id: string }[]).map((r) => r.payment_id),
    async close() {
      db.close();
    },
  };
}
