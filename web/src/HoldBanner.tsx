import { serverNow } from './api';
import { duration } from './format';
import { useTick } from './hooks';
import { t } from './i18n';
import { followHolds, myHolds } from './my-holds';
import { path } from './router';

followHolds();

/**
 * "You have seats held for <show> · 04:12 left · Continue to checkout" on every page but the show
 * page of that hold (which shows the hold itself) and an order page, so a buyer who wandered off finds the way back
 * before the seats lapse.
 */
export function HoldBanner() {
  useTick(1000);
  const now = serverNow();
  const live = (myHolds.value ?? []).filter((h) => Date.parse(h.expiresAt) > now);
  const here = path.value;
  // The order page says when to pay by itself.
  if (here.startsWith('/orders/')) return null;
  const shown = live.filter((h) => here !== `/shows/${h.showId}`);
  const first = shown[0];
  if (first === undefined) return null;
  const href = `/shows/${encodeURIComponent(first.showId)}`;
  return (
    <div class="notice hold-banner" role="region" aria-label={t('yourHold')} data-testid="hold-banner">
      <span>{t('holdBanner', { show: first.show.title, time: duration(Date.parse(first.expiresAt) - now) })}</span>
      {shown.length > 1 && <span> {t('holdBannerMore', { n: shown.length - 1 })}</span>}
      {' · '}<a href={href} data-testid="hold-banner-continue">{t('holdBannerContinue')}</a>
    </div>
  );
}
