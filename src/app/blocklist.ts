import { auditDraft, type Actor } from './audit-trail.js';
import { BlockList, isIP } from 'node:net';
import { blockInForce, liftBlock, limits, newBlock, type BlockEntry, type BlockTarget } from '../domain/index.js';
import type { AppContext } from './context.js';
import { AppError, found, unwrap } from './errors.js';
import { releaseHold } from './holds.js';
import { again, done, withStaleRetries } from './stale-retry.js';

/** Entries a process keeps in memory (and the most an admin may add while that many are active). */
export const blocklistEntriesMax = 10_000;
/** Pages of the buyer's holds released when they are blocked (bounded; the rest lapse on their own). */
const releasePagesMax = 50;

/**
 * What the composition root hangs on a block of a known buyer, run after their holds are
 * released: e.g. the waiting room's blockQueuePlaces(ctx, userId). A hook that fails is reported
 * (onHookError), never undoes the block.
 */
export interface BlocklistHooks {
  readonly onBuyerBlocked: Array<(userId: string) => Promise<void>>;
  readonly onHookError?: (error: unknown) => void;
}

export type BlockRequest =
  | { readonly username: string; readonly reason: string; readonly expiresAt: number | null }
  | { readonly ip: string; readonly reason: string; readonly expiresAt: number | null };

/** `::ffff:1.2.3.4` (an IPv4 client on a dual-stack socket) is 1.2.3.4. */
export function plainAddress(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  return mapped?.[1] ?? ip.toLowerCase();
}

/** An address or CIDR in one written form (lower case, a mapped IPv4 unwrapped), or null when it is neither. */
export function normalCidr(input: string): string | null {
  const [address = '', prefix, ...rest] = input.trim().split('/');
  if (rest.length > 0) return null;
  const plain = plainAddress(address);
  const family = isIP(plain);
  if (family === 0) return null;
  if (prefix === undefined) return plain;
  if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > (family === 4 ? 32 : 128)) return null;
  return `${plain}/${Number(prefix)}`;
}

function addTo(list: BlockList, cidr: string): void {
  const [address = '', prefix] = cidr.split('/');
  const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
  if (prefix === undefined) list.addAddress(address, family);
  else list.addSubnet(address, Number(prefix), family);
}

/** The blocklist as one process holds it: checked on every buying request with no store read. */
class BlocklistCache {
  private users = new Map<string, BlockEntry>();
  private addresses = new BlockList();
  private entries: readonly BlockEntry[] = [];
  /** The earliest expiry among the entries in force: past it, the sets are rebuilt without it. */
  private nextExpiry = Number.POSITIVE_INFINITY;

  replace(entries: readonly BlockEntry[], now: number): void {
    this.entries = entries;
    this.rebuild(now);
  }

  add(entry: BlockEntry, now: number): void {
    this.replace([...this.entries.filter((e) => e.blockId !== entry.blockId), entry], now);
  }

  remove(blockId: string, now: number): void {
    this.replace(this.entries.filter((e) => e.blockId !== blockId), now);
  }

  /** The entry in force that shuts this user or address out, or null. */
  check(userId: string, ip: string, now: number): BlockTarget | null {
    if (now >= this.nextExpiry) this.rebuild(now);
    const byUser = this.users.get(userId);
    if (byUser !== undefined) return byUser.target;
    const address = plainAddress(ip);
    const family = isIP(address);
    if (family !== 0 && this.addresses.check(address, family === 6 ? 'ipv6' : 'ipv4')) return { kind: 'IP', cidr: address };
    return null;
  }

  private rebuild(now: number): void {
    const users = new Map<string, BlockEntry>();
    const addresses = new BlockList();
    let nextExpiry = Number.POSITIVE_INFINITY;
    for (const entry of this.entries) {
      if (!blockInForce(entry, now)) continue;
      if (entry.expiresAt !== null) nextExpiry = Math.min(nextExpiry, entry.expiresAt);
      if (entry.target.kind === 'USER') users.set(entry.target.userId, entry);
      else addTo(addresses, entry.target.cidr);
    }
    this.users = users;
    this.addresses = addresses;
    this.nextExpiry = nextExpiry;
  }
}

/**
 * The blocklist (issue 24 item 4): admins add and lift entries; each process keeps the entries in
 * memory and re-reads them only when the store's stamp moved (refresh(), polled), so checking a
 * buying request costs no store read. This process's own changes apply at once; another
 * process's within one refresh interval.
 */
export class Blocklist {
  private readonly cache = new BlocklistCache();
  private stamp: string | null = null;

  constructor(private readonly ctx: AppContext, readonly hooks: BlocklistHooks = { onBuyerBlocked: [] }) {}

  /** Refuses a buying request from a blocked buyer or address with 403 BLOCKED. No store read. */
  assertNotBlocked(userId: string, ip: string): void {
    const target = this.cache.check(userId, ip, this.ctx.clock.now());
    if (target !== null) {
      throw new AppError('BLOCKED', target.kind === 'USER' ? 'this account may not buy now' : 'requests from this address may not buy now');
    }
  }

  /** Re-reads the entries when another process (or this one) changed them since the last read. */
  async refresh(): Promise<void> {
    const stamp = await this.ctx.store.blocklistStamp();
    if (stamp === this.stamp) return;
    const entries = await this.ctx.store.listActiveBlocks(blocklistEntriesMax);
    this.cache.replace(entries, this.ctx.clock.now());
    this.stamp = stamp;
  }

