import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { AppError } from '../../app/errors.js';
import { applyPaymentReport } from '../../app/payments.js';
import { limits } from '../../domain/index.js';
import { verifyWebhook } from '../../lib/webhook-signature.js';
import type { HttpDeps } from '../deps.js';
import { guard, requireUser } from '../auth.js';
import { HttpError } from '../http-error.js';
import { OrderParams, PaymentCallbackBody, SandboxPayBody, errorResponses } from '../schemas.js';

const callbackBody = TypeCompiler.Compile(PaymentCallbackBody);

export const paymentRoutes = (deps: HttpDeps): FastifyPluginAsyncTypebox => async (app) => {
  const { ctx, tokens } = deps;

  // The signature covers the raw bytes, so this scope keeps the body as a string and parses it
  // only after the signature checks out.
  await app.register(async (raw) => {
  raw.removeContentTypeParser('application/json');
  raw.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => done(null, body));

  raw.post('/payments/callback', {
    schema: {
      tags: ['payments'],
      summary: 'Payment provider callback, signed: X-TicketRush-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">',
      description: 'Idempotent by (paymentId, orderId). Answers non-2xx when the callback cannot be applied, so the provider retries.',
      headers: Type.Object({ 'x-ticketrush-signature': Type.Optional(Type.String({ maxLength: 512 })) }),
      response: { 200: Type.Object({ received: Type.Boolean(), outcome: Type.String() }), ...errorResponses(400, 401, 404, 409, 422) },
    },
  }, async (request) => {
    const raw = typeof request.body === 'string' ? request.body : '';
    const verdict = verifyWebhook(deps.paymentSecret, singleHeader(request.headers['x-ticketrush-signature']), raw, Math.floor(ctx.clock.now() / 1000), limits.signatureToleranceSeconds);
    if (verdict === 'STALE') throw new HttpError('SIGNATURE_EXPIRED', `the signature timestamp is more than ${limits.signatureToleranceSeconds}s away`);
    if (verdict !== 'VALID') throw new HttpError('SIGNATURE_INVALID', 'missing or wrong X-TicketRush-Signature');
    const report = parseReport(raw);
    return { received: true, outcome: await applyPaymentReport(ctx, report) };
  });
  });

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
    const order = await ctx.store.read((r) => r.orders.get(request.params.orderId));
    if (order === null || order.userId !== me.userId) throw new AppError('ORDER_NOT_FOUND', 'no such order');
    if (order.paymentId === null) throw new AppError('ILLEGAL_TRANSITION', 'this order has no payment to pay');
    await deps.sandbox.simulate(order.paymentId, outcome);
    return reply.status(202).send({ paymentId: order.paymentId, outcome });
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
