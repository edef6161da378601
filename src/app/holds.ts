import { checkClaimRequest, extendHold, isCounted, limits, releaseHold as releaseByOwner, seatLimitOf, type Hold, type SeatPoint, type Show } from '../domain/index.js';
import { StoreBusyError, type ClaimBase, type ClaimOutcome, type Page } from '../ports/engine/index.js';
import type { ShowSeats } from './seat-map-cache.js';
import type { AppContext } from './context.js';
import { passBuyerGate, showActivity } from './buyer-gate.js';
import { AppError, found, unwrap } from './errors.js';
import { cancelExpiry } from './enqueue.js';
import { rescheduleExpiry, scheduleExpiry } from './expiry.js';
import { claimSeatsThroughGate, claimUnitsThroughGate } from './gated-claim.js';
import { again, done, withStaleRetries } from './stale-retry.js';
import { scheduleOffered, waitlistTerms } from './waitlist-terms.js';
import { holdTermsView, holdView, iso, type MyHoldView } from './views.js';

export type HoldRequest =
  | { readonly kind: 'seats'; readonly seatIds: readonly string[] }
  /**
   * N seats chosen by the store (best-available), or N units of a counted section when `section`
   * names one (general admission, or a seated section sold by quantity).
   */
  | {
      readonly kind: 'best';
      readonly quantity: number;
      readonly adjacent: boolean;
      readonly section?: string;
      readonly near?: SeatPoint;
      /** How many of the seats must be accessible. */
      readonly accessible?: number;
    };

export interface PlaceHoldCommand {
  readonly userId: string;
  readonly showId: string;
  readonly request: HoldRequest;
  readonly holdSeconds?: number;
  /** The buyer gate's inputs: the path (a hold, or the new side of an exchange) and the X-Admission-Token sent. */
  readonly gate?: { readonly path: 'hold' | 'exchange'; readonly admissionToken: string | undefined; readonly organizer?: boolean };
  /** The new hold's id when the caller chose it (a keyed request's, keyedHoldId); else a fresh one. */
  readonly holdId?: string;
}

export interface PlacedHold {
  readonly hold: Hold;
  /** Whether the held seats sit side by side in one row, so the buyer knows before paying. */
  readonly adjacent: boolean;
}

export async function holdSeats(ctx: AppContext, command: PlaceHoldCommand): Promise<PlacedHold> {
  const started = performance.now();
  try {
    const placed = await placeHold(ctx, command);
    ctx.telemetry.holdAttempt('HELD', (performance.now() - started) / 1000);
    ctx.seatMaps.feed.pulse.record(command.showId, 'HELD', ctx.clock.now());
    return placed;
  } catch (error) {
    const outcome = error instanceof AppError ? error.code : error instanceof StoreBusyError ? 'BUSY' : 'ERROR';
    ctx.telemetry.holdAttempt(outcome, (performance.now() - started) / 1000);
    // An unknown show is not charted (no ring for ids nobody sells).
    if (outcome !== 'SHOW_NOT_FOUND') ctx.seatMaps.feed.pulse.record(command.showId, outcome, ctx.clock.now());
    throw error;
  }
}

/**
 * One claim operation of the store: it decides against the current state which seats or units
 * are free, so there is nothing to retry here (concurrent buyers get different seats).
 */
async function placeHold(ctx: AppContext, command: PlaceHoldCommand): Promise<PlacedHold> {
  // The read model's copy of the show: its seat map never changes, and an edit replaces the copy (replaceShow) as it commits.
  const entry = found(await ctx.seatMaps.get(command.showId), 'SHOW_NOT_FOUND', 'no such show');
  const { show } = entry;
  // A flash sale's stock is sold through its own route (its offline switch, its order kind).
  if (show.campaign !== undefined) throw new AppError('SHOW_NOT_FOUND', 'no such show: this is a flash sale (POST /flash-sales/{id}/orders)');
  const { request } = command;
  passBuyerGate(ctx, {
    path: command.gate?.path ?? 'hold', userId: command.userId, activity: showActivity(show),
    admissionToken: command.gate?.admissionToken, ...(command.gate?.organizer === true ? { organizer: true } : {}),
  });
  const now = ctx.clock.now();
  const units = request.kind === 'seats' ? request.seatIds.length : request.quantity;
  const { expiresAt } = unwrap(checkClaimRequest({
    show,
    units,
    ...(request.kind === 'seats' ? { seatIds: request.seatIds } : {}),
    holdSeconds: command.holdSeconds ?? ctx.policy.holdSecondsDefault,
    holdSecondsMax: ctx.policy.holdSecondsMax,
    now,
  }));
  const base: ClaimBase = {
    holdId: command.holdId ?? ctx.ids.newId('hold'),
    showId: show.showId,
    userId: command.userId,
    now,
    expiresAt,
    userUnitsMax: seatLimitOf(show, ctx.policy.maxSeatsPerUserDefault),
  };
  let outcome: ClaimOutcome;
  try {
    outcome = await claim(ctx, entry, show, base, request);
  } catch (error) {
    // A claim writes the hold for the token's user; a user the store does not know (a token that
    // outlived its account, e.g. a database reset under the same signing secret) fails the
    // storage's foreign key. Asked only on this failure path, so a claim costs nothing more.
    // Refusals (AppError) and busy answers are what they say; only a fault is looked into.
    if (!(error instanceof AppError) && !(error instanceof StoreBusyError) && (await ctx.store.getUser(command.userId)) === null) {
      throw new AppError('UNAUTHORIZED', 'this account no longer exists; sign in again');
    }
    throw error;
  }
  return placed(ctx, outcome, request);
}

