import { auditShows } from '../../src/app/inventory-audit.js';
import type { AppContext } from '../../src/app/context.js';
import { unitsOf, valueCarriedOut, type ReservationLine } from '../../src/domain/index.js';
import type { ScriptedProvider } from './scripted-provider.js';
import type { OrderFacts, Snapshot } from './snapshot.js';

/**
 * What must hold after every step of the simulation, read from the store's truth and the
 * provider's ledger (never from what the simulation believes it did). Each check answers
 * sentences naming what is wrong; none means the step left the books straight.
 */

const admits = (status: string): boolean => status === 'VALID' || status === 'USED';
const paidOf = (facts: OrderFacts, status: (s: string) => boolean): number =>
  facts.tickets.filter((t) => status(t.status)).reduce((sum, t) => sum + (t.paidCents ?? Number.NaN), 0);
/** Money that left (or is leaving) an order by refund: confirmed, or asked and not yet answered. */
const refundedOrPending = (facts: OrderFacts): number =>
  facts.refunds.filter((r) => r.status === 'REFUNDED' || r.status === 'PENDING').reduce((sum, r) => sum + r.amountCents, 0);
/** The value exchanges carried out of an order into new orders (the new order's value less any difference it was charged). */
const carriedOut = (facts: OrderFacts, byId: ReadonlyMap<string, OrderFacts>): number =>
  facts.exchangesOut.reduce((sum, e) => sum + valueCarriedOut(byId.get(e.newOrderId)?.order.amountCents ?? Number.NaN, e.differenceCents), 0);

/** States in which an order's money is in (paid, or carried in by an exchange) and tickets may exist. */
const ticketedStates = new Set(['TICKETED', 'REFUND_PENDING', 'REFUNDED']);

/** Per order: charges − refunds − value carried out = the paid prices of its tickets still valid or used. */
function orderMoney(snapshot: Snapshot, byId: ReadonlyMap<string, OrderFacts>): string[] {
  const wrong: string[] = [];
  for (const facts of snapshot.orders) {
    const { order } = facts;
    // An order refunded without ever being ticketed (paid after its hold lapsed) has no tickets: its payment is checked against the provider.
    if (!ticketedStates.has(order.status) || facts.tickets.length === 0) continue;
    const left = order.amountCents - refundedOrPending(facts) - carriedOut(facts, byId);
    const admitting = paidOf(facts, admits);
    if (left !== admitting) {
      wrong.push(`order ${order.orderId} (${order.status}): charged ${order.amountCents} − refunds ${refundedOrPending(facts)} − carried out ${carriedOut(facts, byId)} = ${left}, but its valid and used tickets were paid ${admitting}`);
    }
  }
  return wrong;
}

/** Per order: its state agrees with its tickets and refunds. */
function orderStates(snapshot: Snapshot): string[] {
  const wrong: string[] = [];
  for (const facts of snapshot.orders) {
    const { order, tickets } = facts;
    const admitting = tickets.filter((t) => admits(t.status)).length;
    const pendingWhole = facts.refunds.some((r) => r.whole && r.status === 'PENDING');
    const say = (what: string): void => {
      wrong.push(`order ${order.orderId} ${order.status}: ${what}`);
    };
    if (!ticketedStates.has(order.status) && tickets.length > 0) say(`${tickets.length} tickets`);
    if (order.status === 'PAID') say('paid but not ticketed after the step settled');
    if (order.status === 'TICKETED' && tickets.length !== unitsOf(order.lines as readonly ReservationLine[])) say(`${tickets.length} tickets for ${unitsOf(order.lines)} units`);
    if (order.status === 'TICKETED' && admitting === 0 && facts.exchangesOut.length === 0 && !facts.refunds.some((r) => r.status === 'PENDING')) {
      say('no valid or used ticket left, yet neither exchanged away nor refunded');
    }
    if ((order.status === 'REFUND_PENDING' || order.status === 'REFUNDED') && admitting > 0) say(`${admitting} tickets still admit`);
    if (order.status === 'REFUND_PENDING' && !pendingWhole && tickets.length > 0) say('no pending whole refund');
    if (order.status !== 'REFUND_PENDING' && pendingWhole) say('a whole refund is pending');
    // A partial exchange leaves the order its other tickets: only those given up must be gone.
    const givenUp = new Set(facts.exchangesOut.flatMap((e) => e.oldTicketIds));
    const stillAdmitting = tickets.filter((t) => givenUp.has(t.ticketId) && admits(t.status)).length;
    if (stillAdmitting > 0) say(`exchanged away, yet ${stillAdmitting} of the tickets given up still admit`);
  }
  return wrong;
}

