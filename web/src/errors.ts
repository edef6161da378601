import { ApiError } from './api';
import { en, type MessageKey } from './i18n/en';
import { t } from './i18n';

type Details = Readonly<Record<string, unknown>> | undefined;

/** A whole number from an error's details, or 0 (the messages read 0 as "not known"). */
const figure = (details: Details, name: string): number => {
  const value = details?.[name];
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.floor(value) : 0;
};

/**
 * The figures each message needs, from the details the server sends with the code. Every
 * message's placeholders are always given (0 for a figure the server left out), so a message
 * never fails to format.
 */
const params: Readonly<Record<string, (details: Details) => Record<string, number>>> = {
  // The hold route sends {limit, claimed, requested}; the domain's own check {limit, held, bought, requested}.
  PURCHASE_LIMIT_REACHED: (d) => {
    const limit = figure(d, 'limit');
    const claimed = typeof d?.claimed === 'number' ? figure(d, 'claimed') : figure(d, 'held') + figure(d, 'bought');
    return { limit, more: Math.max(0, limit - claimed) };
  },
  RATE_LIMITED: (d) => ({ seconds: figure(d, 'retryAfterSeconds') }),
  BUSY: (d) => ({ seconds: figure(d, 'retryAfterSeconds') }),
  TOO_MANY_SEATS: (d) => ({ max: figure(d, 'max') }),
};

/** The catalog key of an API error code, if the catalogs have one (they are checked to). */
export function errorKey(code: string): MessageKey | null {
  const key = `error${code}`;
  return /^[A-Z_]+$/.test(code) && Object.hasOwn(en, key) ? (key as MessageKey) : null;
}

/**
 * Any failure, as the page's language says it: an API refusal by its stable `code` with the
 * figures it carries (never the server's English `message`), an unreachable server, or else a
 * plain "something went wrong". `goods`: the page sells a campaign's goods (limits count items).
 */
export function errorText(e: unknown, goods = false): string {
  if (e instanceof ApiError) {
    // A campaign's limit counts its goods, not seats of a show (issue 35 item 7).
    if (goods && e.code === 'PURCHASE_LIMIT_REACHED') return t('purchaseLimitItems', params.PURCHASE_LIMIT_REACHED?.(e.details) ?? {});
    const key = errorKey(e.code);
    if (key === null) return t('errorUnknown', { code: e.code });
    return t(key, params[e.code]?.(e.details) ?? {});
  }
  // fetch rejects with a TypeError when the server cannot be reached.
  if (e instanceof TypeError) return t('errorNetwork');
  return t('errorGeneric');
}
