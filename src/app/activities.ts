import { activityTiming, catalogKey, compareCatalogKeys, type ActivityKind, type ActivitySummary, type ActivityTiming, type CampaignChange, type Show, type ShowEdit } from '../domain/index.js';
import type { AppContext } from './context.js';
import { AppError } from './errors.js';
import type { Actor } from './audit-trail.js';
import { bargainView, changeBargain, type BargainView } from './bargains.js';
import { changeCodePool } from './code-pool-changes.js';
import { changeFlashSale, flashSaleView, type FlashSaleView } from './flash-sales.js';
import { editShow } from './show-edit.js';
import { iso } from './views.js';

/**
 * The activity catalog (issue 23 item 1, seed 001 §秒杀 3-4): shows and campaigns in one list.
 * Each kind is a source that lists its first rows in the catalog's order (domain catalogKey) and
 * finds one activity by id; the list merges the sources. A new kind (code pools, bargains) is one
 * more source in `activitySources`, nothing else changes.
 */
export interface ActivitySource {
  readonly kind: ActivityKind;
  /** The first `limit` activities of this kind in the catalog's order; `withHidden`: ended and offline ones too. */
  list(limit: number, now: number, withHidden: boolean): Promise<ActivitySummary[]>;
  /** The activity's detail, or null when it is not of this kind. */
  detail(activityId: string): Promise<ActivityDetail | null>;
  /** Whether the user has taken part (an order, a grab, a bargain started). */
  participated(userId: string, activityId: string): Promise<boolean>;
  /** Whether one on sale has nothing left (asked only of the rows a page shows); absent: never said. */
  soldOut?(activityId: string): Promise<boolean>;
}

export interface ActivityView extends ActivityTiming {
  activityId: string;
  kind: ActivityKind;
  title: string;
  imageUrl: string | null;
  saleStartsAt: string;
  saleEndsAt: string;
  /** A cancelled show's reason (status CANCELLED); null otherwise. */
  cancelReason: string | null;
}

export type ActivityDetail = ActivityView & {
  description: string;
  /** The kind's own detail: a flash sale's items, a show's sections (see GET /shows/{showId}). */
  flashSale?: FlashSaleView;
  /** A bargain's rules, goods and stock. */
  bargain?: BargainView;
};

/** The most rows a page of the catalog may skip (each source reads offset + limit rows). */
export const activitiesOffsetMax = 1_000;

export function activityView(a: ActivitySummary, now: number): ActivityView {
  return {
    activityId: a.activityId, kind: a.kind, title: a.title, imageUrl: a.imageUrl,
    saleStartsAt: iso(a.saleStartsAt), saleEndsAt: iso(a.saleEndsAt), cancelReason: a.cancelReason ?? null, ...activityTiming(a, now),
  };
}

/** A show as a catalog row: cancelled ones carry their reason (GET /shows says `cancelled`). */
function showSummary(s: Show): ActivitySummary {
  const cancelReason = (s.cancelledAt ?? null) === null ? null : (s.cancelReason ?? '');
  return { activityId: s.showId, kind: 'SHOW', title: s.title, imageUrl: s.imageUrl, saleStartsAt: s.saleStartsAt, saleEndsAt: s.saleEndsAt, offline: false, cancelReason };
}

/** Nothing left of a show: what GET /shows counts as `available` (the read model, loaded if need be) is 0. */
async function showSoldOut(ctx: AppContext, showId: string): Promise<boolean> {
  const entry = ctx.seatMaps.hit(showId) ?? (await ctx.seatMaps.get(showId));
  if (entry === null) return false;
  return ctx.seatMaps.availability(entry).sections.reduce((sum, section) => sum + section.available, 0) === 0;
}

/** Shows and flash sales; code pools and bargains add their sources here. */
export function activitySources(ctx: AppContext): ActivitySource[] {
  const shows: ActivitySource = {
    kind: 'SHOW',
    async list(limit, now) {
      // Shows have no offline state; ended ones are dropped after the merge (they sort last).
      const rows = await ctx.store.listShows({ limit, offset: 0 }, now);
      return rows.map(showSummary);
    },
    async detail(activityId) {
      const show = await ctx.store.getShow(activityId);
      // A campaign's show carries its stock: the campaign's own source details it.
      if (show === null || show.campaign !== undefined || (await ctx.store.getFlashSale(activityId)) !== null) return null;
      const now = ctx.clock.now();
      const summary = showSummary(show);
      const soldOut = activityTiming(summary, now).status === 'ON_SALE' && (await showSoldOut(ctx, activityId));
      return { ...activityView({ ...summary, soldOut }, now), description: show.description };
    },
    participated: (userId, activityId) => ctx.store.hasOrderOfActivity(userId, activityId),
    soldOut: (activityId) => showSoldOut(ctx, activityId),
  };
  const flashSales: ActivitySource = {
    kind: 'FLASH_SALE',
    list: (limit, now, withHidden) => ctx.store.listFlashSaleActivities(limit, now, withHidden),
    async detail(activityId) {
      const sale = await ctx.store.getFlashSale(activityId);
      if (sale === null) return null;
      const view = await flashSaleView(ctx, sale);
      const summary: ActivitySummary = {
        activityId, kind: 'FLASH_SALE', title: sale.show.title, imageUrl: sale.show.imageUrl,
        saleStartsAt: sale.show.saleStartsAt, saleEndsAt: sale.show.saleEndsAt, offline: sale.record.offline,
      };
      return { ...activityView(summary, ctx.clock.now()), description: sale.show.description, flashSale: view };
    },
    participated: (userId, activityId) => ctx.store.hasOrderOfActivity(userId, activityId),
  };
  const bargains: ActivitySource = {
    kind: 'BARGAIN',
    list: (limit, now, withHidden) => ctx.store.listBargainActivities(limit, now, withHidden),
    async detail(activityId) {
      const bargain = await ctx.store.getBargain(activityId);
      if (bargain === null) return null;
      const view = await bargainView(ctx, bargain);
      const summary: ActivitySummary = {
        activityId, kind: 'BARGAIN', title: bargain.show.title, imageUrl: bargain.show.imageUrl,
        saleStartsAt: bargain.show.saleStartsAt, saleEndsAt: bargain.show.saleEndsAt, offline: bargain.record.offline,
      };
      return { ...activityView(summary, ctx.clock.now()), description: bargain.show.description, bargain: view };
    },
    // Taking part in a bargain is starting one (seed 001 砍价 2).
    participated: async (userId, activityId) => (await ctx.store.getBargainOrderOf(activityId, userId)) !== null,
  };
  const codePools: ActivitySource = {
    kind: 'CODE_POOL',
    list: (limit, now, withHidden) => ctx.store.listCodePoolActivities(limit, now, withHidden),
    async detail(activityId) {
      const pool = await ctx.store.getCodePool(activityId);
      if (pool === null) return null;
      const summary: ActivitySummary = {
        activityId, kind: 'CODE_POOL', title: pool.title, imageUrl: pool.imageUrl, saleStartsAt: pool.saleStartsAt, saleEndsAt: pool.saleEndsAt, offline: pool.offline,
      };
      return { ...activityView(summary, ctx.clock.now()), description: pool.description };
    },
    // Taking part in a code pool is holding one of its codes (seed 004).
    participated: async (userId, activityId) => (await ctx.store.codeOfUser(activityId, userId)) !== null,
  };
  return [flashSales, bargains, codePools, shows];
}