/** Per show: no seat in two admitting tickets; seats and units add up to capacity. */
function inventory(snapshot: Snapshot): string[] {
  const wrong: string[] = [];
  const pendingTicketIds = new Set(snapshot.orders.flatMap((f) => f.refunds.filter((r) => r.status === 'PENDING').flatMap((r) => r.ticketIds)));
  const paidLines = snapshot.orders.filter((f) => f.order.status === 'PAID').flatMap((f) => f.order.lines);
  for (const [showId, audit] of snapshot.shows) {
    const bySeat = new Map<string, number>();
    for (const t of audit.tickets) if (admits(t.status) && t.seatId !== null) bySeat.set(t.seatId, (bySeat.get(t.seatId) ?? 0) + 1);
    for (const [seatId, n] of bySeat) if (n > 1) wrong.push(`show ${showId}: seat ${seatId} in ${n} admitting tickets`);
    const activeHolds = audit.holds.filter((h) => h.status === 'ACTIVE');
    const units = (lines: readonly ReservationLine[], sectionId: string): number =>
      lines.filter((l) => l.sectionId === sectionId).reduce((n, l) => n + (l.kind === 'SEATS' ? l.seatIds.length : l.quantity), 0);
    for (const section of audit.sections) {
      const held = activeHolds.reduce((n, h) => n + units(h.lines, section.sectionId), 0);
      // Sold: admitting tickets, tickets whose refund the provider has not answered (their place is kept), and paid orders not ticketed yet.
      const ticketsHere = audit.tickets.filter((t) => t.sectionId === section.sectionId && (admits(t.status) || pendingTicketIds.has(t.ticketId))).length;
      const sold = ticketsHere + units(paidLines, section.sectionId);
      if (section.kind === 'GENERAL_ADMISSION' || section.sellBy === 'QUANTITY') {
        if (section.available + held + sold !== section.capacity) {
          wrong.push(`show ${showId} section ${section.sectionId}: available ${section.available} + held ${held} + sold ${sold} ≠ capacity ${section.capacity}`);
        }
        continue;
      }
      const seats = audit.seats.filter((s) => s.sectionId === section.sectionId);
      const count = (status: string): number => seats.filter((s) => s.status === status).length;
      if (count('HELD') !== held) wrong.push(`show ${showId} section ${section.sectionId}: ${count('HELD')} seats HELD, active holds hold ${held}`);
      if (count('SOLD') + count('REFUND_PENDING') !== sold) wrong.push(`show ${showId} section ${section.sectionId}: ${count('SOLD')} SOLD + ${count('REFUND_PENDING')} REFUND_PENDING seats, ${sold} sold by tickets and paid orders`);
      if (count('AVAILABLE') + count('HELD') + count('SOLD') + count('REFUND_PENDING') !== section.capacity) wrong.push(`show ${showId} section ${section.sectionId}: seat statuses do not add up to ${section.capacity}`);
    }
  }
  return wrong;
}

