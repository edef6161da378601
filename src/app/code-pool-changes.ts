import { planCampaignChange, type CampaignChange } from '../domain/index.js';
import type { CodePoolView } from '../ports/engine/index.js';
import { auditDraft, campaignAction, type Actor } from './audit-trail.js';
import { forgetPool, type CodePoolContext } from './code-pools.js';
import { AppError, unwrap } from './errors.js';
import { again, done, withStaleRetries } from './stale-retry.js';

/**
 * An organizer's change of a code pool (PATCH /admin/activities/{id}, issue 23 item 1): words,
 * picture, the sale's end, offline or back on sale; decided on the stored version and applied
 * only on it. Offline and the window are enforced by the grab's own statement; this process's
 * cached window is dropped at once, the other processes' when the change's outbox row
 * 'code-pool.changed' reaches their change feed (applyCodePoolEvent).
 */
export async function changeCodePool(ctx: CodePoolContext, poolId: string, change: CampaignChange, actor: Actor | null = null): Promise<CodePoolView> {
  const pool = await withStaleRetries('updateCodePool', async () => {
    const stored = await ctx.store.getCodePool(poolId);
    if (stored === null) throw new AppError('ACTIVITY_NOT_FOUND', 'no such code pool');
    const next = unwrap(planCampaignChange({
      title: stored.title, description: stored.description, imageUrl: stored.imageUrl, saleStartsAt: stored.saleStartsAt, saleEndsAt: stored.saleEndsAt, offline: stored.offline,
    }, change));
    const before = { title: stored.title, description: stored.description, imageUrl: stored.imageUrl, saleStartsAt: stored.saleStartsAt, saleEndsAt: stored.saleEndsAt, offline: stored.offline };
    // A code pool is not a show: its own id stands for the show in the organizer's view.
    const audit = auditDraft(ctx, actor, { action: campaignAction('code_pool', before, next), entityType: 'code_pool', entityId: poolId, showId: poolId, before, after: { ...next } });
    const outcome = await ctx.store.updateCodePool({ poolId, expectedVersion: stored.version, details: next, audit, now: ctx.clock.now() });
    if (outcome.ok) return done(outcome.pool);
    if ('stale' in outcome) return again(outcome);
    throw new AppError('ACTIVITY_NOT_FOUND', 'no such code pool');
  });
  forgetPool(ctx, poolId);
  return pool;
}
