import { chooseBestAvailable, extendHold, formsAdjacentRun, lapseHold, limits, placeHold, type Hold, type SeatPoint, type Show } from '../domain/index.js';
import type { AppContext } from './context.js';
import { AppError, found, unwrap } from './errors.js';
import { scheduleExpiry } from './expiry.js';
import { cancelLiveOrder } from './order-cancellation.js';

export type HoldRequest =
  | { readonly kind: 'seats'; readonly seatIds: readonly string[] }
  | { readonly kind: 'best'; readonly quantity: number; readonly adjacent: boolean; readonly section?: string; readonly near?: SeatPoint };

export interface PlaceHoldCommand {
  readonly userId: string;
  readonly showId: string;
  readonly request: HoldRequest;
  readonly holdSeconds?: number;
}

export interface PlacedHold {
  readonly hold: Hold;
  /** Whether the held seats sit side by side in one row, so the buyer knows before paying. */
  readonly adjacent: boolean;
}

/** Seats picked by best-available can be taken by a buyer ahead in the queue; try a few picks. */
const bestAvailableAttemptsMax = 3;

export async function holdSeats(ctx: AppContext, command: PlaceHoldCommand): Promise<PlacedHold> {
  const started = performance.now();
  try {
    const placed = await placeWithRetries(ctx, command);
    ctx.telemetry.holdAttempt('HELD', (performance.now() - started) / 1000);
    return placed;
  } catch (error) {
    ctx.telemetry.holdAttempt(error instanceof AppError ? error.code : 'ERROR', (performance.now() - started) / 1000);
    throw error;
  }
}

async function placeWithRetries(ctx: AppContext, command: PlaceHoldCommand): Promise<PlacedHold> {
  const entry = found(await ctx.seatMaps.get(command.showId), 'SHOW_NOT_FOUND', 'no such show');
  const { request } = command;
  if (request.kind === 'seats') {
    // Fast path: a seat the read model already knows is taken fails here, without a transaction.
    if (!ctx.seatMaps.allAvailable(entry, request.seatIds)) {
      throw new AppError('SEAT_UNAVAILABLE', 'some seats are no longer available', {
        seatIds: request.seatIds.filter((id) => !ctx.seatMaps.allAvailable(entry, [id])),
      });
    }
    const hold = await commitHold(ctx, command, entry.show, request.seatIds);
    return { hold, adjacent: formsAdjacentRun(ctx.seatMaps.placesOf(entry, hold.seatIds)) };
  }
  if (request.quantity > limits.seatsPerHoldMax) {
    throw new AppError('TOO_MANY_SEATS', `a hold may take at most ${limits.seatsPerHoldMax} seats`);
  }
  for (let attempt = 1; ; attempt++) {
    const choice = chooseBestAvailable(entry.show.seatMap, ctx.seatMaps.positions(entry), {
      quantity: request.quantity,
      ...(request.section === undefined ? {} : { section: request.section }),
      allowSplit: !request.adjacent,
      ...(request.near === undefined ? {} : { near: request.near }),
    });
    if (choice === null) throw new AppError('NOT_ENOUGH_SEATS', `no ${request.adjacent ? 'adjacent ' : ''}seats left for ${request.quantity}`);
    try {
      return { hold: await commitHold(ctx, command, entry.show, choice.seatIds), adjacent: choice.adjacent };
    } catch (error) {
      const retryable = error instanceof AppError && error.code === 'SEAT_UNAVAILABLE';
      if (!retryable || attempt >= bestAvailableAttemptsMax) throw error;
    }
  }
}

/** Shows never change once created, so the read model's copy is as good as the stored one. */
async function commitHold(ctx: AppContext, command: PlaceHoldCommand, show: Show, seatIds: readonly string[]): Promise<Hold> {
  const now = ctx.clock.now();
  const change = await ctx.store.transaction(async (tx) => {
    const seats = await tx.seats.getMany(command.showId, seatIds);
    const placed = unwrap(
      placeHold({
        show,
        holdId: ctx.ids.newId('hold'),
        userId: command.userId,
        requestedSeatIds: seatIds,
        seats,
        holdSeconds: command.holdSeconds ?? ctx.policy.holdSecondsDefault,
        holdSecondsMax: ctx.policy.holdSecondsMax,
        now,
      }),
    );
    await tx.holds.insert(placed.hold);
    await tx.seats.save(placed.seats);
    return placed;
  });
  ctx.seatMaps.apply(change.seats);
  scheduleExpiry(ctx, change.hold);
  return change.hold;
}

/** More time for the buyer; the scheduled release moves with the new expiry. */
export async function extendHoldFor(ctx: AppContext, userId: string, holdId: string, extendSeconds: number): Promise<Hold> {
  const now = ctx.clock.now();
  const extended = await ctx.store.transaction(async (tx) => {
    const hold = found(await tx.holds.get(holdId), 'HOLD_NOT_FOUND', 'no such hold');
    const next = unwrap(
      extendHold({
        hold,
        userId,
        extendSeconds,
        extensionsMax: ctx.policy.holdExtensionsMax,
        lifeSecondsMax: ctx.policy.holdLifeSecondsMax,
        now,
      }),
    );
    await tx.holds.save(next, hold);
    return next;
  });
  scheduleExpiry(ctx, extended);
  return extended;
}

/** The buyer gives the seats back. A pending order on the hold is cancelled with it. */
export async function releaseHold(ctx: AppContext, userId: string, holdId: string): Promise<Hold> {
  const now = ctx.clock.now();
  const change = await ctx.store.transaction(async (tx) => {
    const hold = found(await tx.holds.get(holdId), 'HOLD_NOT_FOUND', 'no such hold');
    if (hold.userId !== userId) throw new AppError('HOLD_NOT_OWNED', 'this hold belongs to someone else');
    const seats = await tx.seats.getMany(hold.showId, hold.seatIds);
    const released = unwrap(lapseHold(hold, seats, 'RELEASE'));
    await cancelLiveOrder(tx, holdId, now);
    await tx.holds.save(released.hold, hold);
    await tx.seats.save(released.seats);
    return released;
  });
  ctx.scheduler.cancel(`hold:${holdId}`);
  ctx.seatMaps.apply(change.seats);
  return change.hold;
}

