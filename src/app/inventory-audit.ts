import { isCounted, SeatLayout, type ReservationLine } from '../domain/index.js';
import type { AuditStore, GateReader, GateSnapshot, LedgerCharge, ProviderLedgerReader, ShowAudit } from '../ports/engine/index.js';

/**
 * The auditor (issue 26 item 3): the same checks for `ticketrush audit` (beside a live server, on a
 * read-only view of its store), the server's periodic audit job (feeding
 * ticketrush_inventory_inconsistencies) and the drills' final audit. Each check is named; its
 * name is the metric's label, so the set is fixed.
 */
export const auditCheckNames = [
  /** More sold in a section than it holds (admitting tickets, or units of paid orders). */
  'sold_over_capacity',
  /** A seat named by two admitting (not INVALID) tickets. */
  'seat_in_two_tickets',
  /** A counted section's stock is not capacity − held − sold (or is out of 0..capacity). */
  'counted_stock',
  /** An order PAID longer than the bound and still not TICKETED. */
  'paid_not_ticketed',
  /** An ACTIVE hold past its expiry by more than the bound. */
  'overdue_hold',
  /** Money and orders disagree: a charge taken with nothing sold or refunded, a sale without a charge, a refund not recorded. */
  'payment_ledger',
  /** The Redis gate (where configured) disagrees with the store, and still does a moment later. */
  'redis_gate',
] as const;

export type AuditCheckName = (typeof auditCheckNames)[number];

export interface AuditViolation {
  readonly check: AuditCheckName;
  readonly showId: string;
  /** The row at fault: a section, seat, order, hold or payment id. */
  readonly subject: string;
  readonly detail: string;
}

export interface AuditOptions {
  /** Epoch ms the audit judges against. */
  readonly now: number;
  /** A PAID order not ticketed, an overdue hold, a payment awaiting its settlement this long is a violation. */
  readonly boundMs: number;
}

const soldStatuses = new Set(['PAID', 'TICKETED']);

const unitsOf = (lines: readonly ReservationLine[], sectionId: string): number =>
  lines.filter((l) => l.sectionId === sectionId).reduce((n, l) => n + (l.kind === 'SEATS' ? l.seatIds.length : l.quantity), 0);

/**
 * Every violation in one show's records, read as of one moment. Pure: the caller reads the show
 * (and the provider's ledger for its payments, when there is one).
 */
