import { afterEach, describe, expect, it } from 'vitest';
import { register } from '../../src/app/accounts.js';
import { processRefund, requestOrderRefund } from '../../src/app/refunds.js';
import { PaymentProviderError } from '../../src/ports/payment-provider.js';
import { testStore } from '../support/backend.js';
import { auditViolations, standingOrder, standingShow, startMs } from './scenario.js';
import { SimWorld } from './world.js';

/**
 * Regressions the money simulation found (seeds 1003, 1005, 1011): while the provider is away, a
 * refund stays PENDING; the auditor called that a violation twice over. The refunded standing
 * places are still taken (counted_stock said the stock was short), and a whole refund's payment is
 * still SUCCEEDED beside its REFUND_PENDING order (payment_ledger). Both stores.
 */
let world: SimWorld | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

/** Asks for a refund while the provider is away: it stays PENDING. */
async function refundWhileAway(w: SimWorld, userId: string, orderId: string, ticketIds: readonly string[] | null, key: string): Promise<void> {
  const { refund } = await requestOrderRefund(w.ctx, { userId, orderId, ticketIds, idempotencyKey: key });
  w.provider.refundMood = 'fail';
  await expect(processRefund(w.ctx, refund.refundId)).rejects.toBeInstanceOf(PaymentProviderError);
  w.provider.refundMood = 'confirm';
  expect((await w.ctx.store.getRefund(refund.refundId))?.status).toBe('PENDING');
}

describe(`the auditor and refunds the provider has not answered (${testStore})`, () => {
  it('a partial and a whole refund left PENDING: the audit finds nothing; once the provider pays, still nothing', async () => {
    const w = await SimWorld.open(testStore, startMs);
    world = w;
    const buyer = (await register(w.ctx, 'pendingbuyer', 'sim-password-1')).userId;
    const showId = await standingShow(w, 6);
    const partly = await standingOrder(w, buyer, showId, 2, 'k1');
    const whole = await standingOrder(w, buyer, showId, 1, 'k2');
    const [first] = await w.ctx.store.ticketsByOrder(partly);
    await refundWhileAway(w, buyer, partly, [first?.ticketId as string], 'r1');
    await refundWhileAway(w, buyer, whole, null, 'r2');
    expect((await w.ctx.store.getOrder(whole))?.status).toBe('REFUND_PENDING');
    // The read names the pending refunds' tickets; the places stay taken (3 sold, 3 left).
    expect([...(await w.ctx.store.audit(showId))?.pendingRefundTicketIds ?? []]).toHaveLength(2);
    expect(await auditViolations(w)).toEqual([]);
    for (const r of [...await w.ctx.store.refundsByOrder(partly), ...await w.ctx.store.refundsByOrder(whole)]) await processRefund(w.ctx, r.refundId);
    expect((await w.ctx.store.audit(showId))?.pendingRefundTicketIds).toEqual([]);
    expect(await auditViolations(w)).toEqual([]);
  });
});
