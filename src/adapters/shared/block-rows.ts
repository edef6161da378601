import type { BlockEntry, BlockStatus } from '../../domain/index.js';

/** A blocklist row as both adapters store it (one column per target kind, the other null). */
export interface BlockRow {
  readonly block_id: string;
  readonly kind: 'USER' | 'IP';
  readonly user_id: string | null;
  readonly username: string | null;
  readonly cidr: string | null;
  readonly reason: string;
  readonly created_by: string;
  readonly created_at: number | string;
  readonly expires_at: number | string | null;
  readonly status: BlockStatus;
  readonly lifted_at: number | string | null;
}

const time = (value: number | string | null): number | null => (value === null ? null : Number(value));

export const toBlock = (r: BlockRow): BlockEntry => ({
  blockId: r.block_id,
  target: r.kind === 'USER' ? { kind: 'USER', userId: r.user_id ?? '', username: r.username ?? '' } : { kind: 'IP', cidr: r.cidr ?? '' },
  reason: r.reason,
  createdBy: r.created_by,
  createdAt: Number(r.created_at),
  expiresAt: time(r.expires_at),
  status: r.status,
  liftedAt: time(r.lifted_at),
});

/** The insert's parameters in column order: block_id, kind, user_id, username, cidr, reason, created_by, created_at, expires_at, status. */
export const blockParams = (e: BlockEntry): unknown[] => [
  e.blockId, e.target.kind, e.target.kind === 'USER' ? e.target.userId : null, e.target.kind === 'USER' ? e.target.username : null,
  e.target.kind === 'IP' ? e.target.cidr : null, e.reason, e.createdBy, e.createdAt, e.expiresAt, e.status,
];

/** Entries are never deleted: the count and the number lifted together move on every add and lift. */
export const blocklistStampSql = "SELECT COUNT(*) AS n, COUNT(lifted_at) AS lifted FROM blocklist";