export function checkShow(showId: string, audit: ShowAudit, ledger: ReadonlyMap<string, LedgerCharge> | null, options: AuditOptions): AuditViolation[] {
  const found: AuditViolation[] = [];
  const flag = (check: AuditCheckName, subject: string, detail: string): void => {
    found.push({ check, showId, subject, detail });
  };
  const admitting = audit.tickets.filter((t) => t.status !== 'INVALID');
  const activeHolds = audit.holds.filter((h) => h.status === 'ACTIVE');
  const activeHoldIds = new Set(activeHolds.map((h) => h.holdId));
  // Units sold for good: paid orders whose hold is no longer active (a paid order's hold is CONFIRMED).
  const paidOrders = audit.orders.filter((o) => soldStatuses.has(o.status) && !activeHoldIds.has(o.holdId));

  // A ticketed order holds what its admitting tickets hold: a settled refund gave its units back,
  // and an exchanged-away order (every ticket INVALID) holds nothing (issue 32). A PAID order not
  // yet ticketed holds its lines.
  const admittingByOrder = new Map<string, { sectionId: string }[]>();
  for (const t of admitting) admittingByOrder.set(t.orderId, [...(admittingByOrder.get(t.orderId) ?? []), t]);
  const soldIn = (o: (typeof paidOrders)[number], sectionId: string): number =>
    o.status === 'TICKETED' ? (admittingByOrder.get(o.orderId) ?? []).filter((t) => t.sectionId === sectionId).length : unitsOf(o.lines, sectionId);

  // Tickets whose refund the provider has not answered are INVALID already, but their places stay
  // taken until the money is back (issue 32 simulation, seed 1003): sold, for the stock's sum.
  const pendingIds = new Set(audit.pendingRefundTicketIds ?? []);
  const pendingRefunded = audit.tickets.filter((t) => t.status === 'INVALID' && pendingIds.has(t.ticketId));

  for (const section of audit.sections) {
    const tickets = admitting.filter((t) => t.sectionId === section.sectionId).length;
    const sold = paidOrders.reduce((n, o) => n + soldIn(o, section.sectionId), 0) + pendingRefunded.filter((t) => t.sectionId === section.sectionId).length;
    if (Math.max(tickets, sold) > section.capacity) {
      flag('sold_over_capacity', section.sectionId, `${tickets} admitting tickets and ${sold} units in paid orders for a capacity of ${section.capacity}`);
    }
    if (section.kind !== 'GENERAL_ADMISSION' && section.sellBy !== 'QUANTITY') continue;
    const held = activeHolds.reduce((n, h) => n + unitsOf(h.lines, section.sectionId), 0);
    const expected = section.capacity - held - sold;
    if (section.available !== expected || section.available < 0 || section.available > section.capacity) {
      flag('counted_stock', section.sectionId, `stock ${section.available}, but capacity ${section.capacity} − held ${held} − sold ${sold} = ${expected}`);
    }
  }

  const bySeat = new Map<string, string[]>();
  for (const t of admitting) if (t.seatId !== null) bySeat.set(t.seatId, [...(bySeat.get(t.seatId) ?? []), t.ticketId]);
  for (const [seatId, ids] of bySeat) if (ids.length > 1) flag('seat_in_two_tickets', seatId, `admitting tickets ${ids.join(', ')}`);

  const late = options.now - options.boundMs;
  for (const o of audit.orders) {
    if (o.status === 'PAID' && o.updatedAt < late) flag('paid_not_ticketed', o.orderId, `PAID ${Math.round((options.now - o.updatedAt) / 1000)} s ago, not ticketed`);
  }
  for (const h of activeHolds) {
    if (h.expiresAt < late) flag('overdue_hold', h.holdId, `ACTIVE ${Math.round((options.now - h.expiresAt) / 1000)} s past its expiry`);
  }

  const orderStatus = new Map(audit.orders.map((o) => [o.orderId, o.status]));
  const exchangedOut = new Set(audit.exchangedOutOrderIds ?? []);
  for (const p of audit.payments) {
    const order = orderStatus.get(p.orderId) ?? 'missing';
    const settled = p.updatedAt < late;
    // The store's own books: a successful payment bought its order; a refunded one refunded it.
    // A whole refund the provider has not answered yet (order REFUND_PENDING) still holds the money (issue 32 simulation, seed 1011).
    // A partly exchanged order refunded whole since (issue 32) keeps the rest of its payment in the new orders.
    const carriedOn = p.status === 'PARTIALLY_REFUNDED' && order === 'REFUNDED' && exchangedOut.has(p.orderId);
    if ((p.status === 'SUCCEEDED' || p.status === 'PARTIALLY_REFUNDED') && !soldStatuses.has(order) && order !== 'REFUND_PENDING' && !carriedOn) {
      flag('payment_ledger', p.paymentId, `payment ${p.status} but its order is ${order}`);
    }
    // A refunded payment's order is REFUNDED or CANCELLED, or TICKETED with nothing left that admits
    // (refunded ticket by ticket, or exchanged away and the new order refunded through this payment).
    const nothingLeft = order === 'TICKETED' && !admittingByOrder.has(p.orderId);
    if (p.status === 'REFUNDED' && order !== 'REFUNDED' && order !== 'CANCELLED' && !nothingLeft) flag('payment_ledger', p.paymentId, `payment REFUNDED but its order is ${order}`);
    if (p.status === 'REFUND_PENDING' && settled) flag('payment_ledger', p.paymentId, `refund pending for more than ${options.boundMs / 1000} s`);
    const charge = ledger?.get(p.paymentId);
    if (charge === undefined) continue;
    // Against the provider: charges taken = sold or refunded; nothing sold without a charge.
    if (charge.status === 'SUCCEEDED' && !charge.refunded && p.status !== 'SUCCEEDED' && (settled || p.status === 'FAILED' || p.status === 'REFUNDED')) {
      flag('payment_ledger', p.paymentId, `the provider charged ${charge.amountCents} cents; the store says ${p.status}`);
    }
    if (charge.refunded && p.status !== 'REFUNDED' && p.status !== 'PARTIALLY_REFUNDED' && (settled || p.status === 'SUCCEEDED')) {
      flag('payment_ledger', p.paymentId, `the provider refunded it; the store says ${p.status}`);
    }
    if (charge.status !== 'SUCCEEDED' && (p.status === 'SUCCEEDED' || p.status === 'REFUNDED' || p.status === 'REFUND_PENDING' || p.status === 'PARTIALLY_REFUNDED')) {
      flag('payment_ledger', p.paymentId, `the store says ${p.status}; the provider says ${charge.status}`);
    }
  }
  return found;
}

/**
 * Where the Redis gate and the store disagree for one show (a built gate only: an unbuilt one
 * refuses nothing). A seat the store has taken that the gate shows free costs a store call; one
 * the gate shows taken that the store has free is a leaked take (refused until the rebuild). Either
 * may last a relay lag, which is why auditShows reads twice before calling it a violation.
 */
