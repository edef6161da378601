import { randomBytes, randomInt } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { signWebhook } from '../../lib/webhook-signature.js';
import { PaymentProviderError, type PaymentProvider, type PaymentSimulator } from '../../ports/payment-provider.js';
import type { SandboxLedger } from './sandbox-ledger.js';

export interface SandboxOptions {
  /**
   * Where the sandbox keeps its own ledger: it is "another company", it outlives our restarts; in
   * the shared database when several processes serve one sale. The provider closes it on stop().
   */
  readonly ledger: SandboxLedger;
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

/** Undelivered verdicts re-sent by one start, at most (the rest by reconciliation or the next start). */
const resendAtStartMax = 10_000;

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
  refundedCents(paymentId: string): Promise<number>;
  /** Fault injection: every call answers only after this long, as a provider in trouble does. */
  setCallDelayMs(delayMs: number): void;
  /**
   * Fault injection: while set, callbacks are lost on the way (those a verdict triggers now, and
   * retries that fall due), never retried, so only reconciliation can learn the verdict.
   */
  setCallbacksLost(lost: boolean): void;
}

export function createSandboxProvider(options: SandboxOptions): SandboxProvider {
  const ledger = options.ledger;
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
    if (stopped || callbacksLost) return;
    const sent = ledger.get(paymentId)
      .then(async (row) => {
        if (row === null || stopped) return;
        const body = JSON.stringify({ paymentId, orderId: row.orderId, status: row.status, amountCents: row.amountCents });
        const response = await fetch(options.callbackUrl(), {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-ticketrush-signature': signWebhook(options.secret, body, Math.floor(Date.now() / 1000)) },
          body,
          signal: AbortSignal.timeout(10_000),
        });
        if (!response.ok) throw new PaymentProviderError(`callback answered ${response.status}`);
        if (!stopped) await ledger.markDelivered(paymentId);
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
      return { paymentId: await ledger.open({ paymentId: `pay_${randomBytes(16).toString('base64url')}`, orderId, amountCents, idempotencyKey }) };
    },
    async getPaymentStatus(paymentId) {
      await reachable();
      return (await ledger.get(paymentId))?.status ?? 'UNKNOWN';
    },
    async refund(request) {
      await reachable();
      // Idempotent by key, as real providers' refunds are: asking twice returns money once.
      return { refunded: await ledger.refund(request) };
    },
    refundedCents: (paymentId) => ledger.refundedCents(paymentId),
    async simulate(paymentId, outcome) {
      const changed = await ledger.decide(paymentId, outcome);
      const row = await ledger.get(paymentId);
      if (row === null) return 'UNKNOWN';
      // Paying again re-sends the verdict the provider already has, exactly like a retried webhook.
      if (changed || row.status === outcome) scheduleDelivery(paymentId);
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
      // With a shared ledger every process re-sends the verdicts nobody acknowledged: a duplicate
      // callback is harmless (real providers send them too), a lost one is not.
      ledger.undelivered(resendAtStartMax).then((ids) => {
        for (const paymentId of ids) scheduleDelivery(paymentId);
      }, (error: unknown) => options.onDeliveryError?.('(start)', error));
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
      void ledger.close();
    },
  };
}
