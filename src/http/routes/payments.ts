import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { AppError } from '../../app/errors.js';
import { payableOrderPayment } from '../../app/order-payment.js';
import { applyPaymentReport } from '../../app/payments.js';
import { limits } from '../../domain/index.js';
import { verifyWebhook } from '../../lib/webhook-signature.js';
import type { HttpDeps } from '../deps.js';
import { guard, requireUser } from '../auth.js';
import { HttpError } from '../http-error.js';
import { countAnswers } from '../outcome-counting.js';
import { OrderParams, PaymentCallbackBody, SandboxPayBody, SettlementOutcomeSchema, errorResponses } from '../schemas.js';

const callbackBody = TypeCompiler.Compile(PaymentCallbackBody);

export const paymentRoutes = (deps: HttpDeps): FastifyPluginAsyncTypebox => async (app) => {
  const { ctx, tokens } = deps;

  // The signature covers the raw bytes, so this scope keeps the body as a string and parses it
  // only after the signature checks out.
  await app.register(async (raw) => {
  raw.removeContentTypeParser('application/json');
  raw.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => done(null, body));

  raw.post('/payments/callback', {
    // Every refusal (a bad signature, a bad body, one the use case cannot apply now) is counted
    // here with its code; applied callbacks are counted by the use case with their outcome.
    onSend: countAnswers((outcome) => ctx.telemetry.paymentCallback(outcome), () => null),
    schema: {
      tags: ['payments'],
      summary: 'Payment provider callback, signed: X-TicketRush-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">',
      description: 'Idempotent by (paymentId, orderId). Answers non-2xx when the callback cannot be applied now, so the provider retries. '
        + 'A wrong amount is acknowledged (200, outcome AMOUNT_MISMATCH): no retry can fix it; its money is refunded and the order cancelled.',
      headers: Type.Object({ 'x-ticketrush-signature': Type.Optional(Type.String({ maxLength: 512 })) }),
      response: { 200: Type.Object({ received: Type.Boolean(), outcome: SettlementOutcomeSchema }), ...errorResponses(400, 401, 404, 409, 422) },
    },
  }, async (request) => {
    const report = verifiedReport(request.body, singleHeader(request.headers['x-ticketrush-signature']));
    return { received: true, outcome: await applyPaymentReport(ctx, report) };
  });
  });

  /** The report in `body` once its signature checks out. */
  function verifiedReport(body: unknown, signature: string | undefined): Static<typeof PaymentCallbackBody> {
    const raw = typeof body === 'string' ? body : '';
    const verdict = verifyWebhook(deps.paymentSecret, signature, raw, Math.floor(ctx.clock.now() / 1000), limits.signatureToleranceSeconds);
    if (verdict === 'STALE') throw new HttpError('SIGNATURE_EXPIRED', `the signature timestamp is more than ${limits.signatureToleranceSeconds}s away`);
    if (verdict !== 'VALID') throw new HttpError('SIGNATURE_INVALID', 'missing or wrong X-TicketRush-Signature');
    return parseReport(raw);
  }

  app.post('/orders/:orderId/sandbox-pay', {
    onRequest: guard(tokens),
    schema: {
      tags: ['payments'],
      summary: 'Sandbox only: play the card holder for my order; the sandbox then calls back like a real provider',
      security: [{ bearer: [] }],
      params: OrderParams,
      body: Type.Optional(SandboxPayBody),
      response: { 202: Type.Object({ paymentId: Type.String(), outcome: Type.String() }), ...errorResponses(401, 404, 409) },
    },
  }, async (request, reply) => {
    if (deps.sandbox === null) throw new HttpError('SANDBOX_DISABLED', 'the sandbox payment provider is not enabled');
    const me = requireUser(tokens, request);
    const outcome = request.body?.outcome ?? 'SUCCEEDED';
    const paymentId = await payableOrderPayment(ctx, me.userId, request.params.orderId);
    if ((await deps.sandbox.simulate(paymentId, outcome)) === 'UNKNOWN') {
      // The ledger was reset, or (SQLite only: each data directory keeps its own) another server's sandbox opened it.
      throw new AppError('PAYMENT_NOT_FOUND', 'the sandbox provider has no such payment (its ledger was reset, or another server with its own data directory took the order)');
    }
    return reply.status(202).send({ paymentId, outcome });
  });
};

function parseReport(raw: string): Static<typeof PaymentCallbackBody> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new HttpError('INVALID_JSON', 'the body is not valid JSON');
  }
  if (!callbackBody.Check(parsed)) {
    const first = callbackBody.Errors(parsed).First();
    throw new HttpError('VALIDATION_FAILED', `invalid callback body: ${first?.path ?? ''} ${first?.message ?? ''}`.trim());
  }
  return parsed;
}

function singleHeader(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