async function claim(ctx: AppContext, entry: ShowSeats, show: Show, base: ClaimBase, request: HoldRequest): Promise<ClaimOutcome> {
  let outcome: ClaimOutcome;
  if (request.kind === 'seats') {
    // Seats of a section sold by quantity are picked at ticketing; no one may name them.
    const counted = new Set(show.seatMap.sections.filter(isCounted).map((s) => s.id));
    const notForSale = ctx.seatMaps.placesOf(entry, request.seatIds).filter((p) => counted.has(p.section)).map((p) => p.seatId);
    if (notForSale.length > 0) throw new AppError('SEAT_NOT_FOUND', 'these seats are sold by quantity: hold a quantity of their section', { seatIds: notForSale });
    // Fast path: a seat the read model already knows is taken fails here, without a transaction.
    const refuseKnownTaken = (): void => {
      if (!ctx.seatMaps.allAvailable(entry, request.seatIds)) {
        throw new AppError('SEAT_UNAVAILABLE', 'some seats are no longer available', {
          seatIds: request.seatIds.filter((id) => !ctx.seatMaps.allAvailable(entry, [id])),
        });
      }
    };
    refuseKnownTaken();
    // Then the shared Redis gate, when configured, which also knows what other processes just took.
    const claimInStore = (): Promise<ClaimOutcome> => ctx.store.claimSeats({ ...base, seatIds: request.seatIds });
    outcome = ctx.gate === undefined ? await claimInStore() : await claimSeatsThroughGate(ctx.gate, entry, request.seatIds, claimInStore);
  } else {
    const section = request.section === undefined ? undefined : show.seatMap.sections.find((s) => s.id === request.section);
    if (request.section !== undefined && section === undefined) throw new AppError('SECTION_NOT_FOUND', `no section ${request.section} in this show`);
    // Fast paths, as for named seats: a section the read model knows cannot serve the quantity
    // refuses here, so the losers pressing "buy" again on a sold-out show never reach the store
    // (on PostgreSQL they had taken the connections the winners needed to check out).
    if (section !== undefined && isCounted(section)) {
      if ((request.accessible ?? 0) > 0) throw new AppError('NOT_ENOUGH_SEATS', 'seats of this section are picked when tickets are issued; accessible seats cannot be asked for');
      const refuseKnownShort = (): void => {
        if (ctx.seatMaps.stockBelow(entry, section.id, request.quantity)) {
          throw new AppError('NOT_ENOUGH_SEATS', `no places left for ${request.quantity}`, { available: entry.sections.get(section.id)?.available ?? 0 });
        }
      };
      refuseKnownShort();
      const claimInStore = (): Promise<ClaimOutcome> => ctx.store.claimUnits({ ...base, sectionId: section.id, quantity: request.quantity });
      outcome = ctx.gate === undefined ? await claimInStore() : await claimUnitsThroughGate(ctx.gate, show.showId, section.id, request.quantity, claimInStore);
    } else {
      if (ctx.seatMaps.seatsBelow(entry, section?.id, request.quantity)) throw new AppError('NOT_ENOUGH_SEATS', `no seats left for ${request.quantity}`);
      outcome = await ctx.store.claimBestAvailable({
        ...base,
        quantity: request.quantity,
        adjacentOnly: request.adjacent,
        ...(section === undefined ? {} : { sectionId: section.id }),
        ...(request.near === undefined ? {} : { near: request.near }),
        ...(request.accessible === undefined || request.accessible === 0 ? {} : { accessibleMin: request.accessible }),
      });
    }
  }
  return outcome;
}

