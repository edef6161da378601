import { checkJoin, claimWindowMs, isCounted, seatLimitOf, waitlistLimits, type WaitlistEntry } from '../domain/index.js';
import { passBuyerGate, showActivity } from './buyer-gate.js';
import { offersOpen } from './waitlist-terms.js';
import type { InventoryChanges, OutboxEvent, OutboxSink } from '../ports/engine/index.js';
import type { AppContext } from './context.js';
import { AppError, found, unwrap } from './errors.js';
import { scheduleExpiry } from './expiry.js';
import { iso } from './views.js';

/**
 * The waitlist (候补, issue 25 item 5). Joining is one store operation guarded by "one live entry
 * per buyer and show". Seats that come back are offered by the store's offerWaitlist, one atomic
 * operation that picks the next WAITING entry and creates its hold on the freed seats, from two
 * places: right after this process frees seats itself (offerFreed), and from the outbox relay sink
 * 'waitlist' for what any process freed (expiry, release, a cancelled order, a refund). The offer
 * is an ordinary hold, paid through the usual checkout before it lapses.
 */

export interface WaitlistEntryView {
  entryId: string;
  showId: string;
  sectionId: string | null;
  quantity: number;
  status: WaitlistEntry['status'];
  joinedAt: string;
  holdId: string | null;
  claimUntil: string | null;
}

export const waitlistEntryView = (e: WaitlistEntry): WaitlistEntryView => ({
  entryId: e.entryId, showId: e.showId, sectionId: e.sectionId, quantity: e.quantity, status: e.status,
  joinedAt: iso(e.joinedAt), holdId: e.holdId, claimUntil: e.claimUntil === null ? null : iso(e.claimUntil),
});

/** Offers passed per call: each is one entry served; bounded so one call never runs long. */
const offersPerPassMax = 20;

const claimMs = (ctx: AppContext): number => claimWindowMs(ctx.policy.waitlistClaimSeconds ?? waitlistLimits.claimSecondsDefault);

export async function joinWaitlist(ctx: AppContext, userId: string, showId: string, body: { section?: string; quantity: number }, admissionToken?: string): Promise<WaitlistEntryView> {
  const show = found(await ctx.store.getShow(showId), 'SHOW_NOT_FOUND', 'no such show');
  // Before the entry is written: a refusal leaves nothing queued and nothing offered.
  passBuyerGate(ctx, { path: 'waitlist-join', userId, activity: showActivity(show), admissionToken });
  const sections = new Map(show.seatMap.sections.map((s) => [s.id, { seatBySeat: !isCounted(s) }]));
  const sectionId = body.section ?? null;
  const cap = seatLimitOf(show, ctx.policy.maxSeatsPerUserDefault);
  // The show's per-buyer cap answers as it does for a hold (the same refusal on every path).
  if (Number.isInteger(body.quantity) && body.quantity > cap) {
    throw new AppError('PURCHASE_LIMIT_REACHED', `one buyer may have at most ${cap} seats of this show`, { limit: cap, claimed: 0, requested: body.quantity });
  }
  unwrap(checkJoin({ quantity: body.quantity, sectionId }, sections, cap));
  const outcome = await ctx.store.joinWaitlist({ entryId: ctx.ids.newId('waitlistEntry'), showId, userId, sectionId, quantity: body.quantity, now: ctx.clock.now() });
  if (!outcome.ok) throw new AppError('WAITLIST_ALREADY_JOINED', 'you are already on the waitlist for this show', outcome.entry === null ? undefined : { entryId: outcome.entry.entryId });
  // Seats may be free already (released before anyone waited): the line moves now, not on the next release.
  const offered = await offerFreed(ctx, showId);
  const mine = offered.find((e) => e.entryId === outcome.entry.entryId);
  return waitlistEntryView(mine ?? outcome.entry);
}

export async function leaveWaitlist(ctx: AppContext, userId: string, showId: string): Promise<WaitlistEntryView> {
  const outcome = await ctx.store.leaveWaitlist({ showId, userId, now: ctx.clock.now() });
  if (!outcome.ok) throw new AppError('WAITLIST_NOT_FOUND', 'you are not on the waitlist for this show');
  return waitlistEntryView(outcome.entry);
}

export async function myWaitlist(ctx: AppContext, userId: string): Promise<WaitlistEntryView[]> {
  return (await ctx.store.waitlistOfUser(userId, waitlistLimits.entriesPerUserListMax)).map(waitlistEntryView);
}

/**
 * Offers what is free in the show to the entries in line, one atomic store operation per entry
 * served, until nothing more can be offered (bounded). Answers the entries offered.
 */
export async function offerFreed(ctx: AppContext, showId: string): Promise<WaitlistEntry[]> {
  const show = await ctx.store.getShow(showId);
  if (show === null || !offersOpen(ctx, show)) return [];
  const offered: WaitlistEntry[] = [];
  for (let i = 0; i < offersPerPassMax; i++) {
    const now = ctx.clock.now();
    const outcome = await ctx.store.offerWaitlist({
      showId, holdId: ctx.ids.newId('hold'), now, claimUntil: now + claimMs(ctx), userUnitsMax: seatLimitOf(show, ctx.policy.maxSeatsPerUserDefault),
    });
    if (!outcome.ok) break;
    scheduleExpiry(ctx, outcome.hold);
    offered.push(outcome.entry);
  }
  return offered;
}

/** Whether a change gave anything back (a seat AVAILABLE again, or stock up). */
const freesSomething = (changes: InventoryChanges | null): boolean =>
  changes !== null && (changes.seats.some((s) => s.status === 'AVAILABLE') || changes.stock.some((s) => s.delta > 0));

const holdIdOf = (event: OutboxEvent): string | null => (typeof event.data.holdId === 'string' ? event.data.holdId : null);

/**
 * The outbox relay sink 'waitlist': an offered hold that was paid marks its entry CLAIMED, one
 * that expired or was released marks it LAPSED; then every show where something came back is
 * offered to its line. At least once: a redelivered page settles nothing twice (the settle is
 * conditional on OFFERED) and offers only what is still free. A failure throws: the same page again.
 */
export function waitlistSink(ctx: AppContext): OutboxSink {
  return {
    name: 'waitlist',
    async deliver(events) {
      const shows = new Set<string>();
      for (const event of events) {
        const holdId = holdIdOf(event);
        const now = ctx.clock.now();
        if (holdId !== null && (event.type === 'order.paid' || event.type === 'tickets.issued')) await ctx.store.settleWaitlistOffer({ holdId, event: 'CLAIM', now });
        if (holdId !== null && (event.type === 'hold.expired' || event.type === 'hold.released')) await ctx.store.settleWaitlistOffer({ holdId, event: 'LAPSE', now });
        if (event.showId !== null && freesSomething(event.changes)) shows.add(event.showId);
      }
      for (const showId of shows) {
        if ((await ctx.store.waitingCount(showId)) > 0) await offerFreed(ctx, showId);
      }
    },
  };
}
