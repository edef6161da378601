import type { AuditEntryDraft } from './change-log.js';
import type { ActivitySummary, CampaignDetails, FlashSaleRecord, Hold, Order, Show } from '../../domain/index.js';
import type { InventoryChanges, Stale } from './common.js';

/**
 * Flash sales (issue 23). A flash sale is a show whose sections are its items (see
 * domain/flash-sale.ts), plus its own record: the hold, order, payment, expiry and ticket
 * operations of the engine serve it unchanged. What is new is the buyer's one step
 * (takeFlashSaleUnits) and the organizer's changes.
 */
export interface CreateFlashSaleInput {
  readonly show: Show;
  readonly record: FlashSaleRecord;
  /** The audit-trail entry of the organizer's or admin's change, written in the same transaction when it commits. */
  readonly audit?: AuditEntryDraft | null | undefined;
}

export interface FlashSale {
  readonly show: Show;
  readonly record: FlashSaleRecord;
}

export interface TakeFlashSaleInput {
  readonly flashSaleId: string;
  readonly itemId: string;
  readonly userId: string;
  readonly quantity: number;
  /** New, made by the application: the hold that carries the units until paid or lapsed. */
  readonly holdId: string;
  /** New, made by the application. */
  readonly orderId: string;
  readonly idempotencyKey: string;
  readonly now: number;
  /** When an unpaid order lapses (its hold expires; the existing sweep gives the units back). */
  readonly expiresAt: number;
}

export type TakeFlashSaleOutcome =
  | { readonly ok: true; readonly order: Order; readonly hold: Hold; readonly changes: InventoryChanges }
  | { readonly ok: false; readonly code: 'FLASH_SALE_NOT_FOUND' | 'ITEM_NOT_FOUND' | 'ACTIVITY_OFFLINE' | 'SALE_NOT_OPEN' }
  /** The buyer's units of the sale (live orders) plus this quantity would pass maxPerUser. */
  | { readonly ok: false; readonly code: 'PURCHASE_LIMIT_REACHED'; readonly limit: number; readonly claimed: number }
  /** Not enough of the item left: `available` is what is left. */
  | { readonly ok: false; readonly code: 'SOLD_OUT'; readonly available: number }
  /** The (user, idempotency key) unique index: that key already opened this order. */
  | { readonly ok: false; readonly code: 'KEY_TAKEN'; readonly orderId: string };

export interface UpdateCampaignInput {
  readonly activityId: string;
  /** The show row's version the change was decided on (compare-and-set). */
  readonly expectedVersion: number;
  readonly details: CampaignDetails;
  /** The audit-trail entry of the organizer's or admin's change, written in the same transaction when it commits. */
  readonly audit?: AuditEntryDraft | null | undefined;
  /** When the change is made (its outbox row's time); absent: the store's clock. */
  readonly now?: number;
}

export type UpdateCampaignOutcome = { readonly ok: true; readonly sale: FlashSale } | { readonly ok: false; readonly code: 'FLASH_SALE_NOT_FOUND' } | Stale<'show'>;

export interface FlashSaleStore {
  /**
   * Inserts the record, then the show with its sections (counted stock, available = stock). The
   * record alone (a crash in between) is invisible: every read joins it to its published show.
   * Shows listed by listShows never include a flash sale's show.
   */
  createFlashSale(input: CreateFlashSaleInput): Promise<void>;
  getFlashSale(flashSaleId: string): Promise<FlashSale | null>;
  /**
   * The first `limit` flash sales in the catalog's order (domain catalogKey: on sale, upcoming,
   * then ended or offline), decided by the query. `withHidden` false leaves out ended and offline ones.
   */
  listFlashSaleActivities(limit: number, now: number, withHidden: boolean): Promise<ActivitySummary[]>;
  /**
   * The buyer's one step, ONE transaction, all or nothing: (1) the record and its show exist and
   * the item is one of its sections (else FLASH_SALE_NOT_FOUND / ITEM_NOT_FOUND); (2) not
   * offline (ACTIVITY_OFFLINE) and `now` within the stored window (SALE_NOT_OPEN); (3) no order
   * of the user has this key (KEY_TAKEN, also from the unique index when two race); (4) the
   * per-user counter of the sale (user_show_units) incremented only within maxPerUser as stored
   * (PURCHASE_LIMIT_REACHED); (5) the item's stock decremented only if enough is left (SOLD_OUT);
   * (6) the hold (ACTIVE, one UNITS line, expiresAt) and the order (INIT, kind FLASH_SALE,
   * activityId, amount = quantity x price) inserted. The order then goes to PENDING_PAY through
   * awaitPayment and lapses with its hold (lapseHold gives the units back exactly once).
   */
  takeFlashSaleUnits(input: TakeFlashSaleInput): Promise<TakeFlashSaleOutcome>;
  /**
   * Precondition: the sale exists (else FLASH_SALE_NOT_FOUND), its show's version is
   * expectedVersion (else stale). Effect: the details, version + 1, and an outbox row
   * 'show.changed' in the same transaction, so every other process's read model takes the new
   * window and words through the change feed (the buyer gate reads them from there).
   */
  updateCampaign(input: UpdateCampaignInput): Promise<UpdateCampaignOutcome>;
  /** Whether the user has any order of this activity (seed 004's "participated"). */
  hasOrderOfActivity(userId: string, activityId: string): Promise<boolean>;
}
