import { randomBytes, randomInt } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { signWebhook } from '../../lib/webhook-signature.js';
import {
  PaymentProviderError,
  type PaymentProvider,
  type PaymentSimulator,
  type ProviderPaymentStatus,
} from '../../ports/payment-provider.js';

export interface SandboxOptions {
  /** Where the sandbox keeps its own ledger: it is "another company", it outlives our restarts. */
  readonly ledgerFile: string;
  /** Read at delivery time: the server's port may only be known once it listens. */
  readonly callbackUrl: () => string;
  readonly secret: string;
  /** Chance that a callback is delivered twice, as real providers do. */
  readonly duplicateRate: number;
  readonly deliveryDelayMsMax: number;
  readonly deliveryAttemptsMax: number;
  readonly retryBaseDelayMs: number;
  readonly onDeliveryError?: (paymentId: string, error: unknown) => void;
}

interface LedgerRow { payment_id: string; order_id: string; amount_cents: number; status: ProviderPaymentStatus; delivered: number; refunded: number }

/**
 * A payment provider that behaves like a real one: payments live in its own ledger, outcomes are
 * reported by signed HTTP callbacks, asynchronously, sometimes twice, retried with backoff until
 * acknowledged with a 2xx, and re-sent after a restart if never acknowledged.
 */
export interface SandboxProvider extends PaymentProvider, PaymentSimulator {
  start(): void;
  /**
   * Before the listener closes (SIGTERM): verdicts already decided but not yet acknowledged are
   * delivered now instead of at their random delay, and the deliveries in flight are awaited, at
   * most `boundMs`. What is still unacknowledged then is re-sent at the next start.
   */
  drain(boundMs: number): Promise<void>;
  stop(): void;
  /** Fault injection for drills and tests: while unavailable, every call fails as an outage would. */
  setAvailable(available: boolean): void;
  /** What the sandbox has given back for a payment, over all its refunds (tests and drills audit it). */
  refundedCents(paymentId: string): number;
  /** Fault injection: every call answers only after this long, as a provider in trouble does. */
  setCallDelayMs(delayMs: number): void;
  /**
   * Fault injection: while set, callbacks are lost on the way (those a verdict triggers now, and
   * retries that fall due), never retried, so only reconciliation can learn the verdict.
   */
  setCallbacksLost(lost: boolean): void;
}

