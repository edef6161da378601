import { serverNow, type Show } from '../api';
import { dateTime } from '../format';
import { t } from '../i18n';

/** What a show's refund and exchange policy lets a buyer do on their own (issue 35). */
export type PolicyKind = 'refund' | 'exchange';
type PolicyShow = Pick<Show, 'startsAt' | 'refundUntilHoursBefore' | 'exchangeUntilHoursBefore'>;

const hoursOf = (show: PolicyShow, kind: PolicyKind): number | null =>
  (kind === 'refund' ? show.refundUntilHoursBefore : show.exchangeUntilHoursBefore) ?? null;

/** The last moment (epoch ms) a buyer may refund / exchange, as the server's refundDeadline / exchangeDeadline; null: never by the buyer. */
export function policyDeadline(show: PolicyShow, kind: PolicyKind): number | null {
  const hours = hoursOf(show, kind);
  return hours === null ? null : Date.parse(show.startsAt) - hours * 3_600_000;
}

/** Whether the buyer may still refund / exchange now (by the server's clock). */
export function policyOpen(show: PolicyShow, kind: PolicyKind): boolean {
  const deadline = policyDeadline(show, kind);
  return deadline !== null && serverNow() < deadline;
}

/** The policy in words: until when (and how long before the show), closed since when, or not offered. */
export function policyText(show: PolicyShow, kind: PolicyKind): string {
  const hours = hoursOf(show, kind);
  const deadline = policyDeadline(show, kind);
  if (hours === null || deadline === null) return t(kind === 'refund' ? 'policyNoRefunds' : 'policyNoExchanges');
  const when = dateTime(new Date(deadline).toISOString());
  if (serverNow() >= deadline) return t(kind === 'refund' ? 'policyRefundClosed' : 'policyExchangeClosed', { when });
  return t(kind === 'refund' ? 'policyRefundUntil' : 'policyExchangeUntil', { when, hours });
}

/** The show page's policy box: read before buying. */
export function ShowPolicy({ show }: { show: PolicyShow }) {
  return (
    <div class="policy" data-testid="show-policy">
      <h2>{t('policyTitle')}</h2>
      <p data-testid="show-refund-policy">{policyText(show, 'refund')}</p>
      <p data-testid="show-exchange-policy">{policyText(show, 'exchange')}</p>
    </div>
  );
}
