import type { Notification, NotificationKind, PreferredLanguage } from '../ports/engine/index.js';

/**
 * The words of a notification's email, in the buyer's language: plain text and HTML, from the
 * event's payload and the show as stored when it is sent. Pure: no I/O, so each kind and language
 * is tested with constructed notifications.
 */
export interface NotificationShow {
  readonly title: string;
  readonly venue: string;
  readonly city: string;
  readonly startsAt: number;
}

export interface RenderContext {
  readonly notification: Pick<Notification, 'notificationId' | 'kind' | 'orderId' | 'showId' | 'data'>;
  readonly language: PreferredLanguage;
  readonly show: NotificationShow | null;
  /** The web front end's address (no trailing slash) for links; '' leaves links relative. */
  readonly baseUrl: string;
}

export interface RenderedEmail {
  readonly subject: string;
  readonly text: string;
  readonly html: string;
}

const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

const str = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 ? v : null);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

function when(ms: number, language: PreferredLanguage): string {
  // UTC, said so: the server does not know the buyer's time zone.
  const fmt = new Intl.DateTimeFormat(language === 'zh-CN' ? 'zh-CN' : 'en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });
  return `${fmt.format(new Date(ms))} UTC`;
}

function money(cents: number, currency: string | null): string {
  const code = currency ?? 'USD';
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency: code }).format(cents / 100);
  } catch {
    return `${(cents / 100).toFixed(2)} ${code}`;
  }
}

interface Words {
  subject: (show: string) => string;
  intro: (show: string) => string;
  showLine: (at: string, venue: string) => string;
  tickets: string;
  seat: (seat: string) => string;
  ticket: (n: number) => string;
  order: string;
  amount: (amount: string) => string;
  reason: (reason: string) => string;
  claimBy: (at: string) => string;
  footer: string;
  aShow: string;
}

const words: Record<PreferredLanguage, Record<NotificationKind, Pick<Words, 'subject' | 'intro'>> & Omit<Words, 'subject' | 'intro'>> = {
  en: {
    ORDER_CONFIRMED: { subject: (s) => `Your tickets for ${s}`, intro: (s) => `Your order for ${s} is confirmed. Your tickets are ready.` },
    REFUND_COMPLETED: { subject: (s) => `Refund completed: ${s}`, intro: (s) => `Your refund for ${s} has been completed. The refunded tickets are no longer valid.` },
    EXCHANGE_COMPLETED: { subject: (s) => `Exchange completed: ${s}`, intro: (s) => `Your tickets for ${s} have been exchanged. Your old tickets are no longer valid; use the new ones.` },
    WAITLIST_OFFERED: { subject: (s) => `Seats are waiting for you: ${s}`, intro: (s) => `Good news: seats for ${s} came back and are held for you from the waitlist.` },
    SHOW_CANCELLED: { subject: (s) => `Cancelled: ${s}`, intro: (s) => `We are sorry: ${s} has been cancelled. Your order will be refunded in full, and your tickets are no longer valid.` },
    showLine: (at, venue) => `${at}, ${venue}`,
    tickets: 'Your tickets',
    seat: (seat) => `seat ${seat}`,
    ticket: (n) => `Ticket ${n}`,
    order: 'View your order',
    amount: (a) => `Amount: ${a}`,
    reason: (r) => `Reason: ${r}`,
    claimBy: (at) => `Claim them before ${at}, or they go to the next person waiting.`,
    footer: 'TicketRush — you get this email because you bought tickets with this address.',
    aShow: 'your show',
  },
  'zh-CN': {
    ORDER_CONFIRMED: { subject: (s) => `您的门票：${s}`, intro: (s) => `您购买的《${s}》订单已确认，门票已出票。` },
    REFUND_COMPLETED: { subject: (s) => `退款完成：${s}`, intro: (s) => `您《${s}》的退款已完成，已退的门票不再有效。` },
    EXCHANGE_COMPLETED: { subject: (s) => `改签完成：${s}`, intro: (s) => `您《${s}》的门票已改签。原门票不再有效，请使用新门票。` },
    WAITLIST_OFFERED: { subject: (s) => `候补成功：${s}`, intro: (s) => `好消息：《${s}》有票释出，已按候补顺序为您保留。` },
    SHOW_CANCELLED: { subject: (s) => `演出取消：${s}`, intro: (s) => `很抱歉，《${s}》已取消。您的订单将全额退款，门票不再有效。` },
    showLine: (at, venue) => `${at}，${venue}`,
    tickets: '您的门票',
    seat: (seat) => `座位 ${seat}`,
    ticket: (n) => `门票 ${n}`,
    order: '查看订单',
    amount: (a) => `金额：${a}`,
    reason: (r) => `原因：${r}`,
    claimBy: (at) => `请在 ${at} 之前确认购买，否则将顺延给下一位候补。`,
    footer: 'TicketRush —— 您收到此邮件是因为您用此地址购买了门票。',
    aShow: '您的演出',
  },
};