  /**
   * Adds an entry. A buyer's block also releases their active holds (the owner's release, so each
   * seat goes back once, with its order cancelled) and runs the onBuyerBlocked hooks.
   */
  async block(request: BlockRequest, createdBy: string, actor?: Actor): Promise<BlockEntry> {
    const now = this.ctx.clock.now();
    let target: BlockTarget;
    if ('username' in request) {
      const user = found(await this.ctx.store.findUserByUsername(request.username), 'USER_NOT_FOUND', `no user named ${request.username}`);
      // An admin is demoted first (setRole refuses the last one, atomically): no block can lock the last admin out.
      if (user.role === 'ADMIN') throw new AppError('INVALID_BLOCK', 'an ADMIN account cannot be blocked; take the ADMIN role away first (the last ADMIN keeps it)');
      target = { kind: 'USER', userId: user.userId, username: user.username };
    } else {
      const cidr = normalCidr(request.ip);
      if (cidr === null) throw new AppError('INVALID_BLOCK', 'ip must be an IPv4 or IPv6 address, or a CIDR block such as 203.0.113.0/24');
      // A /0 (0.0.0.0/0, ::/0) blocks every buyer at once: a mistake, or an outage by one request.
      if (cidr.endsWith('/0')) throw new AppError('INVALID_BLOCK', 'a block may not cover every address (/0); name the addresses to block');
      target = { kind: 'IP', cidr };
    }
    if ((await this.ctx.store.listActiveBlocks(blocklistEntriesMax)).length >= blocklistEntriesMax) {
      throw new AppError('INVALID_BLOCK', `the blocklist holds at most ${blocklistEntriesMax} active entries: lift some first`);
    }
    const entry = unwrap(newBlock({ blockId: this.ctx.ids.newId('block'), target, reason: request.reason, createdBy, expiresAt: request.expiresAt, now }));
    await this.ctx.store.addBlock(entry, auditDraft(this.ctx, actor, {
      action: 'blocklist.added', entityType: 'blocklist', entityId: entry.blockId, showId: null, before: null,
      after: { kind: target.kind, username: target.kind === 'USER' ? target.username : null, ip: target.kind === 'IP' ? target.cidr : null, reason: entry.reason, expiresAt: entry.expiresAt },
    }));
    this.cache.add(entry, now);
    if (target.kind === 'USER') await this.shutOut(target.userId);
    return entry;
  }

  /** Lifts an entry (DELETE): it stops blocking at once here, elsewhere within a refresh. */
  async lift(blockId: string, actor?: Actor): Promise<BlockEntry> {
    const lifted = await withStaleRetries('blocklist entry', async () => {
      const entry = found(await this.ctx.store.getBlock(blockId), 'BLOCK_NOT_FOUND', 'no such blocklist entry');
      if (entry.status !== 'ACTIVE') throw new AppError('BLOCK_NOT_FOUND', 'this blocklist entry was already lifted');
      const next = unwrap(liftBlock(entry, this.ctx.clock.now()));
      const audit = auditDraft(this.ctx, actor, { action: 'blocklist.lifted', entityType: 'blocklist', entityId: blockId, showId: null, before: { status: entry.status }, after: { status: next.status } });
      const outcome = await this.ctx.store.liftBlock({ blockId, liftedAt: next.liftedAt ?? this.ctx.clock.now() }, audit);
      if (outcome.ok) return done(next);
      if ('code' in outcome) throw new AppError('BLOCK_NOT_FOUND', 'no such blocklist entry');
      return again(outcome);
    });
    this.cache.remove(blockId, this.ctx.clock.now());
    return lifted;
  }

  /** The entries in force (ACTIVE and not expired), oldest first. */
  async list(): Promise<BlockEntry[]> {
    const now = this.ctx.clock.now();
    return (await this.ctx.store.listActiveBlocks(blocklistEntriesMax)).filter((e) => blockInForce(e, now));
  }

  /** Polls refresh() every `intervalMs` (unref'd); returns the stop. Failures are reported and retried next tick. */
  startRefreshing(intervalMs: number, onError: (error: unknown) => void): () => void {
    let running = false;
    const timer = setInterval(() => {
      if (running) return;
      running = true;
      this.refresh().catch(onError).finally(() => { running = false; });
    }, intervalMs);
    timer.unref();
    return () => clearInterval(timer);
  }

  private async shutOut(userId: string): Promise<void> {
    for (let page = 0; page < releasePagesMax; page++) {
      const holds = await this.ctx.store.activeHoldsOfUser(userId, this.ctx.clock.now(), { limit: limits.myHoldsPageSizeMax, offset: 0 });
      if (holds.length === 0) break;
      // A hold that lapsed or was paid meanwhile is simply not released; the next page moves on.
      const released = await Promise.all(holds.map((hold) => releaseHold(this.ctx, userId, hold.holdId).then(() => true, () => false)));
      if (!released.some(Boolean)) break;
    }
    for (const hook of this.hooks.onBuyerBlocked) {
      await hook(userId).catch((error: unknown) => this.hooks.onHookError?.(error));
    }
  }
}
