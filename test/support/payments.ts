import type { FastifyInstance } from 'fastify';
import { signWebhook } from '../../src/lib/webhook-signature.js';

/** Posts a payment callback signed exactly as a provider would (or deliberately not). */
export async function postCallback(
  app: FastifyInstance,
  secret: string,
  body: { paymentId: string; orderId: string; status: 'SUCCEEDED' | 'FAILED'; amountCents: number },
  options: { signatureTime?: number; signWith?: string } = {},
) {
  const raw = JSON.stringify(body);
  const t = options.signatureTime ?? Math.floor(Date.now() / 1000);
  const response = await app.inject({
    method: 'POST',
    url: '/api/v1/payments/callback',
    headers: { 'content-type': 'application/json', 'x-ticketrush-signature': signWebhook(options.signWith ?? secret, raw, t) },
    payload: raw,
  });
  return { status: response.statusCode, body: JSON.parse(response.body) as { outcome?: string; code?: string } };
}
