import { usernameKey } from '../domain/username.js';
import type { Attendee } from '../ports/engine/index.js';
import type { AppContext } from './context.js';
import { AppError } from './errors.js';
import { normalizeTicketCode } from './tickets.js';

/** A search text longer than this names nobody (usernames and codes are shorter). */
export const attendeeQueryMax = 64;
/** What a ticket's short code looks like (random-ids: 12 characters of an alphabet without look-alikes). */
const ticketCodeShape = /^[2-9A-HJ-NP-Z]{12}$/;

export interface DoorStats {
  readonly showId: string;
  /** Tickets that admit (VALID or USED): sold and issued. */
  readonly tickets: number;
  readonly checkedIn: number;
}

/** The door's live count of checked in against sold: the show's counters, a read of a few rows. */
export async function doorStats(ctx: AppContext, showId: string): Promise<DoorStats> {
  if ((await ctx.seatMaps.show(showId)) === null) throw new AppError('SHOW_NOT_FOUND', 'no such show');
  const counts = await ctx.store.doorCounts(showId);
  return { showId, tickets: counts.admitting, checkedIn: counts.checkedIn };
}


/**
 * A page of a show's attendees for door staff and organizers. `q` is a username prefix (compared
 * as the usernames' keys: case and width ignored) or a ticket's exact short code; a ticket whose
 * code is `q` comes first, then the buyers whose name starts with it, by name. Both are index
 * reads bounded by offset + limit; no query walks the show's tickets.
 */
export async function searchAttendees(ctx: AppContext, showId: string, q: string, limit: number, offset: number): Promise<Attendee[]> {
  if ((await ctx.seatMaps.show(showId)) === null) throw new AppError('SHOW_NOT_FOUND', 'no such show');
  const text = q.trim();
  const code = normalizeTicketCode(text);
  const byCode = ticketCodeShape.test(code) ? await ctx.store.ticketByCode(showId, code) : null;
  const first: Attendee[] = [];
  if (byCode !== null) {
    const owner = await ctx.store.getUser(byCode.userId);
    first.push({ ticket: byCode, username: owner?.username ?? '' });
  }
  // The code's ticket is position 0 of the whole list: the name matches shift by one after it.
  const skip = Math.max(0, offset - first.length);
  const head = offset < first.length ? first.slice(offset, offset + limit) : [];
  if (head.length >= limit) return head;
  const rest = await ctx.store.attendeesByName({
    showId, keyPrefix: usernameKey(text), excludeTicketId: byCode?.ticketId ?? null, limit: limit - head.length, offset: skip,
  });
  return [...head, ...rest];
}
