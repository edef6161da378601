import { afterEach, describe, expect, it } from 'vitest';
import { register } from '../../src/app/accounts.js';
import { createShow } from '../../src/app/catalog.js';
import { holdSeats } from '../../src/app/holds.js';
import { auditShows } from '../../src/app/inventory-audit.js';
import { createOrder } from '../../src/app/orders.js';
import { applyPaymentReport } from '../../src/app/payments.js';
import { processRefund, requestOrderRefund } from '../../src/app/refunds.js';
import { issueOrderTickets } from '../../src/app/tickets.js';
import { PaymentProviderError } from '../../src/ports/payment-provider.js';
import { testStore } from '../support/backend.js';
import { SimWorld } from './world.js';

/**
 * Regressions the money simulation found (seeds 1003, 1005, 1011): while the provider is away, a
 * refund stays PENDING; the auditor called that a violation twice over. The refunded standing
 * places are still taken (counted_stock said the stock was short), and a whole refund's payment is
 * still SUCCEEDED beside its REFUND_PENDING order (payment_ledger). Both stores.
 */
const startMs = Date.UTC(2030, 0, 1, 10, 0, 0);
const hourMs = 3_600_000;
let world: SimWorld | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

async function standingOrder(w: SimWorld, userId: string, showId: string, quantity: number, key: string): Promise<string> {
  const { hold } = await holdSeats(w.ctx, { userId, showId, request: { kind: 'best', quantity, adjacent: false, section: 'G' } });
  const { order } = await createOrder(w.ctx, { userId, holdId: hold.holdId, idempotencyKey: key });
  const report = w.provider.decide(order.paymentId as string, 'SUCCEEDED');
  if (report === null) throw new Error('the payment was not opened');
  w.provider.takeCallback(0);
  await applyPaymentReport(w.ctx, report);
  w.provider.markDelivered(report.paymentId);
  await issueOrderTickets(w.ctx, order.orderId);
  return order.orderId;
}

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
    const show = await createShow(w.ctx, {
      title: 'Pending', venue: 'Hall', city: 'City', startsAt: startMs + 240 * hourMs, saleStartsAt: startMs - hourMs, saleEndsAt: startMs + 120 * hourMs,
      seatMap: { sections: [{ id: 'G', name: 'Standing', kind: 'GENERAL_ADMISSION', capacity: 6, priceCents: 1000 }] },
      maxSeatsPerUser: 6, refundUntilHoursBefore: 24,
    });
    const partly = await standingOrder(w, buyer, show.showId, 2, 'k1');
    const whole = await standingOrder(w, buyer, show.showId, 1, 'k2');
    const [first] = await w.ctx.store.ticketsByOrder(partly);
    await refundWhileAway(w, buyer, partly, [first?.ticketId as string], 'r1');
    await refundWhileAway(w, buyer, whole, null, 'r2');
    expect((await w.ctx.store.getOrder(whole))?.status).toBe('REFUND_PENDING');
    const audit = async (): Promise<string[]> => {
      const pass = await auditShows({ audit: (id) => w.ctx.store.audit(id), auditShowIds: (a, n) => w.ctx.store.auditShowIds(a, n), ledger: w.provider.ledger() }, { now: w.clock.now(), boundMs: 86_400_000 });
      return pass.violations.map((v) => `${v.check} ${v.subject}: ${v.detail}`);
    };
    // The read names the pending refunds' tickets; the places stay taken (3 sold, 3 left).
    expect([...(await w.ctx.store.audit(show.showId))?.pendingRefundTicketIds ?? []]).toHaveLength(2);
    expect(await audit()).toEqual([]);
    for (const r of [...await w.ctx.store.refundsByOrder(partly), ...await w.ctx.store.refundsByOrder(whole)]) await processRefund(w.ctx, r.refundId);
    expect((await w.ctx.store.audit(show.showId))?.pendingRefundTicketIds).toEqual([]);
    expect(await audit()).toEqual([]);
  });
});