export interface ActivityQuery {
  readonly limit: number;
  readonly offset: number;
  /** Also ended (and offline) activities, after the live ones. */
  readonly includeEnded: boolean;
}

/**
 * One page of the merged catalog: each source's first offset + limit rows in the catalog's order,
 * merged by the same key, so paging keeps the order across kinds. Bounded: offset at most
 * activitiesOffsetMax, so no request reads more than a few thousand rows.
 */
export async function listActivities(ctx: AppContext, query: ActivityQuery, sources: readonly ActivitySource[] = activitySources(ctx)): Promise<ActivityView[]> {
  const now = ctx.clock.now();
  const offset = Math.min(query.offset, activitiesOffsetMax);
  const wanted = offset + query.limit;
  const lists = await Promise.all(sources.map((s) => s.list(wanted, now, query.includeEnded)));
  const merged = lists.flat()
    .filter((a) => query.includeEnded || (!a.offline && now < a.saleEndsAt))
    .map((a) => ({ a, key: catalogKey(a, now) }))
    .sort((x, y) => compareCatalogKeys(x.key, y.key));
  const kinds = new Map(sources.map((s) => [s.kind, s]));
  // Sold out is asked only of the page's rows on sale (a read-model lookup each, as GET /shows does).
  return Promise.all(merged.slice(offset, wanted).map(async ({ a }) => {
    const soldOut = kinds.get(a.kind)?.soldOut;
    const onSale = activityTiming(a, now).status === 'ON_SALE';
    return activityView(onSale && soldOut !== undefined ? { ...a, soldOut: await soldOut(a.activityId) } : a, now);
  }));
}

export async function getActivity(ctx: AppContext, activityId: string, viewerUserId: string | null, sources: readonly ActivitySource[] = activitySources(ctx)): Promise<ActivityDetail & { participated: boolean | null }> {
  for (const source of sources) {
    const detail = await source.detail(activityId);
    if (detail === null) continue;
    const participated = viewerUserId === null ? null : await source.participated(viewerUserId, activityId);
    return { ...detail, participated };
  }
  throw new AppError('ACTIVITY_NOT_FOUND', 'no such show or campaign');
}

/** The organizer's change of any activity: a show by the rules of PATCH /admin/shows/{id}, a campaign by its own. */
export async function changeActivity(ctx: AppContext, activityId: string, change: CampaignChange, actor: Actor | null = null): Promise<ActivityDetail> {
  if ((await ctx.store.getFlashSale(activityId)) !== null) {
    await changeFlashSale(ctx, activityId, change, actor);
  } else if ((await ctx.store.getBargain(activityId)) !== null) {
    await changeBargain(ctx, activityId, change, actor);
  } else if ((await ctx.store.getCodePool(activityId)) !== null) {
    await changeCodePool(ctx, activityId, change, actor);
  } else {
    if (change.status !== undefined) throw new AppError('CHANGE_NOT_ALLOWED', 'a show cannot be taken offline; end its sale instead', { field: 'status' });
    const edit: ShowEdit = {
      ...(change.title === undefined ? {} : { title: change.title }),
      ...(change.description === undefined ? {} : { description: change.description }),
      ...(change.imageUrl === undefined ? {} : { imageUrl: change.imageUrl }),
      ...(change.saleEndsAt === undefined ? {} : { saleEndsAt: change.saleEndsAt }),
    };
    try {
      await editShow(ctx, activityId, edit, actor);
    } catch (error) {
      if (error instanceof AppError && error.code === 'SHOW_NOT_FOUND') throw new AppError('ACTIVITY_NOT_FOUND', 'no such show or campaign');
      throw error;
    }
  }
  const { participated: _, ...detail } = await getActivity(ctx, activityId, null);
  return detail;
}
