import { t } from '../i18n';

/** The most hours before a show a policy may name (the server's policyHoursMax: a year). */
const policyHoursMax = 8760;

/** The hours as the API takes them: empty is null (not by the buyer), else a whole number. */
export const policyHours = (text: string): number | null => (text.trim() === '' ? null : Number(text));
export const policyInput = (hours: number | null | undefined): string => (hours === null || hours === undefined ? '' : String(hours));

/**
 * The refund and exchange deadlines of a show's create and edit forms (issue 35): hours before
 * the show, empty for none. `prefix` keeps the two forms' ids apart when both are on one page.
 */
export function PolicyFields({ prefix, refund, exchange, onRefund, onExchange }: {
  prefix: string; refund: string; exchange: string; onRefund(v: string): void; onExchange(v: string): void;
}) {
  const field = (key: string, label: string, value: string, set: (v: string) => void) => (
    <>
      <label for={`${prefix}-${key}`}>{label}</label>
      <input id={`${prefix}-${key}`} data-testid={`${prefix}-${key}`} type="number" min={0} max={policyHoursMax} step={1} inputMode="numeric"
        value={value} onInput={(e) => set((e.target as HTMLInputElement).value)} />
    </>
  );
  return (
    <>
      {field('refund-hours', t('formRefundHours'), refund, onRefund)}
      {field('exchange-hours', t('formExchangeHours'), exchange, onExchange)}
    </>
  );
}
