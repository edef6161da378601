import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OutboxEvent, OutboxEventType } from '../../src/ports/engine/index.js';
import { adminClient, ApiClient, createShow } from '../support/api-client.js';
import { startTestNode, type TestNode } from '../support/backend.js';
import { startSmtpReceiver, type SmtpReceiver } from '../support/smtp-receiver.js';
import { eventually, sleep } from '../support/wait.js';

/**
 * Buyer notifications end to end against a real SMTP server the test starts: the order confirmed
 * with its tickets (from tickets.issued) is listed to the buyer and mailed once, in the buyer's
 * language; with the SMTP server down the email waits and goes once it is back; the other kinds
 * (constructed events through the node's sink) are listed and mailed in each buyer's language,
 * a cancelled show to every buyer who paid; a redelivered event makes nothing twice.
 */
let t: TestNode & { baseUrl: string };
let smtp: SmtpReceiver;
let admin: ApiClient;
let seq = 0;

beforeAll(async () => {
  smtp = await startSmtpReceiver();
  t = await startTestNode({
    env: {
      TICKETRUSH_SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
      TICKETRUSH_SMTP_TIMEOUT_MS: '2000',
      TICKETRUSH_EMAIL_RETRY_BASE_MS: '200',
      TICKETRUSH_EMAIL_SWEEP_MS: '100',
      TICKETRUSH_RATE_LIMITS: 'off',
    },
  });
  admin = await adminClient(t.node.app);
}, 60_000);
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

async function fan(language: 'en' | 'zh-CN' | null): Promise<{ api: ApiClient; email: string; userId: string }> {
  const name = `fan${++seq}`;
  const api = await new ApiClient(t.node.app).signUp(name);
  const email = `${name}@example.com`;
  const set = await api.request('PUT', '/api/v1/me/preferences', { email, ...(language === null ? {} : { language }) });
  expect(set.status).toBe(200);
  const me = await api.request('GET', '/api/v1/me');
  return { api, email, userId: me.body.userId as string };
}

/** Holds, orders and pays through the sandbox; resolves once the order is TICKETED. */
async function buy(api: ApiClient, showId: string, seatIds: string[]): Promise<{ orderId: string; tickets: { ticketId: string }[] }> {
  const hold = await api.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds });
  const order = await api.request('POST', '/api/v1/orders', { holdId: hold.body.holdId }, { 'x-idempotency-key': `k-${++seq}` });
  expect((await api.request('POST', `/api/v1/orders/${order.body.orderId}/sandbox-pay`, { outcome: 'SUCCEEDED' })).status).toBe(202);
  return eventually(async () => {
    const o = (await api.request('GET', `/api/v1/orders/${order.body.orderId}`)).body;
    return o.status === 'TICKETED' ? o : undefined;
  }, 10_000, 'order ticketed');
}

const listed = async (api: ApiClient, query = '') => (await api.request('GET', `/api/v1/me/notifications${query}`)).body;

describe('order confirmed, end to end', () => {
  it('lists the confirmation to the buyer alone and mails it once, in Chinese, with the tickets', async () => {
    const showId = await createShow(admin);
    const alice = await fan('zh-CN');
    const bob = await fan('en');
    const order = await buy(alice.api, showId, ['A-1-1', 'A-1-2']);
    const mail = await eventually(async () => smtp.to(alice.email)[0], 10_000, 'the email');
    expect(mail.subject).toBe('您的门票：Test Show');
    expect(mail.text).toContain('订单已确认');
    expect(mail.text).toContain(`/orders/${order.orderId}`);
    for (const ticket of order.tickets) expect(mail.text).toContain(`/tickets#${ticket.ticketId}`);
    expect(mail.text).toContain('座位 A-1-1');
    expect(mail.html).toContain(`href="${t.baseUrl}/orders/${order.orderId}"`);
    expect(mail.messageId).toMatch(/^<ntf_.+@ticketrush>$/);
    const mine = await eventually(async () => {
      const body = await listed(alice.api);
      return body.notifications[0]?.email.status === 'SENT' ? body : undefined;
    });
    expect(mine).toMatchObject({ unread: 1, more: false, notifications: [{ kind: 'ORDER_CONFIRMED', orderId: order.orderId, showId, readAt: null, data: { ticketIds: order.tickets.map((x) => x.ticketId) } }] });
    expect((await listed(bob.api)).notifications).toEqual([]);
    // Another relay pass and due pass find nothing more to send.
    await t.node.notifications.mailer?.deliverDue();
    await sleep(300);
    expect(smtp.to(alice.email)).toHaveLength(1);
    expect((await alice.api.request('POST', '/api/v1/me/notifications/read')).body).toEqual({ marked: 1 });
    expect((await listed(alice.api)).unread).toBe(0);
  });

  it('keeps the email while the SMTP server is down and sends it once when it is back', async () => {
    const showId = await createShow(admin);
    const carol = await fan(null);
    await smtp.stop();
    try {
      await buy(carol.api, showId, ['A-2-1']);
      const waiting = await eventually(async () => {
        const [n] = await t.node.ctx.store.listNotifications(carol.userId, { limit: 1, offset: 0 });
        return n !== undefined && n.emailAttempts >= 2 && n.emailStatus === 'PENDING' ? n : undefined;
      }, 10_000, 'two failed attempts');
      expect(waiting.emailLastError).toMatch(/ECONNREFUSED|connect/i);
    } finally {
      await smtp.start();
    }
    const mail = await eventually(async () => smtp.to(carol.email)[0], 10_000, 'the email after the server came back');
    expect(mail.subject).toBe('Your tickets for Test Show');
    await eventually(async () => ((await listed(carol.api)).notifications[0]?.email.status === 'SENT' ? true : undefined));
    await sleep(500);
    expect(smtp.to(carol.email)).toHaveLength(1);
  });
});

