import { lang, t } from './i18n';

let currency = 'CNY';
/** The currency of the show on screen (each show has its own, chosen when it was created). */
export const setCurrency = (code: string): void => {
  currency = code;
};

/** An amount in integer cents, in `code` (ISO 4217) or else the show on screen's currency. */
export function money(cents: number, code: string = currency): string {
  return new Intl.NumberFormat(lang.value, { style: 'currency', currency: code }).format(cents / 100);
}

/** The browser's time zone by name ("Asia/Shanghai"), which date pickers and times are in. */
export function timeZoneName(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/** "2d 03:04:05" / "04:05": a countdown that reads well in both languages. */
export function duration(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const days = Math.floor(total / 86_400);
  const h = Math.floor((total % 86_400) / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const pad = (n: number) => String(n).padStart(2, '0');
  const clock = h > 0 || days > 0 ? `${pad(h)}:${pad(m)}:${pad(s)}` : `${pad(m)}:${pad(s)}`;
  return days > 0 ? `${t('days', { n: days })} ${clock}` : clock;
}

export function dateTime(iso: string): string {
  return new Intl.DateTimeFormat(lang.value, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso));
}