function placed(ctx: AppContext, outcome: ClaimOutcome, request: HoldRequest): PlacedHold {
  if (outcome.ok) {
    scheduleExpiry(ctx, outcome.hold);
    return { hold: outcome.hold, adjacent: outcome.adjacent };
  }
  switch (outcome.code) {
    case 'SEAT_NOT_FOUND':
      throw new AppError('SEAT_NOT_FOUND', 'some seats do not exist in this show, or are sold by quantity', { seatIds: outcome.seatIds });
    case 'SEAT_UNAVAILABLE':
      throw new AppError('SEAT_UNAVAILABLE', 'some seats are no longer available', { seatIds: outcome.seatIds });
    case 'NOT_ENOUGH_SEATS': {
      const adjacent = request.kind === 'best' && request.adjacent ? 'adjacent ' : '';
      const quantity = request.kind === 'best' ? request.quantity : request.seatIds.length;
      throw new AppError('NOT_ENOUGH_SEATS', `no ${adjacent}seats left for ${quantity}`, outcome.available === undefined ? undefined : { available: outcome.available });
    }
    case 'PURCHASE_LIMIT_REACHED': {
      const requested = request.kind === 'best' ? request.quantity : request.seatIds.length;
      throw new AppError('PURCHASE_LIMIT_REACHED', `one buyer may hold or buy at most ${outcome.limit} seats of this show`, {
        limit: outcome.limit, claimed: outcome.claimed, requested,
      });
    }
  }
}

/** More time for the buyer; the scheduled release moves with the new expiry. */
export async function extendHoldFor(ctx: AppContext, userId: string, holdId: string, extendSeconds: number): Promise<Hold> {
  const extended = await withStaleRetries('hold', async () => {
    const hold = found(await ctx.store.getHold(holdId), 'HOLD_NOT_FOUND', 'no such hold');
    const next = unwrap(extendHold({
      hold,
      userId,
      extendSeconds,
      extensionsMax: ctx.policy.holdExtensionsMax,
      lifeSecondsMax: ctx.policy.holdLifeSecondsMax,
      now: ctx.clock.now(),
    }));
    const outcome = await ctx.store.extendHold({
      holdId, expectedExpiresAt: hold.expiresAt, expectedExtensions: hold.extensions, expiresAt: next.expiresAt, extensions: next.extensions,
    });
    if (outcome.ok) return done(outcome.hold);
    if ('code' in outcome) throw new AppError('HOLD_NOT_FOUND', 'no such hold');
    return again(outcome);
  });
  rescheduleExpiry(ctx, extended);
  return extended;
}

/** The buyer gives the seats back. A pending order on the hold is cancelled with it. */
export async function releaseHold(ctx: AppContext, userId: string, holdId: string): Promise<Hold> {
  const released = await withStaleRetries('hold', async () => {
    const hold = found(await ctx.store.getHold(holdId), 'HOLD_NOT_FOUND', 'no such hold');
    const now = ctx.clock.now();
    const event = unwrap(releaseByOwner(hold, userId, now));
    const outcome = await ctx.store.lapseHold({ holdId, event, expectedExpiresAt: hold.expiresAt, now, waitlist: await waitlistTerms(ctx, hold, now) });
    if (outcome.ok) {
      scheduleOffered(ctx, outcome);
      return done(outcome.hold);
    }
    if ('code' in outcome) throw new AppError('HOLD_NOT_FOUND', 'no such hold');
    return again(outcome);
  });
  cancelExpiry(ctx, holdId);
  ctx.telemetry.holdReleased('RELEASED');
  return released;
}

/**
 * The buyer's live holds (ACTIVE, not yet due), soonest to expire first, each with its show and
 * what the buyer needs to extend it, so any page can resume a hold after a reload, in another tab
 * or after signing in again. One page of at most limits.myHoldsPageSizeMax holds, and one show
 * read per distinct show of the page.
 */
export async function listMyHolds(ctx: AppContext, userId: string, page: Page): Promise<MyHoldView[]> {
  const holds = await ctx.store.activeHoldsOfUser(userId, ctx.clock.now(), { limit: Math.min(page.limit, limits.myHoldsPageSizeMax), offset: page.offset });
  const showIds = [...new Set(holds.map((h) => h.showId))];
  const shows = new Map<string, Show>();
  for (const show of await Promise.all(showIds.map((id) => ctx.store.getShow(id)))) if (show !== null) shows.set(show.showId, show);
  return holds.flatMap((hold) => {
    const show = shows.get(hold.showId);
    // A hold always has its show (shows are never deleted); if not, there is nothing to resume.
    if (show === undefined) return [];
    return [{
      ...holdView(hold),
      ...holdTermsView(hold, ctx.policy),
      show: { showId: show.showId, title: show.title, startsAt: iso(show.startsAt), venue: show.venue, city: show.city },
    }];
  });
}
