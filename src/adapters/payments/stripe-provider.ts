import Stripe from 'stripe';
import { PaymentProviderError, type PaymentProvider, type PaymentWebhook, type ProviderPaymentStatus, type WebhookVerdict } from '../../ports/payment-provider.js';

export interface StripeOptions {
  readonly secretKey: string;
  readonly webhookSecret: string;
  /**
   * Where the SDK sends its calls; null: Stripe's own API. Set for stripe-mock or the tests' local
   * server (the SDK's host/port/protocol options).
   */
  readonly apiUrl: string | null;
  /** Where Stripe's hosted page sends the buyer back: the order's page (read per call: the port may only be known once listening). */
  readonly returnUrl: (orderId: string, outcome: 'success' | 'cancel') => string;
  /** Seconds a signed event may be old (the same tolerance as our own callbacks). */
  readonly toleranceSeconds: number;
}

/** Session events that decide a payment; any other event type is acknowledged and ignored. */
const verdictOf: Readonly<Record<string, 'SUCCEEDED' | 'FAILED' | 'PAID_IF_PAID'>> = {
  // Cards settle at once: the session completes paid. Delayed methods complete unpaid and report later.
  'checkout.session.completed': 'PAID_IF_PAID',
  'checkout.session.async_payment_succeeded': 'SUCCEEDED',
  'checkout.session.async_payment_failed': 'FAILED',
  // A declined buyer who gives up: the session expires unpaid.
  'checkout.session.expired': 'FAILED',
};

/**
 * Stripe Checkout behind the payment port: a hosted Checkout Session per order (its id is our
 * paymentId), verdicts by signed webhook events, refunds against the session's PaymentIntent.
 * Every call carries an idempotency key, so a retried call never opens or refunds twice.
 */
export function createStripeProvider(options: StripeOptions): PaymentProvider & PaymentWebhook {
  const stripe = new Stripe(options.secretKey, {
    ...(options.apiUrl === null ? {} : apiTarget(options.apiUrl)),
    // The time-limited wrapper bounds each call; the SDK's own retries would outlive it.
    maxNetworkRetries: 0,
    telemetry: false,
  });
  const failed = (call: string) => (error: unknown): never => {
    throw new PaymentProviderError(`stripe: ${call} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  };

  return {
    name: 'stripe',
    async createPayment(request) {
      const session = await stripe.checkout.sessions.create({
        mode: 'payment',
        client_reference_id: request.orderId,
        metadata: { orderId: request.orderId },
        line_items: [{
          quantity: 1,
          price_data: { currency: request.currency.toLowerCase(), unit_amount: request.amountCents, product_data: { name: `TicketRush order ${request.orderId}` } },
        }],
        success_url: options.returnUrl(request.orderId, 'success'),
        cancel_url: options.returnUrl(request.orderId, 'cancel'),
      }, { idempotencyKey: request.idempotencyKey }).catch(failed('checkout.sessions.create'));
      return session.url === null ? { paymentId: session.id } : { paymentId: session.id, redirectUrl: session.url };
    },
    async getPaymentStatus(paymentId): Promise<ProviderPaymentStatus> {
      const session = await stripe.checkout.sessions.retrieve(paymentId).catch(failed('checkout.sessions.retrieve'));
      if (session.payment_status === 'paid') return 'SUCCEEDED';
      if (session.status === 'expired') return 'FAILED';
      return 'PENDING';
    },
    async refund(request) {
      const session = await stripe.checkout.sessions.retrieve(request.paymentId).catch(failed('checkout.sessions.retrieve'));
      const intent = typeof session.payment_intent === 'string' ? session.payment_intent : session.payment_intent?.id;
      // No PaymentIntent: nothing was ever charged on this session, so there is nothing to give back yet.
      if (intent === undefined) return { refunded: false };
      const refund = await stripe.refunds.create({ payment_intent: intent, amount: request.amountCents }, { idempotencyKey: request.idempotencyKey })
        .catch(failed('refunds.create'));
      // 'pending' is money on its way back; only a refund Stripe itself gave up on is not one.
      return { refunded: refund.status !== 'failed' && refund.status !== 'canceled' };
    },
    verifyEvent(rawBody, signature, nowMs): WebhookVerdict {
      let event: Stripe.Event;
      try {
        event = stripe.webhooks.constructEvent(rawBody, signature ?? '', options.webhookSecret, options.toleranceSeconds, undefined, nowMs);
      } catch (error) {
        if (error instanceof Stripe.errors.StripeSignatureVerificationError && /tolerance/i.test(error.message)) return { kind: 'STALE' };
        return { kind: 'INVALID' };
      }
      // Stripe's library refuses only a timestamp too far in the past; one too far ahead is as
      // much outside the tolerance (a pre-signed event held back for later), and refused alike.
      const signedAt = signedAtSeconds(signature);
      if (signedAt === null || signedAt - Math.floor(nowMs / 1000) > options.toleranceSeconds) return { kind: 'STALE' };
      const verdict = verdictOf[event.type];
      if (verdict === undefined) return { kind: 'IGNORED', eventType: event.type };
      const session = event.data.object as Stripe.Checkout.Session;
      const orderId = session.client_reference_id ?? session.metadata?.orderId ?? null;
      if (orderId === null || session.amount_total === null) return { kind: 'IGNORED', eventType: event.type };
      const status = verdict === 'PAID_IF_PAID' ? (session.payment_status === 'paid' ? 'SUCCEEDED' : null) : verdict;
      // Completed but not yet paid (a delayed method): its async_payment_* event decides.
      if (status === null) return { kind: 'IGNORED', eventType: event.type };
      return { kind: 'REPORT', eventId: event.id, report: { paymentId: session.id, orderId, status, amountCents: session.amount_total } };
    },
  };
}

/** The `t=` of a Stripe-Signature header (seconds), or null without one (the signature check already passed, so there is one). */
function signedAtSeconds(header: string | undefined): number | null {
  const t = (header ?? '').split(',').map((part) => part.trim()).find((part) => part.startsWith('t='))?.slice(2);
  return t === undefined || !/^\d{1,12}$/.test(t) ? null : Number(t);
}

function apiTarget(url: string): { host: string; port: number; protocol: 'http' | 'https' } {
  const parsed = new URL(url);
  const protocol = parsed.protocol === 'http:' ? 'http' : 'https';
  return { host: parsed.hostname, port: Number(parsed.port || (protocol === 'http' ? 80 : 443)), protocol };
}
