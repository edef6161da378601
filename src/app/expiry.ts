import { isOverdue, lapseHold, limits, type Hold, type Seat } from '../domain/index.js';
import type { StoreTx } from '../ports/store.js';
import type { AppContext } from './context.js';
import { unwrap } from './errors.js';
import { cancelLiveOrder } from './order-cancellation.js';

/** Arms the scheduled release of a new hold. */
export function scheduleExpiry(ctx: AppContext, hold: Pick<Hold, 'holdId' | 'expiresAt'>): void {
  ctx.scheduler.schedule(`hold:${hold.holdId}`, hold.expiresAt, async () => {
    await expireHold(ctx, hold.holdId);
  });
}

/** The scheduled half of expiry: one hold, at its expiry time. A hold that moved on is left alone. */
export async function expireHold(ctx: AppContext, holdId: string): Promise<boolean> {
  const now = ctx.clock.now();
  const result = await ctx.store.transaction(async (tx) => {
    const hold = await tx.holds.get(holdId);
    if (hold === null || !isOverdue(hold, now)) return null;
    return { seats: await expireInTx(tx, hold.holdId, now), delay: (now - hold.expiresAt) / 1000 };
  });
  if (result === null) return false;
  ctx.seatMaps.apply(result.seats);
  ctx.telemetry.holdsExpired(1, [result.delay]);
  return true;
}

/**
 * The safety net: frees every overdue hold by expiry time, in bounded batches, whether or not its
 * scheduled release ran (a restart loses in-process timers; this finds them).
 */
export async function sweepOverdueHolds(ctx: AppContext, batchesMax = 50): Promise<number> {
  let total = 0;
  for (let batch = 0; batch < batchesMax; batch++) {
    const now = ctx.clock.now();
    const swept = await ctx.store.transaction(async (tx) => {
      const overdue = await tx.holds.findOverdue(now, limits.expirySweepBatchMax);
      const seats: Seat[] = [];
      for (const hold of overdue) seats.push(...(await expireInTx(tx, hold.holdId, now)));
      return { seats, delays: overdue.map((h) => (now - h.expiresAt) / 1000) };
    });
    ctx.seatMaps.apply(swept.seats);
    if (swept.delays.length > 0) ctx.telemetry.holdsExpired(swept.delays.length, swept.delays);
    total += swept.delays.length;
    if (swept.delays.length < limits.expirySweepBatchMax) break;
  }
  return total;
}

async function expireInTx(tx: StoreTx, holdId: string, now: number): Promise<Seat[]> {
  const hold = await tx.holds.get(holdId);
  if (hold === null) return [];
  const seats = await tx.seats.getMany(hold.showId, hold.seatIds);
  const expired = unwrap(lapseHold(hold, seats, 'EXPIRE'));
  await cancelLiveOrder(tx, holdId, now);
  await tx.holds.save(expired.hold, hold);
  await tx.seats.save(expired.seats);
  return expired.seats;
}
