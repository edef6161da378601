import { describe, expect, it } from 'vitest';
import { renderNotification, type RenderContext } from '../../src/app/notification-text.js';
import { notificationKinds, preferredLanguages, type NotificationKind } from '../../src/ports/engine/index.js';

/** Each kind in each language, from constructed notifications: subject, text and HTML agree, and nothing the payload carries reaches the HTML unescaped. */
const show = { title: 'Swan <Lake>', venue: 'Opera', city: 'Paris', startsAt: Date.UTC(2030, 5, 1, 19, 30) };
const ctx = (kind: NotificationKind, language: 'en' | 'zh-CN', data: Record<string, unknown> = {}): RenderContext => ({
  notification: { notificationId: 'ntf_1', kind, orderId: 'ord_1', showId: 'shw_1', data },
  language, show, baseUrl: 'https://tickets.example.com',
});

const expected: Record<'en' | 'zh-CN', Record<NotificationKind, string>> = {
  en: {
    ORDER_CONFIRMED: 'Your tickets for Swan <Lake>', REFUND_COMPLETED: 'Refund completed: Swan <Lake>', EXCHANGE_COMPLETED: 'Exchange completed: Swan <Lake>',
    WAITLIST_OFFERED: 'Seats are waiting for you: Swan <Lake>', SHOW_CANCELLED: 'Cancelled: Swan <Lake>',
  },
  'zh-CN': {
    ORDER_CONFIRMED: '您的门票：Swan <Lake>', REFUND_COMPLETED: '退款完成：Swan <Lake>', EXCHANGE_COMPLETED: '改签完成：Swan <Lake>',
    WAITLIST_OFFERED: '候补成功：Swan <Lake>', SHOW_CANCELLED: '演出取消：Swan <Lake>',
  },
};

describe('notification emails', () => {
  for (const language of preferredLanguages) {
    for (const kind of notificationKinds) {
      it(`words ${kind} in ${language}`, () => {
        const email = renderNotification(ctx(kind, language, { ticketIds: ['tkt_a'], seatIds: ['A-1-1'], amountCents: 1234, currency: 'EUR', reason: 'rain & <wind>', expiresAt: Date.UTC(2030, 0, 1) }));
        expect(email.subject).toBe(expected[language][kind]);
        expect(email.text).toContain('https://tickets.example.com/orders/ord_1');
        expect(email.html).toContain(`lang="${language}"`);
        expect(email.html).not.toMatch(/<Lake>|<wind>/);
        expect(email.html).toContain('Swan &lt;Lake&gt;');
      });
    }
  }

  it('carries each ticket as a link, with its seat, in a confirmation and an exchange only', () => {
    const data = { ticketIds: ['tkt_a', 'tkt_b'], seatIds: ['A-1-1', 'A-1-2'] };
    const en = renderNotification(ctx('ORDER_CONFIRMED', 'en', data));
    expect(en.text).toContain('Ticket 1 (seat A-1-1): https://tickets.example.com/tickets#tkt_a');
    expect(en.html).toContain('<a href="https://tickets.example.com/tickets#tkt_b">Ticket 2 (seat A-1-2)</a>');
    expect(renderNotification(ctx('EXCHANGE_COMPLETED', 'zh-CN', data)).text).toContain('门票 2 (座位 A-1-2)');
    expect(renderNotification(ctx('REFUND_COMPLETED', 'en', data)).text).not.toContain('tkt_a');
  });

  it('says the amount refunded, the reason of a cancellation and the claim deadline of an offer', () => {
    expect(renderNotification(ctx('REFUND_COMPLETED', 'en', { amountCents: 1234, currency: 'EUR' })).text).toContain('Amount: €12.34');
    expect(renderNotification(ctx('SHOW_CANCELLED', 'zh-CN', { reason: '暴雨' })).text).toContain('原因：暴雨');
    expect(renderNotification(ctx('WAITLIST_OFFERED', 'en', { expiresAt: Date.UTC(2030, 0, 1, 12) })).text).toContain('Claim them before 1 Jan 2030, 12:00 UTC');
  });

  it('falls back to the show link, and to "your show", when the show or order is unknown', () => {
    const email = renderNotification({ notification: { notificationId: 'n', kind: 'SHOW_CANCELLED', orderId: null, showId: 'shw_9', data: {} }, language: 'en', show: null, baseUrl: '' });
    expect(email.subject).toBe('Cancelled: your show');
    expect(email.text).toContain('/shows/shw_9');
  });
});
