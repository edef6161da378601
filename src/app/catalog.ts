import { createShow as layoutShow, limits, saleWindow, type SaleStatus, type NewShowInput, type Show } from '../domain/index.js';
import type { Page } from '../ports/store.js';
import type { AppContext } from './context.js';
import { found, unwrap } from './errors.js';
import { iso } from './views.js';

export type NewShow = Omit<NewShowInput, 'showId'>;

export async function createShow(ctx: AppContext, input: NewShow): Promise<Show> {
  const { show, seats } = unwrap(layoutShow({ ...input, showId: ctx.ids.newId('show') }, ctx.clock.now()));
  await ctx.store.transaction((tx) => tx.shows.insert(show, seats));
  ctx.seatMaps.forgetMissing(show.showId);
  return show;
}

export interface ShowView {
  showId: string;
  title: string;
  venue: string;
  city: string;
  startsAt: string;
  saleStartsAt: string;
  saleEndsAt: string;
  status: SaleStatus;
  /** Seconds until the sale opens (UPCOMING) or closes (ON_SALE), from the server's clock. */
  secondsRemaining: number;
  capacity: number;
  sections: { id: string; name: string; rows: number; seatsPerRow: number; priceCents: number }[];
}

export function showView(show: Show, now: number): ShowView {
  const window = saleWindow(show, now);
  return {
    showId: show.showId,
    title: show.title,
    venue: show.venue,
    city: show.city,
    startsAt: iso(show.startsAt),
    saleStartsAt: iso(show.saleStartsAt),
    saleEndsAt: iso(show.saleEndsAt),
    status: window.status,
    secondsRemaining: window.secondsRemaining,
    capacity: show.capacity,
    sections: show.seatMap.sections.map((s) => ({ ...s })),
  };
}

const statusOrder: Record<SaleStatus, number> = { ON_SALE: 0, UPCOMING: 1, ENDED: 2 };

/** On sale first, then upcoming, then ended; soonest first within each. */
export async function listShows(ctx: AppContext, page: Page): Promise<ShowView[]> {
  const shows = await ctx.store.read((r) => r.shows.list({ limit: Math.min(page.limit, limits.listPageSizeMax), offset: page.offset }));
  const now = ctx.clock.now();
  return shows
    .map((s) => showView(s, now))
    .sort((a, b) => statusOrder[a.status] - statusOrder[b.status] || a.secondsRemaining - b.secondsRemaining);
}

export async function getShow(ctx: AppContext, showId: string): Promise<ShowView & { seatCounts: Record<string, number> }> {
  const entry = found(await ctx.seatMaps.get(showId), 'SHOW_NOT_FOUND', 'no such show');
  return { ...showView(entry.show, ctx.clock.now()), seatCounts: ctx.seatMaps.counts(entry) };
}

/** A show on sale right away, so a newcomer's first start has something to book. */
export async function ensureDemoShow(ctx: AppContext): Promise<Show | null> {
  const existing = await ctx.store.read((r) => r.shows.list({ limit: 1, offset: 0 }));
  if (existing.length > 0) return null;
  const now = ctx.clock.now();
  const day = 86_400_000;
  return createShow(ctx, {
    title: 'TicketRush Demo Night',
    venue: 'Demo Hall',
    city: 'Shanghai',
    startsAt: now + 30 * day,
    saleStartsAt: now - 60_000,
    saleEndsAt: now + 29 * day,
    seatMap: {
      sections: [
        { id: 'A', name: 'Stalls', rows: 10, seatsPerRow: 20, priceCents: 12800 },
        { id: 'B', name: 'Balcony', rows: 5, seatsPerRow: 16, priceCents: 6800 },
      ],
    },
  });
}
