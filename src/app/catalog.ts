import { createShow as layoutShow, detailsOf, limits, saleWindow, seatLimitOf, venueGeometry, type SaleStatus, type NewShowInput, type Show, type PlacedSection, type VenueGeometry } from '../domain/index.js';
import type { Page } from '../ports/engine/index.js';
import { auditDraft, type Actor } from './audit-trail.js';
import type { AppContext } from './context.js';
import { found, unwrap } from './errors.js';
import type { Availability } from './seat-map-cache.js';
import { iso } from './views.js';

export type NewShow = Omit<NewShowInput, 'showId'>;

export async function createShow(ctx: AppContext, input: NewShow, showId: string = ctx.ids.newId('show'), actor: Actor | null = null): Promise<Show> {
  // The currency is stored with the show, so changing TICKETRUSH_CURRENCY later never reprices it.
  const { show } = unwrap(layoutShow({ ...input, currency: input.currency ?? ctx.policy.currency, showId }, ctx.clock.now()));
  const audit = auditDraft(ctx, actor, {
    action: 'show.created', entityType: 'show', entityId: show.showId, showId: show.showId, before: null,
    after: { ...detailsOf(show), capacity: show.capacity, currency: show.currency, maxSeatsPerUser: show.maxSeatsPerUser },
  });
  await ctx.store.createShow({ show, audit });
  ctx.seatMaps.forgetMissing(show.showId);
  return show;
}

/** A section as the API shows it: seated ones with their rows, counted ones with their capacity. */
export type SectionView =
  | { id: string; name: string; kind: 'SEATED'; rows: number; seatsPerRow: number; priceCents: number; sellBy: 'SEAT' | 'QUANTITY'; accessible: { row: number; number: number }[] }
  | { id: string; name: string; kind: 'GENERAL_ADMISSION'; capacity: number; priceCents: number };

export interface ShowView {
  showId: string;
  title: string;
  description: string;
  imageUrl: string | null;
  /** ISO 4217 code of every price of the show. */
  currency: string;
  venue: string;
  city: string;
  startsAt: string;
  saleStartsAt: string;
  saleEndsAt: string;
  status: SaleStatus;
  /** Seconds until the sale opens (UPCOMING) or closes (ON_SALE), from the server's clock. */
  secondsRemaining: number;
  capacity: number;
  /** Seats one buyer may hold and buy of this show. */
  maxSeatsPerUser: number;
  /** The refund and exchange policy: hours before the start a buyer may still refund / exchange; null: not by the buyer. */
  refundUntilHoursBefore: number | null;
  exchangeUntilHoursBefore: number | null;
  /** The show was cancelled (its sale ENDED at once); the organizer's reason. */
  cancelled: boolean;
  cancelReason: string | null;
  sections: SectionView[];
}

export function showView(show: Show, now: number, defaultSeatsPerUser: number, defaultCurrency: string): ShowView {
  // A cancelled show's sale has ended, whatever its window said.
  const window = (show.cancelledAt ?? null) !== null ? { status: 'ENDED' as const, secondsRemaining: 0 } : saleWindow(show, now);
  return {
    showId: show.showId,
    title: show.title,
    description: show.description,
    imageUrl: show.imageUrl,
    currency: show.currency ?? defaultCurrency,
    venue: show.venue,
    city: show.city,
    startsAt: iso(show.startsAt),
    saleStartsAt: iso(show.saleStartsAt),
    saleEndsAt: iso(show.saleEndsAt),
    status: window.status,
    secondsRemaining: window.secondsRemaining,
    capacity: show.capacity,
    maxSeatsPerUser: seatLimitOf(show, defaultSeatsPerUser),
    refundUntilHoursBefore: show.refundUntilHoursBefore ?? null,
    exchangeUntilHoursBefore: show.exchangeUntilHoursBefore ?? null,
    cancelled: (show.cancelledAt ?? null) !== null,
    cancelReason: show.cancelReason ?? null,
    sections: show.seatMap.sections.map((s): SectionView => (s.kind === 'SEATED' ? { ...s, accessible: s.accessible.map((p) => ({ ...p })) } : { ...s })),
  };
}

/**
 * On sale first (closing soonest first), then upcoming (opening soonest first), then ended (most
 * recent first). The store's query orders them, so the promise holds across pages.
 */
