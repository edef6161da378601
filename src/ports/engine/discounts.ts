import type { AuditEntryDraft } from './change-log.js';
import type { DiscountCode, DiscountStatus } from '../../domain/index.js';
import type { Page, Stale } from './common.js';

export type CreateDiscountOutcome = { readonly ok: true; readonly discount: DiscountCode } | { readonly ok: false; readonly code: 'CODE_TAKEN' };

export interface DisableDiscountInput {
  readonly code: string;
  readonly from: DiscountStatus;
  readonly to: DiscountStatus;
}
export type DisableDiscountOutcome = { readonly ok: true; readonly discount: DiscountCode } | Stale<'discount'>;

export interface ReturnDiscountUseInput {
  readonly orderId: string;
  readonly now: number;
}
/** returned false: the order holds no use (none taken, or given back already): nothing written. */
export type ReturnDiscountUseOutcome = { readonly ok: true; readonly returned: boolean };

/**
 * Discount codes (issue 25 item 6). A use is TAKEN by openOrder, in the order's own transaction,
 * when the order carries a discount (see OrderStore.openOrder): the code's counter is raised by a
 * conditional update (ACTIVE, valid at the order's createdAt, for its show, uses < max_uses) and
 * the buyer's own counter by a conditional upsert (uses < per_user_max), and the redemption row
 * (order_id unique) is written. Either refusal rolls the whole order back.
 */
export interface DiscountStore {
  /** Insert; the code is unique (else CODE_TAKEN). Both writes carry the admin's audit-trail entry, written only when they commit. */
  createDiscount(discount: DiscountCode, audit?: AuditEntryDraft | null): Promise<CreateDiscountOutcome>;
  getDiscount(code: string): Promise<DiscountCode | null>;
  /** Newest first (createdAt desc, then code). */
  listDiscounts(page: Page): Promise<DiscountCode[]>;
  /** Compare-and-set on status `from` (else stale). */
  disableDiscount(input: DisableDiscountInput, audit?: AuditEntryDraft | null): Promise<DisableDiscountOutcome>;
  /**
   * Gives the order's use back, once: its redemption is marked returned, and the code's and the
   * buyer's counters go down by one, in one transaction; an order with no use held answers
   * returned false and writes nothing. Called for a cancelled or expired unpaid order (the
   * discount-returns outbox sink) and, on refund, by the refund flow.
   */
  returnDiscountUse(input: ReturnDiscountUseInput): Promise<ReturnDiscountUseOutcome>;
  /**
   * Takes a given-back use again, once: an order cancelled unpaid (its use given back) whose money
   * arrived anyway and sold late keeps its discount, so it holds its use like any sold order
   * (issue 32 Why 7). The redemption's mark is cleared and both counters go up by one, in one
   * transaction, whatever max_uses says (the sale already happened at that price); an order whose
   * use was never given back answers returned false and writes nothing.
   */
  retakeDiscountUse(input: ReturnDiscountUseInput): Promise<ReturnDiscountUseOutcome>;
}
