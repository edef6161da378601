import { checkCodePool, judgeCode, limits, saleWindow, type CodePoolDraft, type SaleStatus } from '../domain/index.js';
import type { CodePool, CodePoolView, GrabbedCode, MyCode, OutboxEvent, Page } from '../ports/engine/index.js';
import { auditDraft, type Actor } from './audit-trail.js';
import type { AppContext } from './context.js';
import { passBuyerGate } from './buyer-gate.js';
import { AppError, unwrap } from './errors.js';
import { iso } from './views.js';

/** Codes per store batch of an import: one short transaction each, committed as the import goes. */
export const importBatchSize = 1_000;

export interface CodePoolDetail {
  poolId: string;
  title: string;
  description: string;
  imageUrl: string | null;
  saleStartsAt: string;
  saleEndsAt: string;
  status: SaleStatus;
  /** Seconds until the sale opens (UPCOMING) or closes (ON_SALE), from the server's clock. */
  secondsRemaining: number;
  imported: number;
  remaining: number;
  /** Whether the caller has a code of this pool; false when nobody is signed in. */
  participated: boolean;
  /** The caller's code, if any. */
  myCode: GrabbedCodeView | null;
}

export interface GrabbedCodeView {
  code: string;
  grabbedAt: string;
}

export interface MyCodeView extends GrabbedCodeView {
  poolId: string;
  poolTitle: string;
}

export interface ImportCounts {
  imported: number;
  duplicates: number;
  rejected: number;
}

/** An import's source failed (a body past its size limit, a CSV that does not parse) after some batches were committed. */
export class ImportInterrupted extends Error {
  constructor(readonly counts: ImportCounts, readonly reason: unknown) {
    super(`the import stopped after ${counts.imported + counts.duplicates + counts.rejected} codes: ${(reason as Error)?.message ?? String(reason)}`);
    this.name = 'ImportInterrupted';
  }
}

const grabbedView = (g: GrabbedCode): GrabbedCodeView => ({ code: g.code, grabbedAt: iso(g.grabbedAt) });

/**
 * A grab reads the pool's window from memory rather than ask the store (whose read also counts the
 * codes left). An organizer's change drops it here at once and on every other process through the
 * change feed's 'code-pool.changed' row (applyCodePoolEvent); until that row arrives a stale window
 * only costs a wrong early answer of the gate, since the grab's own statement checks the window
 * as stored. Bounded: the oldest is dropped.
 */
const poolCacheMax = 1_000;
const poolCaches = new WeakMap<CodePoolContext, Map<string, CodePool>>();

/** What creating, importing and grabbing need: the store, the clock and ids (the CLI builds no more). */
export type CodePoolContext = Pick<AppContext, 'store' | 'clock' | 'ids'>;

/** What a grab needs besides: the waiting rooms and the admission tokens, for the buyer gate. */
export type GrabContext = CodePoolContext & Pick<AppContext, 'rooms' | 'admission'>;

/** Drops a pool from this process's cache after an organizer's change (the next grab reads it again). */
export function forgetPool(ctx: CodePoolContext, poolId: string): void {
  poolCaches.get(ctx)?.delete(poolId);
}

/** Another process's row from the change feed: a changed pool is read again by the next grab here. */
export function applyCodePoolEvent(ctx: CodePoolContext, event: OutboxEvent): void {
  if (event.type === 'code-pool.changed' && typeof event.data.poolId === 'string') forgetPool(ctx, event.data.poolId);
}

async function poolOf(ctx: CodePoolContext, poolId: string): Promise<CodePool> {
  let cache = poolCaches.get(ctx);
  if (cache === undefined) poolCaches.set(ctx, (cache = new Map()));
  const known = cache.get(poolId);
  if (known !== undefined) return known;
  const view = await ctx.store.getCodePool(poolId);
  if (view === null) throw new AppError('CODE_POOL_NOT_FOUND', `no code pool ${poolId}`);
  const pool: CodePool = { poolId, title: view.title, description: view.description, imageUrl: view.imageUrl, saleStartsAt: view.saleStartsAt, saleEndsAt: view.saleEndsAt, createdAt: view.createdAt };
  if (cache.size >= poolCacheMax) cache.delete(cache.keys().next().value as string);
  cache.set(poolId, pool);
  return pool;
}

export async function createCodePool(ctx: CodePoolContext, draft: CodePoolDraft, actor: Actor | null = null): Promise<{ poolId: string }> {
  const checked = unwrap(checkCodePool(draft));
  const poolId = ctx.ids.newId('codePool');
  const audit = auditDraft(ctx, actor, {
    action: 'code_pool.created', entityType: 'code_pool', entityId: poolId, showId: poolId, before: null,
    after: { title: checked.title, description: checked.description, imageUrl: checked.imageUrl, saleStartsAt: checked.saleStartsAt, saleEndsAt: checked.saleEndsAt },
  });
  await ctx.store.createCodePool({ ...checked, poolId, createdAt: ctx.clock.now() }, audit);
  return { poolId };
}

