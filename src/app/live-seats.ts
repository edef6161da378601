import type { AppContext } from './context.js';
import { found } from './errors.js';
import type { SeatFeed } from './seat-feed.js';

/**
 * What the live seat stream (GET /shows/{showId}/events) needs of the read model, as use cases:
 * the change feed it relays, each loaded show's section counts, and where a new stream starts.
 */
export function liveSeatFeed(ctx: Pick<AppContext, 'seatMaps'>): SeatFeed {
  return ctx.seatMaps.feed;
}

/** What is left of every section of a show in memory now; null when the show is not loaded (no load is started). */
export function loadedSectionCounts(ctx: Pick<AppContext, 'seatMaps'>, showId: string): { id: string; available: number }[] | null {
  const entry = ctx.seatMaps.loaded(showId);
  return entry === null ? null : ctx.seatMaps.availability(entry).sections.map(({ id, available }) => ({ id, available }));
}

/** Where a new stream of a show starts: its current version and the show's epoch (SHOW_NOT_FOUND when no such show). */
export async function liveStart(ctx: Pick<AppContext, 'seatMaps'>, showId: string): Promise<{ showId: string; version: number; epoch: string }> {
  const entry = found(await ctx.seatMaps.get(showId), 'SHOW_NOT_FOUND', 'no such show');
  return { showId: entry.show.showId, version: entry.version, epoch: entry.epoch };
}
