import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotificationMailer, defaultEmailPolicy, emailRetryAt } from '../../src/app/notification-email.js';
import type { EmailMessage, EmailSender, EmailSendResult } from '../../src/ports/email-sender.js';
import type { JobPayloads } from '../../src/ports/jobs.js';
import { id, newUser, T0 } from '../contract/fixtures.js';
import { storeFactories, type TestStoreHandle } from '../support/stores.js';

/**
 * Never two emails for one notification: two mailers (two processes) over one store, each running
 * its due pass and the notification-email jobs at once, with a slow SMTP server, send each
 * notification exactly once; a failed attempt is retried on its backoff, once.
 */
function countingSender(answer: (m: EmailMessage) => EmailSendResult = () => ({ ok: true })): EmailSender & { sent: EmailMessage[] } {
  const sent: EmailMessage[] = [];
  return {
    sent,
    async send(m) {
      await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20));
      const result = answer(m);
      if (result.ok) sent.push(m);
      return result;
    },
    async close() {},
  };
}

describe.each(storeFactories)('notification emails on $name', (factory) => {
  let h: TestStoreHandle;
  beforeAll(async () => {
    h = await factory.open();
  });
  afterAll(async () => h?.close());

  const mailer = (sender: EmailSender, now: () => number) => new NotificationMailer({
    store: h.store, clock: { now }, random: () => 0.5, sender, jobs: null, policy: { ...defaultEmailPolicy, retryBaseMs: 1_000 },
    baseUrl: () => 'https://tickets.example.com', onError: (what, error) => { throw new Error(`${what}: ${String(error)}`); },
  });

  it('sends each notification once, whatever races to send it', async () => {
    const users = await Promise.all(Array.from({ length: 5 }, () => newUser(h.store)));
    for (const userId of users) await h.store.setUserPreferences({ userId, email: `${userId}@example.com`, language: 'en', now: T0 });
    const ids = await h.store.recordNotifications(users.flatMap((userId) => Array.from({ length: 6 }, () => ({
      notificationId: id('ntf'), userId, kind: 'ORDER_CONFIRMED' as const, eventId: id('evt'), showId: null, orderId: id('ord'), data: {}, now: T0, email: true,
    }))));
    const sender = countingSender();
    const a = mailer(sender, () => T0 + 1);
    const b = mailer(sender, () => T0 + 1);
    const jobs: JobPayloads['notification-email'][] = ids.map((notificationId) => ({ notificationId, attempt: 1 }));
    await Promise.all([
      a.deliverDue(), b.deliverDue(), a.deliverDue(),
      ...jobs.map((j) => a.runJob(j)), ...jobs.map((j) => b.runJob(j)),
    ]);
    await Promise.all([a.idle(), b.idle()]);
    const sentIds = sender.sent.map((m) => m.messageId.slice(1, -'@ticketrush>'.length));
    expect(sentIds.sort()).toEqual([...ids].sort());
    for (const notificationId of ids) expect((await h.store.getNotification(notificationId))?.emailStatus).toBe('SENT');
  });

  it('retries a failed attempt on its backoff and sends it once', async () => {
    const userId = await newUser(h.store);
    await h.store.setUserPreferences({ userId, email: 'late@example.com', now: T0 });
    const [notificationId] = await h.store.recordNotifications([{ notificationId: id('ntf'), userId, kind: 'SHOW_CANCELLED', eventId: id('evt'), showId: null, orderId: null, data: {}, now: T0, email: true }]);
    let up = false;
    let now = T0 + 10;
    const sender = countingSender(() => (up ? { ok: true } : { ok: false, error: 'connect ECONNREFUSED', permanent: false }));
    const m = mailer(sender, () => now);
    await m.runJob({ notificationId: notificationId as string, attempt: 1 });
    const retry = emailRetryAt({ ...defaultEmailPolicy, retryBaseMs: 1_000 }, 1, now, 0.5) as number;
    expect(await h.store.getNotification(notificationId as string)).toMatchObject({ emailStatus: 'PENDING', emailAttempts: 1, emailNextAttemptAt: retry });
    up = true;
    now = retry - 1;
    expect(await m.deliverDue()).toBe(0);
    now = retry;
    // The first attempt's job again (a redelivered job): nothing; the due pass sends it.
    await m.runJob({ notificationId: notificationId as string, attempt: 1 });
    expect(await m.deliverDue()).toBe(1);
    expect(await m.deliverDue()).toBe(0);
    expect(sender.sent.map((s) => s.to)).toEqual(['late@example.com']);
    expect(await h.store.getNotification(notificationId as string)).toMatchObject({ emailStatus: 'SENT', emailAttempts: 2 });
  });

  it('gives up on a permanent refusal and records a buyer without an address', async () => {
    const withAddress = await newUser(h.store);
    const without = await newUser(h.store);
    await h.store.setUserPreferences({ userId: withAddress, email: 'gone@example.com', now: T0 });
    const rows = await h.store.recordNotifications([withAddress, without].map((userId) => ({
      notificationId: id('ntf'), userId, kind: 'REFUND_COMPLETED' as const, eventId: id('evt'), showId: null, orderId: null, data: {}, now: T0, email: true,
    })));
    const m = mailer(countingSender(() => ({ ok: false, error: '550 mailbox unavailable', permanent: true })), () => T0 + 20);
    for (const notificationId of rows) await m.runJob({ notificationId, attempt: 1 });
    expect((await h.store.getNotification(rows[0] as string))?.emailStatus).toBe('FAILED');
    expect((await h.store.getNotification(rows[1] as string))?.emailStatus).toBe('NO_ADDRESS');
  });
});
