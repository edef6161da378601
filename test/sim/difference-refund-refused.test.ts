import { afterEach, describe, expect, it } from 'vitest';
import { register } from '../../src/app/accounts.js';
import { createShow } from '../../src/app/catalog.js';
import { exchangeOrder } from '../../src/app/exchanges.js';
import { processRefund, sweepPendingRefunds } from '../../src/app/refunds.js';
import { testStore } from '../support/backend.js';
import { violations } from './invariants.js';
import { standingOrder, startMs } from './scenario.js';
import { readSnapshot } from './snapshot.js';
import { SimWorld } from './world.js';

/**
 * Issue 32: a cheaper exchange's difference has no tickets to hand back if the provider refuses
 * it, so the buyer is owed it until the provider pays: the refund stays PENDING (never REFUSED,
 * never REFUNDED without the provider), the books balance meanwhile, and the next pass pays it.
 * A partial exchange: one of two standing places (1000) for one at 400. Both stores.
 */
let world: SimWorld | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

describe(`a refused exchange difference (${testStore})`, () => {
  it('stays PENDING while the provider refuses, every invariant holding, and is paid by the next pass', async () => {
    const w = await SimWorld.open(testStore, startMs);
    world = w;
    const buyer = (await register(w.ctx, 'diffbuyer', 'sim-password-1')).userId;
    const show = await createShow(w.ctx, {
      title: 'Difference', venue: 'Hall', city: 'City', startsAt: startMs + 240 * 3_600_000, saleStartsAt: startMs - 3_600_000, saleEndsAt: startMs + 120 * 3_600_000,
      seatMap: { sections: [
        { id: 'G', name: 'Standing', kind: 'GENERAL_ADMISSION', capacity: 4, priceCents: 1000 },
        { id: 'H', name: 'Back', kind: 'GENERAL_ADMISSION', capacity: 4, priceCents: 400 },
      ] },
      maxSeatsPerUser: 8, refundUntilHoursBefore: 24, exchangeUntilHoursBefore: 24,
    });
    const orderId = await standingOrder(w, buyer, show.showId, 2, 'k1');
    const given = (await w.ctx.store.ticketsByOrder(orderId))[0]?.ticketId as string;
    const swapped = await exchangeOrder(w.ctx, {
      userId: buyer, orderId, showId: null, request: { kind: 'best', quantity: 1, adjacent: false, section: 'H' }, ticketIds: [given],
    });
    expect(swapped.order.amountCents).toBe(400);
    expect(swapped.refund).toMatchObject({ orderId, amountCents: 600, ticketIds: [], status: 'PENDING' });
    const refundId = swapped.refund?.refundId as string;
    const paymentId = (await w.ctx.store.getOrder(orderId))?.paymentId as string;
    const check = async (): Promise<string[]> => violations(w.ctx, await readSnapshot(w.ctx, [show.showId]), w.provider, []);

    w.provider.refundMood = 'refuse';
    expect((await processRefund(w.ctx, refundId))?.status).toBe('PENDING');
    expect(w.provider.refundedCents(paymentId)).toBe(0);
    expect(await check()).toEqual([]);

    w.provider.refundMood = 'confirm';
    w.clock.advance(60_000);
    expect(await sweepPendingRefunds(w.ctx, 0)).toBe(1);
    expect(await w.ctx.store.getRefund(refundId)).toMatchObject({ status: 'REFUNDED', amountCents: 600, reason: 'exchange difference' });
    expect(w.provider.refundedCents(paymentId)).toBe(600);
    expect((await w.ctx.store.getPayment(paymentId))?.status).toBe('PARTIALLY_REFUNDED');
    expect(await check()).toEqual([]);
  });
});
