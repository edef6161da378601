import { limits } from './limits.js';
import { fail, ok, type Result } from './result.js';
import { blockMachine, type BlockStatus } from './states.js';

/** Who a block shuts out of the buying routes: one account, or every request from an address range. */
export type BlockTarget =
  | { readonly kind: 'USER'; readonly userId: string; readonly username: string }
  /** An address, or a CIDR block (IPv4 or IPv6), as the edge validated and normalised it. */
  | { readonly kind: 'IP'; readonly cidr: string };

/** An entry of the blocklist. LIFTED entries are kept (who lifted what, when); only ACTIVE ones block. */
export interface BlockEntry {
  readonly blockId: string;
  readonly target: BlockTarget;
  readonly reason: string;
  /** The admin who added it. */
  readonly createdBy: string;
  readonly createdAt: number;
  /** Epoch ms after which it no longer blocks; null: until lifted. */
  readonly expiresAt: number | null;
  readonly status: BlockStatus;
  readonly liftedAt: number | null;
}

export interface NewBlockInput {
  readonly blockId: string;
  readonly target: BlockTarget;
  readonly reason: string;
  readonly createdBy: string;
  readonly expiresAt: number | null;
  readonly now: number;
}

/** A new ACTIVE entry; its reason must say something and its expiry, when given, lie ahead. */
export function newBlock(input: NewBlockInput): Result<BlockEntry> {
  const reason = input.reason.trim();
  if (reason.length === 0 || reason.length > limits.blockReasonLengthMax) {
    return fail('INVALID_BLOCK', `a block needs a reason of 1-${limits.blockReasonLengthMax} characters`);
  }
  if (input.expiresAt !== null && input.expiresAt <= input.now) return fail('INVALID_BLOCK', 'expiresAt must be in the future');
  return ok({
    blockId: input.blockId, target: input.target, reason, createdBy: input.createdBy, createdAt: input.now,
    expiresAt: input.expiresAt, status: 'ACTIVE', liftedAt: null,
  });
}

/** The entry lifted (DELETE): through the block machine, so a lifted entry is never lifted twice. */
export function liftBlock(entry: BlockEntry, now: number): Result<BlockEntry> {
  const moved = blockMachine.transition(entry.status, 'LIFT');
  if (!moved.ok) return moved;
  return ok({ ...entry, status: moved.value, liftedAt: now });
}

/** Whether the entry shuts its target out at `now`: ACTIVE and not past its expiry. */
export function blockInForce(entry: BlockEntry, now: number): boolean {
  return entry.status === 'ACTIVE' && (entry.expiresAt === null || entry.expiresAt > now);
}
