import { saleWindow } from '../domain/index.js';
import type { AppContext } from './context.js';
import { AppError } from './errors.js';
import { iso } from './views.js';
import { requireAdmission } from './admission-check.js';

/**
 * The buyer gate (issue 33): every use case that takes inventory names its path here and passes
 * the gate before it claims anything, so the same checks run in the same order on every path and
 * a refusal leaves nothing held, queued or offered. docs/architecture.md carries this table, and
 * test/http/buyer-gate.test.ts walks every path × every check it lists.
 */
export const buyerPaths = [
  'hold', 'order', 'exchange', 'waitlist-join', 'waitlist-offer', 'flash-sale-order',
  'bargain-start', 'bargain-cut', 'bargain-order', 'code-pool-grab', 'queue-join',
] as const;
export type BuyerPath = (typeof buyerPaths)[number];

/**
 * The checks, in the order they run. The first two run at the HTTP edge (src/http/buyer-gate.ts),
 * before the body is read, from memory; the rest here. Load shedding (the in-flight bound) runs
 * before both, on every route, and is not per path.
 */
export const gateChecks = ['blocklist', 'rate-limit', 'sale-window', 'cancelled-offline', 'admission', 'purchase-cap'] as const;
export type GateCheck = (typeof gateChecks)[number];
export type AppGateCheck = Exclude<GateCheck, 'blocklist' | 'rate-limit'>;

const everything: readonly GateCheck[] = gateChecks;

/**
 * Which path gets which check. A queue join needs no admission (it is how admission is got); a
 * bargain's start and cuts take no stock, so they are neither admitted nor capped; a waitlist
 * offer runs in the background for the buyer first in line, who sent no request (no edge checks),
 * and pauses while the show's waiting room is on (the room hands out what comes back).
 */
export const gateTable: Readonly<Record<BuyerPath, readonly GateCheck[]>> = {
  'hold': everything,
  // The hold passed the window and the show's state when it was placed: its order may be paid until it lapses.
  'order': ['blocklist', 'rate-limit', 'admission'],
  'exchange': everything,
  'waitlist-join': everything,
  'waitlist-offer': ['sale-window', 'cancelled-offline', 'admission', 'purchase-cap'],
  'flash-sale-order': everything,
  'bargain-start': ['blocklist', 'rate-limit', 'sale-window', 'cancelled-offline'],
  'bargain-cut': ['blocklist', 'rate-limit', 'sale-window', 'cancelled-offline'],
  // One unit per bargain order and one code per buyer are caps by construction: asking again answers the first.
  'bargain-order': ['blocklist', 'rate-limit', 'sale-window', 'cancelled-offline', 'admission'],
  'code-pool-grab': ['blocklist', 'rate-limit', 'sale-window', 'cancelled-offline', 'admission'],
  'queue-join': ['blocklist', 'rate-limit', 'sale-window', 'cancelled-offline'],
};

/** What the gate needs of the activity whose inventory is taken, as the use case already has it in memory. */
export interface GateActivity {
  readonly activityId: string;
  readonly saleStartsAt: number;
  readonly saleEndsAt: number;
  readonly cancelled: boolean;
  /**
   * A campaign's offline switch when the caller knows it; null when the claim's own statement
   * decides it (flash sales, bargains and code pools keep the switch in the store, read under the
   * same lock that takes the stock).
   */
  readonly offline: boolean | null;
}

export interface GateRequest {
  readonly path: BuyerPath;
  readonly userId: string;
  readonly activity: GateActivity;
  /** The X-Admission-Token as sent (undefined: none). */
  readonly admissionToken: string | undefined;
  /** An organizer acting for a buyer (an exchange on their behalf) holds no token: the room shields the store from the crowd, not from its organizers. */
  readonly organizer?: boolean;
}

/**
 * Passes the application's checks of `request.path`, in the table's order, from memory (no store
 * read). Throws the refusal's AppError; returns the checks it ran (for the path × check test).
 * Purchase caps are decided inside the claim's own statement (a count and a take, atomically),
 * so the gate's part is only to name them: the claim is given the cap, never a count from here.
 */
export function passBuyerGate(ctx: Pick<AppContext, 'rooms' | 'admission' | 'clock'>, request: GateRequest): readonly AppGateCheck[] {
  const ran: AppGateCheck[] = [];
  const { activity } = request;
  const now = ctx.clock.now();
  for (const check of gateTable[request.path]) {
    switch (check) {
      case 'blocklist':
      case 'rate-limit':
        // The edge's (src/http/buyer-gate.ts): before the body is read.
        continue;
      case 'sale-window': {
        const status = saleWindow(activity, now).status;
        // A line forms before the sale opens (that is what it is for); only an ended sale refuses it.
        if (status === 'ENDED' || (status === 'UPCOMING' && request.path !== 'queue-join')) {
          throw new AppError('SALE_NOT_OPEN', status === 'ENDED' ? 'the sale has ended' : 'the sale has not started yet', {
            saleStartsAt: iso(activity.saleStartsAt), saleEndsAt: iso(activity.saleEndsAt),
          });
        }
        break;
      }
      case 'cancelled-offline':
        if (activity.cancelled) throw new AppError('SHOW_CANCELLED', 'the show was cancelled: nothing is sold any more');
        if (activity.offline === true) throw new AppError('ACTIVITY_OFFLINE', 'this activity has been taken offline by its organizer');
        break;
      case 'admission':
        if (request.organizer !== true) requireAdmission(ctx, { userId: request.userId, activityId: activity.activityId, token: request.admissionToken });
        break;
      case 'purchase-cap':
        break;
    }
    ran.push(check);
  }
  return ran;
}

/** A show (or a campaign's show) as the gate sees it. */
export const showActivity = (show: { readonly showId: string; readonly saleStartsAt: number; readonly saleEndsAt: number; readonly cancelledAt?: number | null }): GateActivity => ({
  activityId: show.showId, saleStartsAt: show.saleStartsAt, saleEndsAt: show.saleEndsAt, cancelled: (show.cancelledAt ?? null) !== null, offline: null,
});

/**
 * The gate of an order of a hold: the hold's show decides (or the campaign the show carries). The
 * hold is read only when some room is on (admission is this path's only check of its own); a hold
 * that is not the caller's, or none, is left to the order's own refusals (404, 403).
 */
export async function passOrderGate(ctx: AppContext, input: { readonly userId: string; readonly holdId: string; readonly admissionToken: string | undefined }): Promise<void> {
  if (!ctx.rooms.anyOn()) return;
  const hold = await ctx.store.getHold(input.holdId);
  if (hold === null || hold.userId !== input.userId) return;
  const show = await ctx.seatMaps.show(hold.showId);
  if (show === null) return;
  passBuyerGate(ctx, { path: 'order', userId: input.userId, activity: showActivity(show), admissionToken: input.admissionToken });
}
