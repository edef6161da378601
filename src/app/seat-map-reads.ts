import type { AvailabilityBody } from './availability-body.js';
import type { AppContext } from './context.js';
import { found } from './errors.js';
import type { RenderedMap } from './seat-map-render.js';

/**
 * The read model's answers to the catalog's seat-map reads, for the HTTP edge: it asks for what
 * it sends, never for the read model's entries and their internals.
 */
export type SeatMapForm = 'full' | 'compact';

/** The compact availability (a bitmap of seats and every section's count) at the current version. */
export async function availabilityBody(ctx: Pick<AppContext, 'seatMaps'>, showId: string): Promise<AvailabilityBody> {
  return found(await ctx.seatMaps.availabilityBody(showId), 'SHOW_NOT_FOUND', 'no such show');
}

/**
 * The ETag of the seat map as it is now: known before anything is rendered, so a revalidation
 * costs no rendering at all. A show already in memory is answered without a load.
 */
export async function seatMapEtag(ctx: Pick<AppContext, 'seatMaps'>, showId: string, form: SeatMapForm): Promise<string> {
  const entry = found(ctx.seatMaps.hit(showId) ?? (await ctx.seatMaps.get(showId)), 'SHOW_NOT_FOUND', 'no such show');
  return ctx.seatMaps.etag(entry, form === 'compact' ? '-c' : '');
}

/** The seat map rendered at the current version (shared parts; its ETag may be newer than seatMapEtag's). */
export async function renderSeatMap(ctx: Pick<AppContext, 'seatMaps'>, showId: string, form: SeatMapForm): Promise<RenderedMap> {
  return found(await ctx.seatMaps.seatMap(showId, form), 'SHOW_NOT_FOUND', 'no such show');
}
