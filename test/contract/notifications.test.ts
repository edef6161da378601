import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewNotification } from '../../src/ports/engine/index.js';
import { storeFactories, type TestStoreHandle } from '../support/stores.js';
import { held, id, minute, newShow, newUser, orderAwaitingPayment, seated, claimBase, T0 } from './fixtures.js';

/**
 * The notification operations on every store: one row per (event, buyer, kind) however often the
 * relay delivers; the buyer's own list, newest first, with the unread count; an email leased to
 * one sender at a time and recorded once per attempt; the paid buyers of a show in pages.
 */
const note = (userId: string, overrides: Partial<NewNotification> = {}): NewNotification => ({
  notificationId: id('ntf'), userId, kind: 'ORDER_CONFIRMED', eventId: id('evt'), showId: null, orderId: null, data: { orderId: 'o1' }, now: T0, email: true, ...overrides,
});

describe.each(storeFactories)('notification store operations on $name', (factory) => {
  let h: TestStoreHandle;
  beforeAll(async () => {
    h = await factory.open();
  });
  afterAll(async () => h?.close());

  it('writes one notification per (event, buyer, kind), within one call and across calls', async () => {
    const user = await newUser(h.store);
    const first = note(user);
    // The same event twice in one page, and once more later (a redelivered page): one row.
    expect(await h.store.recordNotifications([first, { ...first, notificationId: id('ntf') }])).toEqual([first.notificationId]);
    expect(await h.store.recordNotifications([{ ...first, notificationId: id('ntf') }])).toEqual([]);
    // Another kind or another buyer of the same event is its own row.
    const other = await newUser(h.store);
    const refunds = note(user, { eventId: first.eventId, kind: 'REFUND_COMPLETED' });
    const theirs = note(other, { eventId: first.eventId });
    expect(await h.store.recordNotifications([refunds, theirs])).toEqual([refunds.notificationId, theirs.notificationId]);
    const mine = await h.store.listNotifications(user, { limit: 10, offset: 0 });
    expect(mine.map((n) => n.notificationId).sort()).toEqual([first.notificationId, refunds.notificationId].sort());
    expect(mine[0]).toMatchObject({ userId: user, emailStatus: 'PENDING', emailAttempts: 0, emailNextAttemptAt: T0, readAt: null });
  });

  it('lists the buyer\'s own newest first, counts and marks the unread', async () => {
    const user = await newUser(h.store);
    const older = note(user, { now: T0 + 1, email: false });
    const newer = note(user, { now: T0 + 2, email: false });
    await h.store.recordNotifications([older, newer]);
    expect((await h.store.listNotifications(user, { limit: 10, offset: 0 })).map((n) => n.notificationId)).toEqual([newer.notificationId, older.notificationId]);
    expect((await h.store.listNotifications(user, { limit: 1, offset: 1 })).map((n) => n.notificationId)).toEqual([older.notificationId]);
    expect((await h.store.listNotifications(user, { limit: 1, offset: 0 }))[0]?.emailStatus).toBe('NONE');
    expect(await h.store.countUnreadNotifications(user)).toBe(2);
    expect(await h.store.markNotificationsRead(user, T0 + 5)).toBe(2);
    expect(await h.store.countUnreadNotifications(user)).toBe(0);
    expect(await h.store.markNotificationsRead(user, T0 + 6)).toBe(0);
    expect((await h.store.getNotification(older.notificationId))?.readAt).toBe(T0 + 5);
  });

  it('leases an email to one sender at a time, records each attempt once, and sends nothing twice', async () => {
    const user = await newUser(h.store);
    await h.store.setUserPreferences({ userId: user, email: 'fan@example.com', language: 'zh-CN', now: T0 });
    const n = note(user, { now: T0 + 10 * minute });
    await h.store.recordNotifications([n]);
    const now = T0 + 10 * minute;
    expect(await h.store.leaseNotificationEmail({ notificationId: n.notificationId, attempts: 0, now: now - 1, leaseMs: minute })).toBeNull();
    // Two senders at once (two processes, or a job and its retry): exactly one gets it.
    const [a, b] = await Promise.all([
      h.store.leaseNotificationEmail({ notificationId: n.notificationId, attempts: 0, now, leaseMs: minute }),
      h.store.leaseNotificationEmail({ notificationId: n.notificationId, attempts: 0, now, leaseMs: minute }),
    ]);
    expect([a, b].filter((x) => x !== null)).toHaveLength(1);
    const leased = (a ?? b)!;
    expect(leased).toMatchObject({ email: 'fan@example.com', language: 'zh-CN', notification: { emailStatus: 'SENDING', emailNextAttemptAt: now + minute } });
    // The due sweep does not see it while the lease runs.
    expect((await h.store.leaseDueEmails({ now: now + 1, leaseMs: minute, limit: 1000 })).map((l) => l.notification.notificationId)).not.toContain(n.notificationId);
    const failed = await h.store.recordEmailAttempt({ notificationId: n.notificationId, attempt: 1, outcome: 'RETRY', nextAttemptAt: now + 5 * minute, error: 'ECONNREFUSED', now: now + 2 });
    expect(failed).toMatchObject({ ok: true, notification: { emailStatus: 'PENDING', emailAttempts: 1, emailNextAttemptAt: now + 5 * minute, emailLastError: 'ECONNREFUSED' } });
    // The same attempt recorded again (a retried job): stale, nothing changes.
    expect(await h.store.recordEmailAttempt({ notificationId: n.notificationId, attempt: 1, outcome: 'SENT', nextAttemptAt: null, error: null, now: now + 3 })).toEqual({ ok: false, stale: true });
    // A job for the first attempt no longer leases; the sweep takes the retry when due.
    expect(await h.store.leaseNotificationEmail({ notificationId: n.notificationId, attempts: 0, now: now + 5 * minute, leaseMs: minute })).toBeNull();
    const due = await h.store.leaseDueEmails({ now: now + 5 * minute, leaseMs: minute, limit: 1000 });
    expect(due.map((l) => l.notification.notificationId)).toContain(n.notificationId);
    const sent = await h.store.recordEmailAttempt({ notificationId: n.notificationId, attempt: 2, outcome: 'SENT', nextAttemptAt: null, error: null, now: now + 5 * minute + 1 });
    expect(sent).toMatchObject({ ok: true, notification: { emailStatus: 'SENT', emailAttempts: 2, emailSentAt: now + 5 * minute + 1, emailNextAttemptAt: null } });
    // Sent: never leased again, whatever the time.
    expect(await h.store.leaseNotificationEmail({ notificationId: n.notificationId, attempts: 2, now: now + 86_400_000, leaseMs: minute })).toBeNull();
    expect((await h.store.leaseDueEmails({ now: now + 86_400_000, leaseMs: minute, limit: 1000 })).map((l) => l.notification.notificationId)).not.toContain(n.notificationId);
  });

  it('takes back the lease of a sender that died once it runs out', async () => {
    const user = await newUser(h.store);
    const n = note(user, { now: T0 + 20 * minute });
    await h.store.recordNotifications([n]);
    const now = T0 + 20 * minute;
    expect(await h.store.leaseNotificationEmail({ notificationId: n.notificationId, attempts: 0, now, leaseMs: minute })).not.toBeNull();
    expect(await h.store.leaseNotificationEmail({ notificationId: n.notificationId, attempts: 0, now: now + minute - 1, leaseMs: minute })).toBeNull();
    const again = await h.store.leaseNotificationEmail({ notificationId: n.notificationId, attempts: 0, now: now + minute, leaseMs: minute });
    expect(again).toMatchObject({ email: null, language: null });
  });

  it('keeps the buyer\'s language and address, each changed only when given', async () => {
    const user = await newUser(h.store);
    expect(await h.store.getUserPreferences(user)).toBeNull();
    expect(await h.store.setUserPreferences({ userId: user, language: 'zh-CN', now: T0 })).toEqual({ userId: user, language: 'zh-CN', email: null, updatedAt: T0 });
    expect(await h.store.setUserPreferences({ userId: user, email: 'a@example.com', now: T0 + 1 })).toEqual({ userId: user, language: 'zh-CN', email: 'a@example.com', updatedAt: T0 + 1 });
    expect(await h.store.setUserPreferences({ userId: user, language: null, now: T0 + 2 })).toMatchObject({ language: null, email: 'a@example.com' });
    expect(await h.store.getUserPreferences(user)).toMatchObject({ language: null, email: 'a@example.com' });
  });

  it('pages through the buyers who paid for a show, each once, in id order', async () => {
    const show = await newShow(h.store, [seated('A', 2, 10)]);
    const buyers = [await newUser(h.store), await newUser(h.store), await newUser(h.store)];
    const unpaid = await newUser(h.store);
    let seat = 0;
    const pay = async (userId: string) => {
      const hold = held(await h.store.claimSeats({ ...claimBase(show, userId), seatIds: [`A-1-${++seat}`] }));
      const { order, payment } = await orderAwaitingPayment(h.store, hold);
      const settled = await h.store.settlePayment({
        kind: 'SELL', now: T0 + 2,
        payment: { paymentId: payment.paymentId, receivedCents: null, from: 'PENDING', to: 'SUCCEEDED' },
        order: { orderId: order.orderId, from: 'PENDING_PAY', to: 'PAID' },
        hold: { holdId: hold.holdId, from: 'ACTIVE', to: 'CONFIRMED' },
      });
      if (!settled.ok) throw new Error(`settle: ${JSON.stringify(settled)}`);
    };
    for (const b of buyers) await pay(b);
    await pay(buyers[0] as string); // two orders: still one buyer
    await orderAwaitingPayment(h.store, held(await h.store.claimSeats({ ...claimBase(show, unpaid), seatIds: ['A-2-1'] })));
    const sorted = [...buyers].sort();
    expect(await h.store.paidBuyersOfShow(show.showId, null, 100)).toEqual(sorted);
    expect(await h.store.paidBuyersOfShow(show.showId, null, 2)).toEqual(sorted.slice(0, 2));
    expect(await h.store.paidBuyersOfShow(show.showId, sorted[1] as string, 2)).toEqual(sorted.slice(2));
  });
});