describe('the other kinds (constructed events through the sink)', () => {
  const event = (type: OutboxEventType, showId: string | null, data: Record<string, unknown>): OutboxEvent => ({
    position: '0', eventId: `evt-${++seq}`, type, showId, createdAt: Date.now(), origin: 'test', data, changes: null,
  });

  it('words refunds, exchanges, waitlist offers and cancellations in each buyer\'s language; a cancelled show reaches every buyer who paid, once', async () => {
    const showId = await createShow(admin);
    const dan = await fan('zh-CN');
    const erin = await fan('en');
    const stranger = await fan('en');
    const danOrder = await buy(dan.api, showId, ['A-3-1']);
    await buy(erin.api, showId, ['A-3-2']);
    await eventually(async () => (smtp.to(dan.email).length === 1 && smtp.to(erin.email).length === 1 ? true : undefined), 10_000);
    const events = [
      event('refund.completed', showId, { refundId: 'rf1', orderId: danOrder.orderId, showId, amountCents: 5000, currency: 'CNY' }),
      event('exchange.completed', showId, { orderId: danOrder.orderId, userId: dan.userId, showId, ticketIds: ['tkt_new'], seatIds: ['A-4-1'] }),
      event('waitlist.offered', showId, { entryId: 'wl1', userId: erin.userId, showId, expiresAt: Date.UTC(2030, 0, 1, 12) }),
      event('show.cancelled', showId, { showId, reason: 'Storm <warning>' }),
    ];
    await t.node.notifications.sink.deliver(events);
    // The same page again (the relay delivers at least once): nothing new.
    await t.node.notifications.sink.deliver(events);
    const subjects = async (email: string, n: number) => eventually(async () => {
      const got = smtp.to(email).map((m) => m.subject);
      return got.length >= n ? got : undefined;
    }, 10_000, `${n} emails to ${email}`);
    expect((await subjects(dan.email, 4)).slice(1).sort()).toEqual(['改签完成：Test Show', '退款完成：Test Show', '演出取消：Test Show'].sort());
    expect((await subjects(erin.email, 3)).slice(1).sort()).toEqual(['Cancelled: Test Show', 'Seats are waiting for you: Test Show'].sort());
    // A days-old event (a deployment that gains the sink reads the retained outbox once): listed, not mailed.
    const old = { ...event('waitlist.offered', showId, { userId: erin.userId, showId }), createdAt: Date.now() - 2 * 86_400_000 };
    await t.node.notifications.sink.deliver([old]);
    expect((await listed(erin.api)).notifications.find((n: { kind: string; email: { status: string } }) => n.kind === 'WAITLIST_OFFERED' && n.email.status === 'NONE')).toBeDefined();
    const cancelled = smtp.to(erin.email).find((m) => m.subject?.startsWith('Cancelled'));
    expect(cancelled?.text).toContain('Reason: Storm <warning>');
    expect(cancelled?.html).toContain('Storm &lt;warning&gt;');
    expect(smtp.to(dan.email).find((m) => m.subject?.startsWith('退款'))?.text).toContain('CN¥50.00');
    expect((await listed(dan.api)).notifications.map((n: { kind: string }) => n.kind).sort()).toEqual(['EXCHANGE_COMPLETED', 'ORDER_CONFIRMED', 'REFUND_COMPLETED', 'SHOW_CANCELLED']);
    expect((await listed(stranger.api)).notifications).toEqual([]);
    await sleep(500);
    expect(smtp.to(dan.email)).toHaveLength(4);
    expect(smtp.to(erin.email)).toHaveLength(3);
  });
});

describe('bad input', () => {
  it('answers stable 4xx codes', async () => {
    const { api } = await fan(null);
    const cases: [string, string, unknown, number, string][] = [
      ['PUT', '/api/v1/me/preferences', { email: 'not-an-address' }, 400, 'EMAIL_INVALID'],
      ['PUT', '/api/v1/me/preferences', { email: 'a b@example.com' }, 400, 'EMAIL_INVALID'],
      ['PUT', '/api/v1/me/preferences', { language: 'fr' }, 400, 'VALIDATION_FAILED'],
      ['PUT', '/api/v1/me/preferences', {}, 400, 'VALIDATION_FAILED'],
      ['PUT', '/api/v1/me/preferences', { email: `${'a'.repeat(300)}@example.com` }, 400, 'VALIDATION_FAILED'],
      ['GET', '/api/v1/me/notifications?limit=1000', undefined, 400, 'VALIDATION_FAILED'],
      ['GET', '/api/v1/me/notifications?offset=10001', undefined, 400, 'VALIDATION_FAILED'],
    ];
    for (const [method, url, body, status, code] of cases) {
      const reply = await api.request(method as 'GET' | 'PUT', url, body);
      expect({ url, body, status: reply.status, code: reply.body.code }).toEqual({ url, body, status, code });
    }
    const anonymous = new ApiClient(t.node.app);
    expect((await anonymous.request('GET', '/api/v1/me/notifications')).status).toBe(401);
    expect((await anonymous.request('PUT', '/api/v1/me/preferences', { language: 'en' })).status).toBe(401);
    expect((await api.request('PUT', '/api/v1/me/preferences', { language: 'zh-CN', email: null })).body).toEqual({ language: 'zh-CN', email: null });
    expect((await api.request('GET', '/api/v1/me/preferences')).body).toEqual({ language: 'zh-CN', email: null });
  });
});
