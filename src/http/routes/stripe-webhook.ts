import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { applyPaymentReport } from '../../app/payments.js';
import type { HttpDeps } from '../deps.js';
import { HttpError } from '../http-error.js';
import { countAnswers } from '../outcome-counting.js';
import { SettlementOutcomeSchema, errorResponses } from '../schemas.js';

/**
 * Stripe's webhook endpoint. Its signature (Stripe-Signature) covers the raw bytes, so this scope
 * alone keeps the body as received and hands it, unparsed, to the SDK's constructEvent; a verified
 * event is applied exactly as our own callbacks are (idempotent by payment and order, so Stripe's
 * retries and duplicate deliveries are DUPLICATEs).
 */
export const stripeWebhookRoutes = (deps: HttpDeps): FastifyPluginAsyncTypebox => async (app) => {
  const { ctx } = deps;
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => done(null, body));

  app.post('/payments/stripe/webhook', {
    onSend: countAnswers((outcome) => ctx.telemetry.paymentCallback(outcome), () => null),
    schema: {
      tags: ['payments'],
      summary: 'Stripe webhook (checkout.session.* events), verified by its Stripe-Signature header on the raw body',
      description: 'Applies checkout.session.completed (paid), async_payment_succeeded, async_payment_failed and expired; other events are acknowledged '
        + 'with outcome null. A forged signature is 401 SIGNATURE_INVALID, one dated outside the tolerance (past or future) 401 SIGNATURE_EXPIRED; nothing is applied for either. '
        + '404 STRIPE_DISABLED unless TICKETRUSH_PAYMENT_PROVIDER=stripe.',
      headers: Type.Object({ 'stripe-signature': Type.Optional(Type.String({ maxLength: 1024 })) }),
      response: {
        200: Type.Object({ received: Type.Boolean(), outcome: Type.Union([SettlementOutcomeSchema, Type.Null()]) }),
        ...errorResponses(401, 404, 409, 422),
      },
    },
  }, async (request) => {
    if (deps.stripe == null) throw new HttpError('STRIPE_DISABLED', 'Stripe is not the payment provider of this server');
    const signature = request.headers['stripe-signature'];
    const verdict = deps.stripe.verifyEvent(typeof request.body === 'string' ? request.body : '', typeof signature === 'string' ? signature : undefined, ctx.clock.now());
    switch (verdict.kind) {
      case 'INVALID':
        throw new HttpError('SIGNATURE_INVALID', 'missing or wrong Stripe-Signature');
      case 'STALE':
        throw new HttpError('SIGNATURE_EXPIRED', 'the Stripe-Signature timestamp is outside the tolerance');
      case 'IGNORED':
        return { received: true, outcome: null };
      case 'REPORT':
        return { received: true, outcome: await applyPaymentReport(ctx, verdict.report) };
    }
  });
};
