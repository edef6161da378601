import type { AuditEntryDraft } from './change-log.js';
import type { ActivitySummary, BargainRecord, CampaignDetails, Hold, Order, Show } from '../../domain/index.js';
import type { InventoryChanges, Stale } from './common.js';

/**
 * Bargains (issue 23 item 4, seed 001 砍价). A bargain is a show with one section (its goods, see
 * domain/bargain.ts) plus its record; a bargain order is one buyer's attempt at it, cut down by
 * friends; ordering takes one unit through the engine's hold and order, like a flash sale.
 */
export interface Bargain {
  readonly show: Show;
  readonly record: BargainRecord;
}

export interface BargainCut {
  readonly helperId: string;
  readonly helperName: string;
  readonly amountCents: number;
  readonly cutAt: number;
}

export interface BargainOrder {
  readonly bargainOrderId: string;
  readonly bargainId: string;
  readonly userId: string;
  readonly currentPriceCents: number;
  readonly cuts: number;
  /** The order opened at the price reached; null until then. */
  readonly orderId: string | null;
  readonly createdAt: number;
}

export interface StartBargainInput {
  readonly bargainId: string;
  readonly userId: string;
  /** New, made by the application; unused when the buyer already has one. */
  readonly bargainOrderId: string;
  readonly now: number;
}

export type StartBargainOutcome =
  | { readonly ok: true; readonly created: boolean; readonly bargainOrder: BargainOrder }
  | { readonly ok: false; readonly code: 'BARGAIN_NOT_FOUND' | 'ACTIVITY_OFFLINE' | 'SALE_NOT_OPEN' };

export interface CutBargainInput {
  readonly bargainOrderId: string;
  readonly helperId: string;
  /** The helper's random draw in [cutMinCents, cutMaxCents] (domain drawCut); the store clamps it to the floor. */
  readonly drawCents: number;
  readonly now: number;
}

export type CutBargainOutcome =
  | { readonly ok: true; readonly amountCents: number; readonly currentPriceCents: number; readonly cuts: number }
  | { readonly ok: false; readonly code: 'BARGAIN_ORDER_NOT_FOUND' | 'ACTIVITY_OFFLINE' | 'SALE_NOT_OPEN' | 'CANNOT_CUT_OWN' | 'ALREADY_CUT' | 'FLOOR_REACHED' | 'BARGAIN_CLOSED' };

export interface OrderBargainInput {
  readonly bargainOrderId: string;
  readonly userId: string;
  readonly holdId: string;
  readonly orderId: string;
  readonly idempotencyKey: string;
  readonly now: number;
  readonly expiresAt: number;
}

export type OrderBargainOutcome =
  | { readonly ok: true; readonly order: Order; readonly hold: Hold; readonly changes: InventoryChanges }
  | { readonly ok: false; readonly code: 'BARGAIN_ORDER_NOT_FOUND' | 'ACTIVITY_OFFLINE' | 'SALE_NOT_OPEN' | 'BARGAIN_NOT_READY' }
  /** One order per bargain order: this one already has it. */
  | { readonly ok: false; readonly code: 'ALREADY_ORDERED'; readonly orderId: string }
  | { readonly ok: false; readonly code: 'SOLD_OUT'; readonly available: number }
  | { readonly ok: false; readonly code: 'KEY_TAKEN'; readonly orderId: string };

export type UpdateBargainOutcome = { readonly ok: true; readonly bargain: Bargain } | { readonly ok: false; readonly code: 'BARGAIN_NOT_FOUND' } | Stale<'show'>;

export interface BargainStore {
  /** Inserts the record, then the show with its one section (as createFlashSale: the record alone joins to nothing). */
  createBargain(input: Bargain & { readonly audit?: AuditEntryDraft | null }): Promise<void>;
  getBargain(bargainId: string): Promise<Bargain | null>;
  /** As listFlashSaleActivities, for bargains (kind BARGAIN), in the catalog's order. */
  listBargainActivities(limit: number, now: number, withHidden: boolean): Promise<ActivitySummary[]>;
  /**
   * ONE statement or short transaction: the bargain exists, is not offline and is open at `now`;
   * the buyer's bargain order of it is inserted at the original price (created) or, when the
   * unique index (bargain_id, user_id) already has one, returned as it is (not created).
   */
  startBargain(input: StartBargainInput): Promise<StartBargainOutcome>;
  getBargainOrder(bargainOrderId: string): Promise<BargainOrder | null>;
  /** The buyer's bargain order of a bargain, if any (seed 004's "participated" for bargains). */
  getBargainOrderOf(bargainId: string, userId: string): Promise<BargainOrder | null>;
  /** The cuts of a bargain order, oldest first, at most `limit`. */
  listBargainCuts(bargainOrderId: string, limit: number): Promise<BargainCut[]>;
  /**
   * A helper's cut, ONE transaction: the bargain order exists (BARGAIN_ORDER_NOT_FOUND), its
   * bargain is not offline and open (ACTIVITY_OFFLINE, SALE_NOT_OPEN: a bargain order lapses at
   * saleEndsAt), not yet ordered (BARGAIN_CLOSED), the helper is not its buyer (CANNOT_CUT_OWN);
   * then the price lowered by the draw CLAMPED IN THE STATEMENT to the floor, only while above it
   * (FLOOR_REACHED; a CHECK current >= floor backs it), and the cut row inserted under the unique
   * index (bargain_order_id, helper_id) (ALREADY_CUT rolls the price back).
   */
  cutBargain(input: CutBargainInput): Promise<CutBargainOutcome>;
  /**
   * The buyer's order at the price reached, ONE transaction: the bargain order is the caller's
   * (BARGAIN_ORDER_NOT_FOUND), open (ACTIVITY_OFFLINE, SALE_NOT_OPEN), not ordered yet
   * (ALREADY_ORDERED: one per bargain order), ready (BARGAIN_NOT_READY: floor or minCuts), the
   * key unused (KEY_TAKEN), one unit of stock taken by a conditional decrement (SOLD_OUT), the
   * buyer's unit counter raised (max 1), the hold and the INIT order (kind BARGAIN, amount = the
   * current price) inserted, the bargain order linked to it only while unlinked, and the outbox
   * rows hold.created + order.created written.
   */
  orderBargain(input: OrderBargainInput): Promise<OrderBargainOutcome>;
  /** As updateCampaign, for a bargain: the details on the stored version, and offline; 'show.changed' in the outbox. */
  updateBargain(input: { readonly bargainId: string; readonly expectedVersion: number; readonly details: CampaignDetails; readonly audit?: AuditEntryDraft | null; readonly now?: number }): Promise<UpdateBargainOutcome>;
}