export async function codePoolDetail(ctx: CodePoolContext, poolId: string, userId: string | null): Promise<CodePoolDetail> {
  const view: CodePoolView | null = await ctx.store.getCodePool(poolId);
  if (view === null) throw new AppError('CODE_POOL_NOT_FOUND', `no code pool ${poolId}`);
  const mine = userId === null ? null : await ctx.store.codeOfUser(poolId, userId);
  const window = saleWindow(view, ctx.clock.now());
  return {
    poolId, title: view.title, description: view.description, imageUrl: view.imageUrl,
    saleStartsAt: iso(view.saleStartsAt), saleEndsAt: iso(view.saleEndsAt), status: window.status, secondsRemaining: window.secondsRemaining,
    imported: view.imported, remaining: view.remaining, participated: mine !== null, myCode: mine === null ? null : grabbedView(mine),
  };
}

/**
 * A buyer's grab: their code if they have one (200, at any time), else, while the sale is open,
 * one popped from the pool (201). The store decides atomically; one code per buyer is its
 * unique index, so racing grabs by one buyer all answer the same code.
 */
export async function grabCode(ctx: GrabContext, poolId: string, userId: string, admissionToken?: string): Promise<{ fresh: boolean; grabbed: GrabbedCodeView }> {
  const pool = await poolOf(ctx, poolId);
  const had = await ctx.store.codeOfUser(poolId, userId);
  if (had !== null) return { fresh: false, grabbed: grabbedView(had) };
  const now = ctx.clock.now();
  // The offline switch and one code per buyer are the grab's own statement's, under its lock.
  passBuyerGate(ctx, {
    path: 'code-pool-grab', userId, admissionToken,
    activity: { activityId: poolId, saleStartsAt: pool.saleStartsAt, saleEndsAt: pool.saleEndsAt, cancelled: false, offline: null },
  });
  const outcome = await ctx.store.grabCode({ poolId, userId, now });
  if (outcome.ok) return { fresh: outcome.fresh, grabbed: grabbedView(outcome.grabbed) };
  if (outcome.code === 'SOLD_OUT') throw new AppError('SOLD_OUT', 'every code of this pool has been handed out');
  if (outcome.code === 'ACTIVITY_OFFLINE') throw new AppError('ACTIVITY_OFFLINE', 'this code pool has been taken offline by its organizer');
  if (outcome.code === 'SALE_NOT_OPEN') {
    // The statement saw a window other than this process's cached one (changed elsewhere, its feed
    // row not here yet): read it again, so the next grabs are refused by the gate, in memory.
    forgetPool(ctx, poolId);
    const stored = await poolOf(ctx, poolId);
    throw new AppError('SALE_NOT_OPEN', now >= stored.saleEndsAt ? 'the sale has ended' : 'the sale has not started yet', {
      saleStartsAt: iso(stored.saleStartsAt), saleEndsAt: iso(stored.saleEndsAt),
    });
  }
  throw new AppError('CODE_POOL_NOT_FOUND', `no code pool ${poolId}`);
}

export async function myCodes(ctx: CodePoolContext, userId: string, page: Page): Promise<MyCodeView[]> {
  const codes: MyCode[] = await ctx.store.codesOfUser(userId, { limit: Math.min(page.limit, limits.listPageSizeMax), offset: page.offset });
  return codes.map((c) => ({ poolId: c.poolId, poolTitle: c.poolTitle, ...grabbedView(c) }));
}

/**
 * Imports codes as they arrive (a CSV parser's records, a JSON array), a batch at a time: each
 * batch is one store transaction, committed before the next is read, so memory holds one batch
 * and a failure part-way (the body too large) leaves every batch before it imported. Codes are
 * trimmed; blank ones are skipped; over-long ones and ones with control characters are rejected
 * and counted. Idempotent: codes already in the pool count as duplicates.
 */
export async function importCodes(
  ctx: CodePoolContext, poolId: string, codes: AsyncIterable<string> | Iterable<string>, onBatch?: (counts: ImportCounts) => void,
): Promise<ImportCounts> {
  await poolOf(ctx, poolId);
  const counts: ImportCounts = { imported: 0, duplicates: 0, rejected: 0 };
  let batch: string[] = [];
  const commit = async (): Promise<void> => {
    if (batch.length === 0) return;
    const outcome = await ctx.store.importCodes({ poolId, codes: batch });
    batch = [];
    if (!outcome.ok) throw new AppError('CODE_POOL_NOT_FOUND', `no code pool ${poolId}`);
    counts.imported += outcome.imported;
    counts.duplicates += outcome.duplicates;
    onBatch?.({ ...counts });
  };
  try {
    for await (const raw of codes) {
      const code = raw.trim();
      const verdict = judgeCode(code);
      if (verdict === 'rejected') counts.rejected++;
      if (verdict !== 'ok') continue;
      batch.push(code);
      if (batch.length >= importBatchSize) await commit();
    }
  } catch (error) {
    if (error instanceof AppError) throw error;
    // The source failed: what was committed stays; the batch in hand is dropped, not half-written.
    throw new ImportInterrupted(counts, error);
  }
  await commit();
  return counts;
}
