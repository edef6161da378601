import type { BlockEntry } from '../../domain/index.js';

export type LiftBlockOutcome =
  | { readonly ok: true }
  /** No entry with that id. */
  | { readonly ok: false; readonly code: 'BLOCK_NOT_FOUND' }
  /** The entry is no longer ACTIVE (lifted meanwhile): re-read and decide again. */
  | { readonly ok: false; readonly stale: 'block' };

/** The blocklist (issue 24 item 4): admins write it rarely; every process caches it and re-reads it when its stamp moves. */
export interface BlocklistStore {
  /** Inserts a new ACTIVE entry (the domain built it: newBlock). One statement. */
  addBlock(entry: BlockEntry): Promise<void>;
  /**
   * Plan from liftBlock: precondition the entry is ACTIVE. Effect: status LIFTED, liftedAt set.
   * One conditional update; stale when it was not ACTIVE, BLOCK_NOT_FOUND when it does not exist.
   */
  liftBlock(plan: { readonly blockId: string; readonly liftedAt: number }): Promise<LiftBlockOutcome>;
  getBlock(blockId: string): Promise<BlockEntry | null>;
  /** Every ACTIVE entry (an expired one too: expiry is the reader's clock), oldest first, at most `limit`. */
  listActiveBlocks(limit: number): Promise<BlockEntry[]>;
  /**
   * A marker that changes whenever an entry is added or lifted (entries are never deleted), so a
   * process polls this one cheap read and re-reads the list only when it moved.
   */
  blocklistStamp(): Promise<string>;
}
