import { afterEach, describe, expect, it } from 'vitest';
import { register } from '../../src/app/accounts.js';
import { createDiscountCode, discountReturnsSink } from '../../src/app/discounts.js';
import { sweepOverdueHolds } from '../../src/app/expiry.js';
import { holdSeats } from '../../src/app/holds.js';
import { createOrder } from '../../src/app/orders.js';
import { relayOnce } from '../../src/app/outbox-relay.js';
import { applyPaymentReport } from '../../src/app/payments.js';
import { testStore } from '../support/backend.js';
import { auditViolations, standingShow, startMs } from './scenario.js';
import { SimWorld } from './world.js';

/**
 * Regression the money simulation found (seed 6004, issue 32 Why 7): a discounted order whose hold
 * expired was cancelled and its discount use given back; its payment then arrived and sold late,
 * at the discounted price, yet the use stayed given back (the code counted one use fewer than the
 * orders keeping one). The late sale takes the use again. Both stores.
 */
let world: SimWorld | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

describe(`a discounted order sold late after its use was given back (${testStore})`, () => {
  it('keeps its discount use', async () => {
    const w = await SimWorld.open(testStore, startMs);
    world = w;
    const buyer = (await register(w.ctx, 'latebuyer', 'sim-password-1')).userId;
    const showId = await standingShow(w, 4);
    await createDiscountCode(w.ctx, { code: 'LATE150', amountOffCents: 150, validFrom: startMs - 3_600_000, validUntil: startMs + 86_400_000, maxUses: 3, perUserMax: 3 });
    const uses = async (): Promise<number | undefined> => (await w.ctx.store.getDiscount('LATE150'))?.uses;
    const relay = async (): Promise<void> => {
      await w.outboxReadable();
      await relayOnce(w.ctx, [discountReturnsSink(w.ctx)]);
    };
    const { hold } = await holdSeats(w.ctx, { userId: buyer, showId, request: { kind: 'best', quantity: 1, adjacent: false, section: 'G' } });
    const { order } = await createOrder(w.ctx, { userId: buyer, holdId: hold.holdId, idempotencyKey: 'late-1', discountCode: 'LATE150' });
    expect(await uses()).toBe(1);
    // The card holder pays; the callback is late: the hold expires first and the use goes back.
    const report = w.provider.decide(order.paymentId as string, 'SUCCEEDED');
    if (report === null) throw new Error('the payment was not opened');
    w.provider.takeCallback(0);
    w.clock.advance(hold.expiresAt - w.clock.now() + 1_000);
    expect(await sweepOverdueHolds(w.ctx)).toBe(1);
    await relay();
    expect(await uses()).toBe(0);
    // The money arrives: the place is still free, so it sells late at the discounted price, and takes its use again.
    expect(await applyPaymentReport(w.ctx, report)).toBe('SOLD_LATE');
    w.provider.markDelivered(report.paymentId);
    await relay();
    expect(await uses()).toBe(1);
    expect((await w.ctx.store.getOrder(order.orderId))?.status).toBe('PAID');
    // Another pass of the relay: still one use.
    await relay();
    expect(await uses()).toBe(1);
    expect(await auditViolations(w)).toEqual([]);
  });
});
