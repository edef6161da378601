import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';

/** A Checkout Session as the fake keeps it (the fields the provider reads). */
export interface FakeSession {
  id: string;
  object: 'checkout.session';
  url: string;
  status: 'open' | 'complete' | 'expired';
  payment_status: 'unpaid' | 'paid';
  amount_total: number;
  currency: string;
  client_reference_id: string | null;
  metadata: Record<string, string>;
  payment_intent: string | null;
}

/**
 * The few Stripe API endpoints the provider uses, on 127.0.0.1, so the real SDK is tested offline:
 * POST /v1/checkout/sessions (idempotent by Idempotency-Key, as Stripe is), GET
 * /v1/checkout/sessions/:id, POST /v1/refunds (idempotent too). Tests play the card holder with
 * pay()/expire() and sign events with the SDK's generateTestHeaderString.
 */
export class FakeStripe {
  readonly sessions = new Map<string, FakeSession>();
  readonly refunds: { id: string; payment_intent: string; amount: number; idempotencyKey: string | undefined }[] = [];
  readonly createKeys: (string | undefined)[] = [];
  private readonly byKey = new Map<string, string>();
  private readonly refundByKey = new Map<string, unknown>();
  private server: Server | null = null;
  private seq = 0;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((request, response) => {
      void this.answer(request).then(({ status, body }) => {
        response.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${++this.seq}` });
        response.end(JSON.stringify(body));
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server === null ? resolve() : this.server.close(() => resolve())));
  }

  /** The card holder pays: the session completes paid. */
  pay(sessionId: string): FakeSession {
    const session = this.must(sessionId);
    Object.assign(session, { status: 'complete', payment_status: 'paid', payment_intent: `pi_${sessionId}` });
    return session;
  }

  /** The buyer never paid (declined and gave up): the session expires. */
  expire(sessionId: string): FakeSession {
    const session = this.must(sessionId);
    session.status = 'expired';
    return session;
  }

  /** A signed event as Stripe would deliver it: the raw body and its Stripe-Signature header. */
  signedEvent(type: string, session: FakeSession, secret: string, options: { eventId?: string; timestamp?: number } = {}): { payload: string; signature: string } {
    const payload = JSON.stringify({ id: options.eventId ?? `evt_${++this.seq}`, object: 'event', type, api_version: '2025-01-01', created: Math.floor(Date.now() / 1000), data: { object: session } });
    const signature = new Stripe('sk_test_x').webhooks.generateTestHeaderString({ payload, secret, ...(options.timestamp === undefined ? {} : { timestamp: options.timestamp }) });
    return { payload, signature };
  }

  private must(id: string): FakeSession {
    const session = this.sessions.get(id);
    if (session === undefined) throw new Error(`no session ${id}`);
    return session;
  }

  private async answer(request: IncomingMessage): Promise<{ status: number; body: unknown }> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
    const key = request.headers['idempotency-key'] as string | undefined;
    const path = (request.url ?? '').split('?')[0] ?? '';
    if (request.method === 'POST' && path === '/v1/checkout/sessions') {
      this.createKeys.push(key);
      const earlier = key === undefined ? undefined : this.byKey.get(key);
      if (earlier !== undefined) return { status: 200, body: this.sessions.get(earlier) };
      const id = `cs_test_${++this.seq}`;
      const session: FakeSession = {
        id, object: 'checkout.session', url: `https://checkout.stripe.test/c/pay/${id}`, status: 'open', payment_status: 'unpaid',
        amount_total: Number(form.get('line_items[0][price_data][unit_amount]')) * Number(form.get('line_items[0][quantity]')),
        currency: form.get('line_items[0][price_data][currency]') ?? '', client_reference_id: form.get('client_reference_id'),
        metadata: { orderId: form.get('metadata[orderId]') ?? '' }, payment_intent: null,
      };
      this.sessions.set(id, session);
      if (key !== undefined) this.byKey.set(key, id);
      return { status: 200, body: session };
    }
    const retrieve = /^\/v1\/checkout\/sessions\/([^/]+)$/.exec(path);
    if (request.method === 'GET' && retrieve !== null) {
      const session = this.sessions.get(decodeURIComponent(retrieve[1] ?? ''));
      return session === undefined ? notFound() : { status: 200, body: session };
    }
    if (request.method === 'POST' && path === '/v1/refunds') {
      const earlier = key === undefined ? undefined : this.refundByKey.get(key);
      if (earlier !== undefined) return { status: 200, body: earlier };
      const refund = { id: `re_${++this.seq}`, object: 'refund', status: 'succeeded', payment_intent: form.get('payment_intent') ?? '', amount: Number(form.get('amount')) };
      this.refunds.push({ id: refund.id, payment_intent: refund.payment_intent, amount: refund.amount, idempotencyKey: key });
      if (key !== undefined) this.refundByKey.set(key, refund);
      return { status: 200, body: refund };
    }
    return notFound();
  }
}

const notFound = () => ({ status: 404, body: { error: { type: 'invalid_request_error', message: 'No such resource' } } });
