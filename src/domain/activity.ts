import { saleWindow, type SaleStatus } from './show.js';

/** Everything the activity catalog lists: shows and campaigns side by side (issue 23, seed 001). */
export const activityKinds = ['SHOW', 'FLASH_SALE', 'CODE_POOL', 'BARGAIN'] as const;
export type ActivityKind = (typeof activityKinds)[number];
/**
 * SOLD_OUT: on sale with nothing left (a show whose seats and places are all taken); CANCELLED: a
 * show its organizer cancelled (its sale over whatever its window said), with the reason.
 */
export const activityStatuses = ['UPCOMING', 'ON_SALE', 'SOLD_OUT', 'ENDED', 'OFFLINE', 'CANCELLED'] as const;
export type ActivityStatus = (typeof activityStatuses)[number];

/** One row of the catalog, as every source gives it (times in epoch ms). */
export interface ActivitySummary {
  readonly activityId: string;
  readonly kind: ActivityKind;
  readonly title: string;
  readonly imageUrl: string | null;
  readonly saleStartsAt: number;
  readonly saleEndsAt: number;
  /** Taken down by its organizer: listed only with the ended ones, and nothing can be bought. */
  readonly offline: boolean;
  /** A cancelled show's reason (null or absent: not cancelled). */
  readonly cancelReason?: string | null;
  /** On sale and nothing left (only shows say; absent: not known or not sold out). */
  readonly soldOut?: boolean;
}

export interface ActivityTiming {
  readonly status: ActivityStatus;
  /** Seconds until the sale opens; 0 once it has. */
  readonly secondsToStart: number;
  /** Seconds until the sale closes; 0 once it has. */
  readonly secondsToEnd: number;
}

/** The status and countdowns of seed 001 §秒杀 4, computed on the server from one `now`. */
export function activityTiming(activity: Pick<ActivitySummary, 'saleStartsAt' | 'saleEndsAt' | 'offline' | 'cancelReason' | 'soldOut'>, now: number): ActivityTiming {
  // A cancelled show's sale is over: no countdown runs (as GET /shows says ENDED with cancelled).
  if ((activity.cancelReason ?? null) !== null) return { status: 'CANCELLED', secondsToStart: 0, secondsToEnd: 0 };
  const window = saleWindow(activity, now);
  const secondsToStart = Math.max(0, Math.ceil((activity.saleStartsAt - now) / 1000));
  const secondsToEnd = Math.max(0, Math.ceil((activity.saleEndsAt - now) / 1000));
  const status = activity.offline ? 'OFFLINE' : window.status === 'ON_SALE' && activity.soldOut === true ? 'SOLD_OUT' : window.status;
  return { status, secondsToStart, secondsToEnd };
}

/**
 * The catalog's order as a sortable key: on sale first (closing soonest first), then upcoming
 * (opening soonest first), then ended and offline (most recently ended first); id breaks ties.
 * Every source returns its rows in this order, so merging sources keeps it.
 */
export function catalogKey(activity: Pick<ActivitySummary, 'activityId' | 'saleStartsAt' | 'saleEndsAt' | 'offline'>, now: number): [number, number, string] {
  if (activity.offline || now >= activity.saleEndsAt) return [2, -activity.saleEndsAt, activity.activityId];
  if (now < activity.saleStartsAt) return [1, activity.saleStartsAt, activity.activityId];
  return [0, activity.saleEndsAt, activity.activityId];
}

export function compareCatalogKeys(a: readonly [number, number, string], b: readonly [number, number, string]): number {
  return a[0] - b[0] || a[1] - b[1] || (a[2] < b[2] ? -1 : a[2] > b[2] ? 1 : 0);
}
