import type { AppContext } from './context.js';
import { found } from './errors.js';

export interface SaleStats {
  showId: string;
  version: number;
  capacity: number;
  sold: number;
  held: number;
  available: number;
  refundPending: number;
  /** Price of every seat sold, integer cents. */
  moneyTakenCents: number;
  /** Seats put on hold in the last minute. */
  holdsPerMinute: number;
}

/** The organizer's live sale figures, from the in-memory seat map (no store read). */
export async function saleStats(ctx: AppContext, showId: string): Promise<SaleStats> {
  const entry = found(await ctx.seatMaps.get(showId), 'SHOW_NOT_FOUND', 'no such show');
  // Counters the read model keeps as seats change: nothing here grows with the show.
  const counts = ctx.seatMaps.counts(entry);
  const moneyTakenCents = [...entry.sections.values()].reduce((sum, s) => sum + s.sold * s.priceCents, 0);
  const { SOLD: sold, HELD: held, REFUND_PENDING: refundPending } = counts;
  return {
    showId,
    version: entry.version,
    capacity: entry.show.capacity,
    sold,
    held,
    available: counts.AVAILABLE,
    refundPending,
    moneyTakenCents,
    holdsPerMinute: ctx.seatMaps.feed.holdsPerMinute(showId),
  };
}
