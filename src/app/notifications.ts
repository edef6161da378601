import { limits } from '../domain/index.js';
import type { Notification, PreferredLanguage, UserPreferences } from '../ports/engine/index.js';
import type { AppContext } from './context.js';
import { AppError } from './errors.js';
import { iso } from './views.js';

export { notificationKinds, preferredLanguages } from '../ports/engine/index.js';

export interface NotificationView {
  notificationId: string;
  kind: Notification['kind'];
  showId: string | null;
  orderId: string | null;
  data: Record<string, unknown>;
  createdAt: string;
  readAt: string | null;
  email: { status: Notification['emailStatus']; sentAt: string | null };
}

const view = (n: Notification): NotificationView => ({
  notificationId: n.notificationId, kind: n.kind, showId: n.showId, orderId: n.orderId, data: { ...n.data }, createdAt: iso(n.createdAt),
  readAt: n.readAt === null ? null : iso(n.readAt), email: { status: n.emailStatus, sentAt: n.emailSentAt === null ? null : iso(n.emailSentAt) },
});

/** The deepest page anyone may ask for: OFFSET reads and drops every row before it. */
export const notificationsOffsetMax = 10_000;

/** The buyer's own notifications, newest first, with how many are unread (the badge). */
export async function listMyNotifications(ctx: AppContext, userId: string, page: { limit: number; offset: number }): Promise<{ notifications: NotificationView[]; unread: number; more: boolean }> {
  const limit = Math.min(page.limit, limits.listPageSizeMax);
  const [found, unread] = await Promise.all([
    ctx.store.listNotifications(userId, { limit: limit + 1, offset: Math.min(page.offset, notificationsOffsetMax) }),
    ctx.store.countUnreadNotifications(userId),
  ]);
  return { notifications: found.slice(0, limit).map(view), unread, more: found.length > limit };
}

export async function markMyNotificationsRead(ctx: AppContext, userId: string): Promise<{ marked: number }> {
  return { marked: await ctx.store.markNotificationsRead(userId, ctx.clock.now()) };
}

export interface PreferencesView {
  language: PreferredLanguage | null;
  email: string | null;
}

const preferencesView = (p: UserPreferences | null): PreferencesView => ({ language: p?.language ?? null, email: p?.email ?? null });

export async function myPreferences(ctx: AppContext, userId: string): Promise<PreferencesView> {
  return preferencesView(await ctx.store.getUserPreferences(userId));
}

/** Addresses are checked for shape only (one @, no spaces or angle brackets); the SMTP server judges the rest. */
const emailShape = /^[^\s@<>(),;:"]+@[^\s@<>(),;:"]+\.[^\s@<>(),;:"]+$/;

export async function setMyPreferences(ctx: AppContext, userId: string, input: { language?: PreferredLanguage | null; email?: string | null }): Promise<PreferencesView> {
  const email = input.email === undefined || input.email === null ? input.email : input.email.trim();
  if (typeof email === 'string' && !emailShape.test(email)) throw new AppError('EMAIL_INVALID', 'not an email address');
  return preferencesView(await ctx.store.setUserPreferences({ userId, now: ctx.clock.now(), ...(input.language === undefined ? {} : { language: input.language }), ...(email === undefined ? {} : { email }) }));
}