interface Line {
  readonly text: string;
  readonly href?: string;
}

/** The email of one notification: subject, then the same lines as plain text and as simple HTML. */
export function renderNotification(ctx: RenderContext): RenderedEmail {
  const w = words[ctx.language];
  const kind = w[ctx.notification.kind];
  const { data } = ctx.notification;
  const title = ctx.show?.title ?? str(data.title) ?? w.aShow;
  const lines: Line[] = [{ text: kind.intro(title) }];
  if (ctx.show !== null) lines.push({ text: w.showLine(when(ctx.show.startsAt, ctx.language), `${ctx.show.venue}, ${ctx.show.city}`) });
  const orderId = ctx.notification.orderId ?? str(data.orderId);
  const ticketIds = strings(data.ticketIds ?? data.newTicketIds);
  const seatIds = strings(data.seatIds ?? data.newSeatIds);
  if (ticketIds.length > 0 && (ctx.notification.kind === 'ORDER_CONFIRMED' || ctx.notification.kind === 'EXCHANGE_COMPLETED')) {
    lines.push({ text: `${w.tickets}:` });
    ticketIds.forEach((ticketId, i) => {
      const seat = seatIds[i];
      lines.push({ text: `${w.ticket(i + 1)}${seat === undefined ? '' : ` (${w.seat(seat)})`}`, href: `${ctx.baseUrl}/tickets#${encodeURIComponent(ticketId)}` });
    });
  }
  const amount = num(data.amountCents) ?? num(data.refundedCents);
  if (amount !== null && ctx.notification.kind === 'REFUND_COMPLETED') lines.push({ text: w.amount(money(amount, str(data.currency))) });
  const reason = str(data.reason);
  if (reason !== null && ctx.notification.kind === 'SHOW_CANCELLED') lines.push({ text: w.reason(reason) });
  const claimBy = num(data.expiresAt) ?? num(data.claimUntil);
  if (claimBy !== null && ctx.notification.kind === 'WAITLIST_OFFERED') lines.push({ text: w.claimBy(when(claimBy, ctx.language)) });
  if (orderId !== null) lines.push({ text: w.order, href: `${ctx.baseUrl}/orders/${encodeURIComponent(orderId)}` });
  else if (ctx.notification.showId !== null) lines.push({ text: title, href: `${ctx.baseUrl}/shows/${encodeURIComponent(ctx.notification.showId)}` });
  const text = [...lines.map((l) => (l.href === undefined ? l.text : `${l.text}: ${l.href}`)), '', w.footer].join('\n');
  const html = `<!doctype html><html lang="${ctx.language}"><body>${
    lines.map((l) => `<p>${l.href === undefined ? escapeHtml(l.text) : `<a href="${escapeHtml(l.href)}">${escapeHtml(l.text)}</a>`}</p>`).join('')
  }<hr><p><small>${escapeHtml(w.footer)}</small></p></body></html>`;
  return { subject: kind.subject(title), text, html };
}
