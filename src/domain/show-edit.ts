import { fail, ok, type Result } from './result.js';
import { checkDetails, checkTimes, type Show } from './show.js';

/** What an organizer may change on a show once it exists (its seat map, prices and currency never change). */
export interface ShowEdit {
  readonly title?: string;
  readonly description?: string;
  readonly imageUrl?: string | null;
  readonly venue?: string;
  readonly city?: string;
  readonly startsAt?: number;
  readonly saleStartsAt?: number;
  readonly saleEndsAt?: number;
  readonly refundUntilHoursBefore?: number | null;
  readonly exchangeUntilHoursBefore?: number | null;
}

export type ShowDetails = Pick<Show, 'title' | 'description' | 'imageUrl' | 'venue' | 'city' | 'startsAt' | 'saleStartsAt' | 'saleEndsAt'>
  & { readonly refundUntilHoursBefore?: number | null; readonly exchangeUntilHoursBefore?: number | null };

/** What the sale has taken so far, as the caller knows it (held or sold units, all sections). */
export interface SaleTaken {
  readonly taken: boolean;
}

/**
 * Decides an edit of a show at `now`. Only the fields the edit changes are judged, so an ended
 * show can still get a new title. Refusals:
 * - INVALID_SHOW_DETAILS / INVALID_SHOW_TIMES: the result breaks a rule of creation (a bad
 *   picture address or description; an empty or too long sale window);
 * - CHANGE_NOT_ALLOWED, a change that would break what is sold or the buyers' promise:
 *   the sale's end moved to before now (a buyer mid-checkout would lose the sale under them);
 *   the show's start moved before the sale's end, or into the past;
 *   the sale's start moved after now once anything is held or sold (a running sale would turn
 *   back to "upcoming" with buyers in it).
 * Returns the show as it would be stored (version unchanged: the store raises it).
 */
export function planShowEdit(show: Show, edit: ShowEdit, now: number, sale: SaleTaken): Result<{ show: Show; changed: boolean }> {
  const details = checkDetails(edit);
  if (!details.ok) return details;
  const next: Show = {
    ...show,
    ...definedOnly(edit),
  };
  const moved = (key: 'startsAt' | 'saleStartsAt' | 'saleEndsAt'): boolean => next[key] !== show[key];
  if (moved('saleEndsAt') && next.saleEndsAt < now) {
    return fail('CHANGE_NOT_ALLOWED', 'the sale cannot be made to end in the past', { field: 'saleEndsAt' });
  }
  if ((moved('startsAt') || moved('saleEndsAt')) && next.startsAt < next.saleEndsAt) {
    return fail('CHANGE_NOT_ALLOWED', 'the show cannot start before its sale ends', { field: moved('startsAt') ? 'startsAt' : 'saleEndsAt' });
  }
  if (moved('startsAt') && next.startsAt < now) {
    return fail('CHANGE_NOT_ALLOWED', 'the show cannot be moved into the past', { field: 'startsAt' });
  }
  if (moved('startsAt') || moved('saleStartsAt') || moved('saleEndsAt')) {
    const times = checkTimes(next);
    if (!times.ok) return times;
  }
  if (moved('saleStartsAt') && next.saleStartsAt > now && show.saleStartsAt <= now && sale.taken) {
    return fail('CHANGE_NOT_ALLOWED', 'the sale has started and seats are held or sold: its start cannot move to the future', { field: 'saleStartsAt' });
  }
  const changed = (Object.keys(definedOnly(edit)) as (keyof ShowDetails)[]).some((key) => (next[key] ?? null) !== (show[key] ?? null));
  return ok({ show: next, changed });
}

function definedOnly(edit: ShowEdit): Partial<ShowDetails> {
  return Object.fromEntries(Object.entries(edit).filter(([, value]) => value !== undefined)) as Partial<ShowDetails>;
}

export function detailsOf(show: Show): ShowDetails {
  const { title, description, imageUrl, venue, city, startsAt, saleStartsAt, saleEndsAt } = show;
  return {
    title, description, imageUrl, venue, city, startsAt, saleStartsAt, saleEndsAt,
    refundUntilHoursBefore: show.refundUntilHoursBefore ?? null, exchangeUntilHoursBefore: show.exchangeUntilHoursBefore ?? null,
  };
}
