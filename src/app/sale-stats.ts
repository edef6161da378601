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
  const price = new Map(entry.show.seatMap.sections.map((s) => [s.id, s.priceCents]));
  let moneyTakenCents = 0;
  let sold = 0;
  let held = 0;
  let refundPending = 0;
  entry.statuses.forEach((code, i) => {
    if (code === 1) held++;
    else if (code === 2) {
      sold++;
      moneyTakenCents += price.get(entry.positions[i]?.section ?? '') ?? 0;
    } else if (code === 3) refundPending++;
  });
  return {
    showId,
    version: entry.version,
    capacity: entry.show.capacity,
    sold,
    held,
    available: entry.statuses.length - sold - held - refundPending,
    refundPending,
    moneyTakenCents,
    holdsPerMinute: ctx.seatMaps.feed.holdsPerMinute(showId),
  };
}