export async function listShows(ctx: AppContext, page: Page): Promise<(ShowView & { available: number | null })[]> {
  const now = ctx.clock.now();
  const shows = await ctx.store.listShows({ limit: Math.min(page.limit, limits.listPageSizeMax), offset: page.offset }, now);
  return Promise.all(shows.map(async (s) => {
    const view = showView(s, now, ctx.policy.maxSeatsPerUserDefault, ctx.policy.currency);
    // A show on sale is one buyers open next anyway, so it is loaded into the read model (bounded,
    // shared); others say what is left only when already in memory.
    const entry = ctx.seatMaps.hit(s.showId) ?? (view.status === 'ON_SALE' ? await ctx.seatMaps.get(s.showId) : null);
    const available = entry === null ? null : ctx.seatMaps.availability(entry).sections.reduce((sum, section) => sum + section.available, 0);
    return { ...view, available };
  }));
}

const statusOfLetter = { A: 'AVAILABLE', H: 'HELD', S: 'SOLD', R: 'REFUND_PENDING' } as const;
/**
 * A `?since=` answer lists at most this many seats; past it the full bitmap (a few kilobytes,
 * compressed) is both smaller and cheaper, so it is sent instead.
 */
export const availabilityChangesMax = 1_000;

export interface AvailabilityChanges extends Availability {
  readonly encoding: 'changes';
  readonly since: number;
  readonly changes: { seatId: string; status: (typeof statusOfLetter)[keyof typeof statusOfLetter] }[];
}

/**
 * What changed after version `since`, from the read model's change log; null when the log no
 * longer reaches back that far (or `since` is not a version of this process), or when the changes
 * would outweigh the full bitmap: the caller answers with the bitmap then.
 */
export async function availabilityChanges(ctx: AppContext, showId: string, since: number): Promise<AvailabilityChanges | null> {
  const entry = found(await ctx.seatMaps.get(showId), 'SHOW_NOT_FOUND', 'no such show');
  const batch = ctx.seatMaps.feed.since(showId, since);
  if (batch === 'RELOAD' || batch.changes.length > availabilityChangesMax) return null;
  const { version, sections } = ctx.seatMaps.availability(entry);
  // The log and the map move together (both on the same applied change), so `to` is the map's version.
  return { version, encoding: 'changes', since, changes: batch.changes.map(([seatId, letter]) => ({ seatId, status: statusOfLetter[letter] })), sections };
}

/** One show, with where its seat map is drawn (the geometry best available measures on). */
export async function getShow(ctx: AppContext, showId: string): Promise<ShowView & { seatCounts: Record<string, number>; geometry: Omit<VenueGeometry, 'sections'> & { sections: PlacedSection[] } }> {
  const entry = found(await ctx.seatMaps.get(showId), 'SHOW_NOT_FOUND', 'no such show');
  const { sections, ...geometry } = venueGeometry(entry.show.seatMap);
  return { ...showView(entry.show, ctx.clock.now(), ctx.policy.maxSeatsPerUserDefault, ctx.policy.currency), seatCounts: ctx.seatMaps.counts(entry), geometry: { ...geometry, sections: [...sections] } };
}

/**
 * A show on sale right away, so a newcomer's first start has something to book. Created once
 * however many processes start at the same moment: each proposes an id under one settings name
 * (a unique key, first writer wins) and only the process whose id was kept creates the show.
 * Should that process die before creating it, no demo show appears (the database is not empty of
 * intent: an operator creates shows anyway); never two.
 */
export async function ensureDemoShow(ctx: AppContext): Promise<Show | null> {
  const now = ctx.clock.now();
  const existing = await ctx.store.listShows({ limit: 1, offset: 0 }, now);
  if (existing.length > 0) return null;
  const proposed = ctx.ids.newId('show');
  if ((await ctx.store.settleSetting('demo-show-id', proposed)) !== proposed) return null;
  const day = 86_400_000;
  return createShow(ctx, {
    title: 'TicketRush Demo Night',
    venue: 'Demo Hall',
    city: 'Shanghai',
    startsAt: now + 30 * day,
    saleStartsAt: now - 60_000,
    saleEndsAt: now + 29 * day,
    // A policy a newcomer can try: refunds until two days before the show, exchanges until one.
    refundUntilHoursBefore: 48,
    exchangeUntilHoursBefore: 24,
    maxSeatsPerUser: null,
    seatMap: {
      sections: [
        { id: 'A', name: 'Stalls', kind: 'SEATED', rows: 10, seatsPerRow: 20, priceCents: 12800, sellBy: 'SEAT', accessible: [{ row: 1, number: 1 }, { row: 1, number: 20 }] },
        { id: 'B', name: 'Balcony', kind: 'SEATED', rows: 5, seatsPerRow: 16, priceCents: 6800, sellBy: 'SEAT', accessible: [] },
      ],
    },
  }, proposed);
}
