import { saleWindow } from '../domain/index.js';
import type { AppContext } from './context.js';

/** Shows whose read model is loaded before a fresh process listens: the catalog's first page of them. */
export const warmShowsMax = 20;
/** Shows opening within this long are loaded too: a deploy just before an onsale is the common case. */
export const warmOpeningWithinMs = 60 * 60_000;

/**
 * Loads the seat-map read model of the shows on sale now (and of those opening within the hour)
 * before the process takes requests. Otherwise the first onsale after a deploy pays the load
 * inside the herd's first requests: all of them wait on it (the loads are shared, so the
 * database sees one), and their answers start only after it. Bounded: at most warmShowsMax shows,
 * one at a time (the read model's own seat bound still applies), in the catalog's order (on sale
 * and closing soonest first). Returns the shows loaded.
 */
export async function warmReadModels(ctx: Pick<AppContext, 'store' | 'seatMaps' | 'clock'>): Promise<number> {
  const now = ctx.clock.now();
  const shows = await ctx.store.listShows({ limit: warmShowsMax, offset: 0 }, now);
  let loaded = 0;
  for (const show of shows) {
    const status = saleWindow(show, now).status;
    if (status === 'ENDED' || (status === 'UPCOMING' && show.saleStartsAt - now > warmOpeningWithinMs)) continue;
    if ((await ctx.seatMaps.get(show.showId)) !== null) loaded++;
  }
  return loaded;
}
