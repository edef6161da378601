import { createShow } from '../../src/app/catalog.js';
import { holdSeats } from '../../src/app/holds.js';
import { auditShows } from '../../src/app/inventory-audit.js';
import { createOrder } from '../../src/app/orders.js';
import { applyPaymentReport } from '../../src/app/payments.js';
import { issueOrderTickets } from '../../src/app/tickets.js';
import type { SimWorld } from './world.js';

/** Small fixed scenarios over a simulation world, for the regressions its seeds found. */

export const startMs = Date.UTC(2030, 0, 1, 10, 0, 0);
const hourMs = 3_600_000;

/** A show on sale with one standing section of `capacity` places at 1000, refunds allowed. */
export async function standingShow(w: SimWorld, capacity: number): Promise<string> {
  const show = await createShow(w.ctx, {
    title: 'Scenario', venue: 'Hall', city: 'City', startsAt: startMs + 240 * hourMs, saleStartsAt: startMs - hourMs, saleEndsAt: startMs + 120 * hourMs,
    seatMap: { sections: [{ id: 'G', name: 'Standing', kind: 'GENERAL_ADMISSION', capacity, priceCents: 1000 }] },
    maxSeatsPerUser: capacity, refundUntilHoursBefore: 24,
  });
  return show.showId;
}

/** A hold of `quantity` standing places, ordered, paid (the callback delivered at once) and ticketed; answers the order id. */
export async function standingOrder(w: SimWorld, userId: string, showId: string, quantity: number, key: string): Promise<string> {
  const { hold } = await holdSeats(w.ctx, { userId, showId, request: { kind: 'best', quantity, adjacent: false, section: 'G' } });
  const { order } = await createOrder(w.ctx, { userId, holdId: hold.holdId, idempotencyKey: key });
  const report = w.provider.decide(order.paymentId as string, 'SUCCEEDED');
  if (report === null) throw new Error('the payment was not opened');
  w.provider.takeCallback(w.provider.pendingCallbacks().indexOf(report));
  await applyPaymentReport(w.ctx, report);
  w.provider.markDelivered(report.paymentId);
  await issueOrderTickets(w.ctx, order.orderId);
  return order.orderId;
}

/** The auditor's violations over every show, against the scripted provider's ledger. */
export async function auditViolations(w: SimWorld): Promise<string[]> {
  const pass = await auditShows({ audit: (id) => w.ctx.store.audit(id), auditShowIds: (a, n) => w.ctx.store.auditShowIds(a, n), ledger: w.provider.ledger() }, { now: w.clock.now(), boundMs: 86_400_000 });
  return pass.violations.map((v) => `${v.check} ${v.subject}: ${v.detail}`);
}
