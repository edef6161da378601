/** What a payment provider (the built-in sandbox, Stripe, ...) must offer the booking core. */
export interface PaymentProvider {
  readonly name: string;
  /**
   * Opens a payment for an order; the provider reports its outcome later by a signed callback.
   * The composition root bounds every call to limits.providerCallMsMax (time-limited-provider).
   * Idempotent by `idempotencyKey` (we send the order id): asked again with the same key, the
   * provider answers the payment it opened the first time, so a retried or taken-over order
   * creation never leaves two payments for one order.
   */
  createPayment(request: { orderId: string; amountCents: number; currency: string; idempotencyKey: string }): Promise<CreatedPayment>;
  /** Asked by reconciliation when a callback may have been lost. */
  getPaymentStatus(paymentId: string): Promise<ProviderPaymentStatus>;
  /**
   * Gives money back. Idempotent by `idempotencyKey` (we send `refund:{paymentId}`): asked again
   * with the same key (a retried or timed-out call, a second process's pass), the provider answers
   * the refund it made the first time and never refunds twice.
   */
  refund(request: { paymentId: string; amountCents: number; idempotencyKey: string }): Promise<{ refunded: boolean }>;
}

export interface CreatedPayment {
  readonly paymentId: string;
  /** A hosted payment page (Stripe Checkout) the buyer must be sent to; absent when the provider needs none (the sandbox). */
  readonly redirectUrl?: string;
}

export type ProviderPaymentStatus = 'PENDING' | 'SUCCEEDED' | 'FAILED' | 'UNKNOWN';

export class PaymentProviderError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PaymentProviderError';
  }
}

/** Only the sandbox has this: it lets a buyer (or a test) play the card holder. */
export interface PaymentSimulator {
  /** 'UNKNOWN': this provider has no such payment (another process's sandbox, or a reset ledger). */
  simulate(paymentId: string, outcome: 'SUCCEEDED' | 'FAILED'): Promise<'ACCEPTED' | 'UNKNOWN'>;
}

/** What a provider's signed event says, once its signature was checked against the raw body. */
export type WebhookVerdict =
  | { readonly kind: 'REPORT'; readonly eventId: string; readonly report: { paymentId: string; orderId: string; status: 'SUCCEEDED' | 'FAILED'; amountCents: number } }
  /** Signed and genuine, but not about a payment's outcome (or not yet decided): acknowledged, nothing applied. */
  | { readonly kind: 'IGNORED'; readonly eventType: string }
  | { readonly kind: 'INVALID' }
  /** Genuine signature, timestamp past the tolerance: a replay, refused. */
  | { readonly kind: 'STALE' };

/** A provider that reports by signed webhook events of its own format (Stripe). */
export interface PaymentWebhook {
  verifyEvent(rawBody: string, signature: string | undefined, nowMs: number): WebhookVerdict;
}