export function createSandboxProvider(options: SandboxOptions): SandboxProvider {
  const db = new Database(options.ledgerFile);
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
  db.exec(`INSERT OR IGNORE INTO sandbox_refunds (idempotency_key, payment_id, amount_cents)
    SELECT 'refund:' || payment_id, payment_id, amount_cents FROM sandbox_payments WHERE refunded = 1`);
  const get = db.prepare('SELECT * FROM sandbox_payments WHERE payment_id = ?');
  const refundByKey = db.prepare('SELECT payment_id FROM sandbox_refunds WHERE idempotency_key = ?');
  const refundedCents = db.prepare('SELECT coalesce(sum(amount_cents), 0) AS cents FROM sandbox_refunds WHERE payment_id = ?');
  const addRefund = db.prepare('INSERT INTO sandbox_refunds (idempotency_key, payment_id, amount_cents) VALUES (?, ?, ?)');
  /** One refund: the key's earlier answer, or a new refund within what was paid. One transaction. */
  const refundOnce = db.transaction((paymentId: string, amountCents: number, key: string): boolean => {
    const earlier = refundByKey.get(key) as { payment_id: string } | undefined;
    if (earlier !== undefined) return earlier.payment_id === paymentId;
    const row = get.get(paymentId) as LedgerRow | undefined;
    if (row === undefined || row.status !== 'SUCCEEDED') return false;
    const given = (refundedCents.get(paymentId) as { cents: number }).cents;
    // More than was paid is refused, as a provider would: a refund under another key is a second refund.
    if (given + amountCents > row.amount_cents) return false;
    addRefund.run(key, paymentId, amountCents);
    db.prepare('UPDATE sandbox_payments SET refunded = 1 WHERE payment_id = ?').run(paymentId);
    return true;
  });
  const timers = new Set<NodeJS.Timeout>();
  /** Deliveries waiting for their delay, by timer, so drain() can send them at once. */
  const waiting = new Map<NodeJS.Timeout, () => void>();
  const inFlight = new Set<Promise<void>>();
  let stopped = false;
  let available = true;
  let callDelayMs = 0;
  let callbacksLost = false;
  const reachable = async (): Promise<void> => {
    if (callDelayMs > 0) await sleep(callDelayMs);
    if (!available) throw new PaymentProviderError('the sandbox provider is unavailable (injected outage)');
  };

  const later = (ms: number, fn: () => void): void => {
    if (stopped) return;
    const timer = setTimeout(() => {
      timers.delete(timer);
      waiting.delete(timer);
      fn();
    }, ms);
    timer.unref();
    timers.add(timer);
    waiting.set(timer, fn);
  };

  const deliver = (paymentId: string, attempt: number): void => {
    const row = get.get(paymentId) as LedgerRow | undefined;
    if (row === undefined || stopped || callbacksLost) return;
    const body = JSON.stringify({ paymentId, orderId: row.order_id, status: row.status, amountCents: row.amount_cents });
    const sent = fetch(options.callbackUrl(), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-ticketrush-signature': signWebhook(options.secret, body, Math.floor(Date.now() / 1000)) },
      body,
      signal: AbortSignal.timeout(10_000),
    })
      .then((response) => {
        if (!response.ok) throw new PaymentProviderError(`callback answered ${response.status}`);
        db.prepare('UPDATE sandbox_payments SET delivered = 1 WHERE payment_id = ?').run(paymentId);
      })
      .catch((error: unknown) => {
        options.onDeliveryError?.(paymentId, error);
        if (attempt < options.deliveryAttemptsMax) later(options.retryBaseDelayMs * 2 ** (attempt - 1), () => deliver(paymentId, attempt + 1));
      })
      .finally(() => inFlight.delete(sent));
    inFlight.add(sent);
  };

  const scheduleDelivery = (paymentId: string): void => {
    if (callbacksLost) return;
    later(randomInt(options.deliveryDelayMsMax + 1), () => deliver(paymentId, 1));
    if (Math.random() < options.duplicateRate) later(randomInt(options.deliveryDelayMsMax + 1), () => deliver(paymentId, 1));
  };

  return {
    name: 'sandbox',
    async createPayment({ orderId, amountCents, idempotencyKey }) {
      await reachable();
      // Idempotent by key, as real providers are: the same key answers the payment it opened first.
      const paymentId = `pay_${randomBytes(16).toString('base64url')}`;
      db.prepare(`INSERT INTO sandbox_payments (payment_id, order_id, amount_cents, status, idempotency_key) VALUES (?, ?, ?, 'PENDING', ?)
        ON CONFLICT (idempotency_key) DO NOTHING`).run(paymentId, orderId, amountCents, idempotencyKey);
      const opened = db.prepare('SELECT payment_id FROM sandbox_payments WHERE idempotency_key = ?').get(idempotencyKey) as { payment_id: string };
      return { paymentId: opened.payment_id };
    },
    async getPaymentStatus(paymentId) {
      await reachable();
      return (get.get(paymentId) as LedgerRow | undefined)?.status ?? 'UNKNOWN';
    },
    async refund({ paymentId, amountCents, idempotencyKey }) {
      await reachable();
      return { refunded: refundOnce(paymentId, amountCents, idempotencyKey) };
    },
    refundedCents(paymentId) {
      return (refundedCents.get(paymentId) as { cents: number }).cents;
    },
    async simulate(paymentId, outcome) {
      const changes = db.prepare(`UPDATE sandbox_payments SET status = ? WHERE payment_id = ? AND status = 'PENDING'`).run(outcome, paymentId).changes;
      const row = get.get(paymentId) as LedgerRow | undefined;
      if (row === undefined) return 'UNKNOWN';
      // Paying again re-sends the verdict the provider already has, exactly like a retried webhook.
      if (changes === 1 || row.status === outcome) scheduleDelivery(paymentId);
      return 'ACCEPTED';
    },
    async drain(boundMs) {
      const due = [...waiting];
      for (const [timer] of due) {
        clearTimeout(timer);
        timers.delete(timer);
        waiting.delete(timer);
      }
      for (const [, fn] of due) fn();
      const bound = sleep(boundMs, undefined, { ref: false });
      await Promise.race([Promise.allSettled([...inFlight]), bound]);
    },
    start() {
      const undelivered = db.prepare(`SELECT payment_id FROM sandbox_payments WHERE delivered = 0 AND status IN ('SUCCEEDED','FAILED')`).all() as { payment_id: string }[];
      for (const { payment_id } of undelivered) scheduleDelivery(payment_id);
    },
    setAvailable(value) {
      available = value;
    },
    setCallDelayMs(delayMs) {
      callDelayMs = delayMs;
    },
    setCallbacksLost(lost) {
      callbacksLost = lost;
    },
    stop() {
      stopped = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      db.close();
    },
  };
}
