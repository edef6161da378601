import type { AuditEntryDraft } from './change-log.js';
import type { ActivitySummary, CampaignDetails } from '../../domain/index.js';
import type { KeysetPosition, Page, Stale } from './common.js';

/**
 * Code pools (issue 23 item 3, seed 004 券码): a campaign that hands out pre-loaded codes, one per
 * buyer. Codes are imported in batches; a grab pops one unassigned code and gives it to the buyer.
 */
export interface CodePool {
  readonly poolId: string;
  readonly title: string;
  readonly description: string;
  readonly imageUrl: string | null;
  readonly saleStartsAt: number;
  readonly saleEndsAt: number;
  readonly createdAt: number;
}

/** A pool with its counts as stored now. */
export interface CodePoolView extends CodePool {
  /** Codes ever imported into the pool. */
  readonly imported: number;
  /** Codes not yet handed out. */
  readonly remaining: number;
  /** Taken down by its organizer: no grabs (a buyer who has a code still sees it). */
  readonly offline: boolean;
  /** Raised by every organizer's change (compare-and-set). */
  readonly version: number;
}

export type UpdateCodePoolOutcome = { readonly ok: true; readonly pool: CodePoolView } | { readonly ok: false; readonly code: 'CODE_POOL_NOT_FOUND' } | Stale<'pool'>;

/** A code handed to a buyer. */
export interface GrabbedCode {
  readonly poolId: string;
  readonly code: string;
  readonly grabbedAt: number;
}

/** One of a buyer's codes with its pool's title ("my codes"). */
export interface MyCode extends GrabbedCode {
  readonly poolTitle: string;
}

export interface ImportCodesInput {
  readonly poolId: string;
  /** One batch, already checked (length, no control characters); may repeat itself. */
  readonly codes: readonly string[];
}

export type ImportCodesOutcome =
  | { readonly ok: true; readonly imported: number; readonly duplicates: number }
  | { readonly ok: false; readonly code: 'CODE_POOL_NOT_FOUND' };

export interface GrabCodeInput {
  readonly poolId: string;
  readonly userId: string;
  readonly now: number;
}

export type GrabCodeOutcome =
  /** `fresh`: this call handed the code out; false: the buyer already had it (one per buyer). */
  | { readonly ok: true; readonly fresh: boolean; readonly grabbed: GrabbedCode }
  | { readonly ok: false; readonly code: 'SOLD_OUT' | 'CODE_POOL_NOT_FOUND' | 'ACTIVITY_OFFLINE' | 'SALE_NOT_OPEN' };

/** A row of a pool's winners export, in (grabbedAt, code) order. */
export interface WinnerRow {
  readonly username: string;
  readonly code: string;
  readonly grabbedAt: number;
}

export interface CodePoolStore {
  /** As listFlashSaleActivities, for code pools (kind CODE_POOL), in the catalog's order (issue 23 item 1). */
  listCodePoolActivities(limit: number, now: number, withHidden: boolean): Promise<ActivitySummary[]>;
  /**
   * An organizer's change (PATCH /admin/activities/{id}): the details and offline, only on
   * `expectedVersion` (else stale), version + 1, and an outbox row 'code-pool.changed' {poolId,
   * version} in the same transaction, so every process drops the pool's cached window (the
   * change feed).
   */
  updateCodePool(input: { readonly poolId: string; readonly expectedVersion: number; readonly details: CampaignDetails; readonly audit?: AuditEntryDraft | null; readonly now?: number }): Promise<UpdateCodePoolOutcome>;
  /** Inserts the pool (its id is new). */
  createCodePool(pool: CodePool, audit?: AuditEntryDraft | null): Promise<void>;
  getCodePool(poolId: string): Promise<CodePoolView | null>;
  /**
   * One batch, one short transaction: every code not yet in the pool is inserted (the unique index
   * on (pool, code) decides, so a re-import or a repeat within the batch is a duplicate, never a
   * second row) and the pool's imported count rises by the number inserted.
   */
  importCodes(input: ImportCodesInput): Promise<ImportCodesOutcome>;
  /**
   * Pops one unassigned code and gives it to the buyer, atomically (one statement). One code per
   * buyer and pool is a unique index on (pool, user): a buyer who already has one gets it back
   * with fresh = false, however many grabs race. No unassigned code left: SOLD_OUT. The same
   * statement checks the pool as stored: taken offline (ACTIVITY_OFFLINE) or `now` outside its sale
   * window [saleStartsAt, saleEndsAt) (SALE_NOT_OPEN): a process whose cached window is stale
   * never hands out a code after an organizer's change, however its cache lags.
   */
  grabCode(input: GrabCodeInput): Promise<GrabCodeOutcome>;
  /** The buyer's code of the pool, or null. */
  codeOfUser(poolId: string, userId: string): Promise<GrabbedCode | null>;
  /** The buyer's codes, newest first. */
  codesOfUser(userId: string, page: Page): Promise<MyCode[]>;
  /** The next `limit` winners strictly after `after` in (grabbedAt, code) order: one index range. */
  winnersPage(poolId: string, after: KeysetPosition | null, limit: number): Promise<WinnerRow[]>;
}