export function checkGate(showId: string, audit: ShowAudit, gate: GateSnapshot): AuditViolation[] {
  if (!gate.built || audit.seatMap === undefined) return [];
  const found: AuditViolation[] = [];
  const layout = new SeatLayout(audit.seatMap);
  const counted = new Set(audit.seatMap.sections.filter((s) => s.kind !== 'SEATED' || isCounted(s)).map((s) => s.id));
  for (const seat of audit.seats) {
    if (counted.has(seat.sectionId)) continue;
    const i = layout.indexOf(seat.seatId);
    if (i < 0) continue;
    const taken = (((gate.taken[i >> 3] ?? 0) >> (7 - (i & 7))) & 1) === 1;
    if (taken && seat.status === 'AVAILABLE') found.push({ check: 'redis_gate', showId, subject: seat.seatId, detail: 'taken in the Redis gate, AVAILABLE in the store (a leaked take)' });
    if (!taken && seat.status !== 'AVAILABLE') found.push({ check: 'redis_gate', showId, subject: seat.seatId, detail: `free in the Redis gate, ${seat.status} in the store` });
  }
  for (const section of audit.sections) {
    if (!counted.has(section.sectionId)) continue;
    const left = gate.units[section.sectionId];
    if (left !== undefined && left !== section.available) found.push({ check: 'redis_gate', showId, subject: section.sectionId, detail: `${left} units left in the Redis gate, ${section.available} in the store` });
  }
  return found;
}

/** A gate disagreement is a violation only if it outlives this (many relay lags). */
const gateSettleMs = 1_000;

/** What the auditor reads: a show at a time, the provider's ledger when there is one, the Redis gate where configured. */
export interface AuditSource extends Pick<AuditStore, 'audit' | 'auditShowIds'> {
  readonly ledger: ProviderLedgerReader | null;
  readonly gate?: GateReader | null;
}

/** The gate's disagreements with the store that are still there after a pause, read again from both. */
async function lastingGateViolations(source: AuditSource, gate: GateReader, showId: string, audit: ShowAudit): Promise<AuditViolation[]> {
  const first = checkGate(showId, audit, await gate.read(showId));
  if (first.length === 0) return [];
  await new Promise((resolve) => setTimeout(resolve, gateSettleMs));
  const again = await source.audit(showId);
  if (again === null) return [];
  const still = new Set(checkGate(showId, again, await gate.read(showId)).map((v) => `${v.subject}\u0000${v.detail}`));
  return first.filter((v) => still.has(`${v.subject}\u0000${v.detail}`));
}

export interface AuditPass {
  /** Shows read in this pass. */
  readonly shows: number;
  /** Violations per check, every check named (0 when clean). */
  readonly counts: Readonly<Record<AuditCheckName, number>>;
  /** The violations, at most `examplesMax` per check. */
  readonly violations: readonly AuditViolation[];
  /** The last show read, for the next page (null: every show was read). */
  readonly cursor: string | null;
  /** Per show, its violation counts (only shows with some), for a caller that keeps a running total. */
  readonly byShow: ReadonlyMap<string, Readonly<Record<AuditCheckName, number>>>;
  /** Shows read in this pass, clean or not. */
  readonly showIds: readonly string[];
}

export const zeroCounts = (): Record<AuditCheckName, number> =>
  Object.fromEntries(auditCheckNames.map((name) => [name, 0])) as Record<AuditCheckName, number>;

/**
 * Audits shows in id order from `after`, a show at a time (one show's records in memory at
 * once, each read as of one moment), at most `showsMax` of them (Infinity: every show).
 */
export async function auditShows(
  source: AuditSource, options: AuditOptions & { readonly after?: string | null; readonly showsMax?: number; readonly pageSize?: number; readonly examplesMax?: number },
): Promise<AuditPass> {
  const counts = zeroCounts();
  const violations: AuditViolation[] = [];
  const byShow = new Map<string, Record<AuditCheckName, number>>();
  const showIds: string[] = [];
  const showsMax = options.showsMax ?? Infinity;
  const pageSize = options.pageSize ?? 100;
  const examplesMax = options.examplesMax ?? 20;
  let cursor = options.after ?? null;
  for (;;) {
    const page = await source.auditShowIds(cursor, Math.min(pageSize, showsMax - showIds.length));
    for (const showId of page) {
      cursor = showId;
      showIds.push(showId);
      const audit = await source.audit(showId);
      if (audit === null) continue; // removed since the page was read
      const ledger = source.ledger === null || audit.payments.length === 0 ? null : await source.ledger.charges(audit.payments.map((p) => p.paymentId));
      const found = checkShow(showId, audit, ledger, options);
      if (source.gate != null) found.push(...await lastingGateViolations(source, source.gate, showId, audit));
      if (found.length === 0) continue;
      const mine = zeroCounts();
      for (const v of found) {
        mine[v.check]++;
        if (counts[v.check]++ < examplesMax) violations.push(v);
      }
      byShow.set(showId, mine);
    }
    if (page.length === 0 || showIds.length >= showsMax) break;
  }
  const done = showIds.length < showsMax;
  return { shows: showIds.length, counts, violations, cursor: done ? null : cursor, byShow, showIds };
}
