import { detailsOf, planShowEdit, type Show, type ShowEdit } from '../domain/index.js';
import { auditDraft, type Actor } from './audit-trail.js';
import type { AppContext } from './context.js';
import { AppError, unwrap } from './errors.js';
import { again, done, withStaleRetries } from './stale-retry.js';

/**
 * Edits a show's words and times. The domain decides on the show as stored now (planShowEdit);
 * the store applies it only on the version it was decided on, so of two edits at once the second
 * is decided again on top of the first and neither is lost. Whether anything is held or sold comes
 * from the read model's counters (a claim racing the edit is not seen: the rule it feeds only keeps
 * a running sale from being turned back to "upcoming"). The read model takes the new show at once,
 * so seat maps, their ETags and the catalog show it on the next read.
 */
export async function editShow(ctx: AppContext, showId: string, edit: ShowEdit, actor: Actor | null = null): Promise<Show> {
  return withStaleRetries('updateShow', async () => {
    const show = await ctx.store.getShow(showId);
    // A flash sale's show changes only by the campaign's rules (PATCH /admin/activities/{id}).
    if (show === null || show.campaign !== undefined) throw new AppError('SHOW_NOT_FOUND', 'no such show');
    const entry = await ctx.seatMaps.get(showId);
    const taken = entry !== null && [...entry.sections.values()].some((s) => s.capacity - Math.max(0, s.available) > 0);
    const plan = unwrap(planShowEdit(show, edit, ctx.clock.now(), { taken }));
    if (!plan.changed) return done(show);
    const details = detailsOf(plan.show);
    const audit = auditDraft(ctx, actor, { action: 'show.edited', entityType: 'show', entityId: showId, showId, before: { ...detailsOf(show) }, after: { ...details } });
    const outcome = await ctx.store.updateShow({ showId, expectedVersion: show.version, details, now: ctx.clock.now(), audit });
    if (!outcome.ok) {
      if ('stale' in outcome) return again(outcome);
      throw new AppError('SHOW_NOT_FOUND', 'no such show');
    }
    ctx.seatMaps.replaceShow(outcome.show);
    return done(outcome.show);
  });
}