/** The store's money equals the provider's ledger: charges applied as decided, refunds confirmed = refunds recorded. */
function providerLedger(snapshot: Snapshot, provider: ScriptedProvider): string[] {
  const wrong: string[] = [];
  const payments = new Map(snapshot.orders.flatMap((f) => (f.payment === null ? [] : [[f.payment.paymentId, { payment: f.payment, facts: f }] as const])));
  // What the store recorded as refunded through each payment: its REFUNDED refunds, wherever on the chain they were asked.
  const recorded = new Map<string, number>();
  for (const facts of snapshot.orders) {
    for (const r of facts.refunds) {
      const through = facts.refundPayment.get(r.refundId) ?? null;
      if (r.status === 'REFUNDED' && r.amountCents > 0) {
        if (through === null) wrong.push(`refund ${r.refundId} of ${r.amountCents} is REFUNDED with no payment to go back through`);
        else {
          // A dearer exchange's order pays back partly through the chain's source (the part the refund row names).
          const second = r.through?.amountCents ?? 0;
          recorded.set(through, (recorded.get(through) ?? 0) + r.amountCents - second);
          if (r.through !== undefined) recorded.set(r.through.paymentId, (recorded.get(r.through.paymentId) ?? 0) + second);
        }
      }
    }
  }
  for (const charge of provider.allCharges()) {
    const entry = payments.get(charge.paymentId);
    if (entry === undefined) continue; // an order whose payment the store never recorded (its request failed): checked below by the totals
    const { payment } = entry;
    const expected = !charge.delivered ? ['PENDING'] : charge.status === 'SUCCEEDED' ? ['SUCCEEDED', 'PARTIALLY_REFUNDED', 'REFUNDED', 'REFUND_PENDING'] : charge.status === 'FAILED' ? ['FAILED'] : ['PENDING'];
    if (!expected.includes(payment.status)) wrong.push(`payment ${charge.paymentId}: the provider says ${charge.status}${charge.delivered ? '' : ' (not yet called back)'}, the store ${payment.status}`);
    // A payment refunded whole because its hold had lapsed went back by the payment's own path (no refund row).
    const late = payment.status === 'REFUNDED' && entry.facts.tickets.length === 0 ? payment.receivedCents ?? payment.amountCents : 0;
    const storeRefunded = (recorded.get(charge.paymentId) ?? 0) + late;
    const providerRefunded = provider.refundedCents(charge.paymentId);
    if (storeRefunded !== providerRefunded) wrong.push(`payment ${charge.paymentId}: the provider refunded ${providerRefunded}, the store records ${storeRefunded}`);
    if (late === 0 && payment.status !== 'REFUND_PENDING' && charge.delivered && charge.status === 'SUCCEEDED') {
      const state = storeRefunded === 0 ? 'SUCCEEDED' : storeRefunded >= payment.amountCents ? 'REFUNDED' : 'PARTIALLY_REFUNDED';
      if (payment.status !== state) wrong.push(`payment ${charge.paymentId}: ${storeRefunded} of ${payment.amountCents} refunded, so ${state}; the store says ${payment.status}`);
    }
  }
  // Σ: what the provider holds (charges taken − refunds paid) is exactly what the store says is held somewhere.
  const providerNet = provider.allCharges().filter((c) => c.status === 'SUCCEEDED').reduce((sum, c) => sum + c.amountCents - provider.refundedCents(c.paymentId), 0);
  let held = 0;
  for (const facts of snapshot.orders) {
    held += paidOf(facts, admits);
    held += facts.refunds.filter((r) => r.status === 'PENDING').reduce((sum, r) => sum + r.amountCents, 0);
    if (facts.order.status === 'PAID') held += facts.order.amountCents;
    if (facts.payment?.status === 'REFUND_PENDING') held += facts.payment.amountCents;
  }
  for (const c of provider.allCharges()) if (c.status === 'SUCCEEDED' && !c.delivered) held += c.amountCents;
  // Free orders (a discount took the whole price) never reach the provider, and hold nothing either.
  if (held !== providerNet) wrong.push(`the provider holds ${providerNet} cents net, the store accounts for ${held}`);
  return wrong;
}

/** Statuses in which an order keeps its discount use (a cancelled or wholly refunded one gave it back). */
const useKept = new Set(['INIT', 'PENDING_PAY', 'PAID', 'TICKETED', 'REFUND_PENDING']);

/** Each discount code counts one use per order that keeps it (issue 32 Why 7: a late sale keeps its use). */
async function discountUses(ctx: AppContext, snapshot: Snapshot, codes: readonly string[]): Promise<string[]> {
  const wrong: string[] = [];
  for (const code of codes) {
    const stored = await ctx.store.getDiscount(code);
    // An order born of an exchange carries the old order's price, not a use of its own.
    const keeping = snapshot.orders.filter((f) => f.order.discount?.code === code && f.exchangeIn === null && useKept.has(f.order.status));
    if (stored?.uses !== keeping.length) wrong.push(`discount ${code}: ${stored?.uses ?? 'no'} uses stored, ${keeping.length} orders keep one (${keeping.map((f) => `${f.order.orderId} ${f.order.status}`).join(', ')})`);
  }
  return wrong;
}

/** The auditor's checks (src/app/inventory-audit.ts), as `ticketrush audit` runs them, against the scripted provider's ledger. */
async function auditor(ctx: AppContext, provider: ScriptedProvider): Promise<string[]> {
  // A day's bound: the simulation's clock moves minutes per step, and a refund the provider keeps
  // failing for a while is the provider's outage, not a broken store.
  const pass = await auditShows({ audit: (id) => ctx.store.audit(id), auditShowIds: (after, n) => ctx.store.auditShowIds(after, n), ledger: provider.ledger() }, { now: ctx.clock.now(), boundMs: 86_400_000 });
  return pass.violations.map((v) => `auditor ${v.check}: show ${v.showId}, ${v.subject}: ${v.detail}`);
}

export async function violations(ctx: AppContext, snapshot: Snapshot, provider: ScriptedProvider, codes: readonly string[]): Promise<string[]> {
  const byId = new Map(snapshot.orders.map((f) => [f.order.orderId, f]));
  return [
    ...orderMoney(snapshot, byId), ...orderStates(snapshot), ...inventory(snapshot), ...providerLedger(snapshot, provider),
    ...await discountUses(ctx, snapshot, codes), ...await auditor(ctx, provider),
  ];
}
