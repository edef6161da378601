import { expect } from 'vitest';
import { readAudit, type AuditLine, type AuditSource, type ShowAudit } from './audit.js';
import { eventually } from './wait.js';

export type { AuditSource } from './audit.js';

const unitsOf = (lines: readonly AuditLine[], sectionId?: string): number =>
  lines.filter((l) => sectionId === undefined || l.sectionId === sectionId).reduce((n, l) => n + (l.kind === 'SEATS' ? l.seatIds.length : l.quantity), 0);

/** Orders whose units are taken for good (paid for). */
const soldOrderStatuses = new Set(['PAID', 'TICKETED']);
/** Orders whose hold still owns its units. */
const liveOrderStatuses = new Set(['INIT', 'PENDING_PAY', 'PAID', 'TICKETED']);

/** What keeps a show from being settled: the auditor waits for these to clear before judging. */
async function unsettled(source: AuditSource, audit: ShowAudit, now: number): Promise<string[]> {
  const reasons: string[] = [];
  for (const o of audit.orders) if (o.status === 'PAID') reasons.push(`order ${o.orderId} PAID, not yet ticketed`);
  for (const p of audit.payments) if (p.status === 'REFUND_PENDING') reasons.push(`payment ${p.paymentId} refund pending`);
  for (const h of audit.holds) if (h.status === 'ACTIVE' && h.expiresAt <= now) reasons.push(`hold ${h.holdId} overdue and still ACTIVE`);
  if (source.provider) {
    for (const p of audit.payments) {
      if (p.status !== 'PENDING') continue;
      const verdict = await source.provider.getPaymentStatus(p.paymentId);
      if (verdict === 'SUCCEEDED' || verdict === 'FAILED') reasons.push(`payment ${p.paymentId}: provider says ${verdict}, store still PENDING`);
    }
  }
  return reasons;
}

/**
 * What an auditor checks after a rush: settles first (no PAID order left unticketed, no refund
 * pending, no overdue hold still ACTIVE, every provider verdict applied), then asserts that no seat
 * was sold twice, seat and unit counts add up, every ticketed order has one ticket per unit, and no
 * money was lost. Returns the seat counts by status.
 */
export async function expectSettledAndConsistent(source: AuditSource, showId: string, capacity: number, settleMs = 20_000): Promise<Record<string, number>> {
  let last: string[] = [];
  const audit = await eventually(async () => {
    const read = await readAudit(source, showId);
    last = await unsettled(source, read, Date.now());
    return last.length === 0 ? read : undefined;
  }, settleMs, 'paid orders ticketed, refunds done, overdue holds freed, provider verdicts applied').catch((error: unknown) => {
    throw new Error(`${(error as Error).message}: ${last.slice(0, 10).join('; ')}`);
  });

  if (source.provider) {
    // Every charge the provider took is applied: sold, or refunded here.
    const unapplied: string[] = [];
    for (const p of audit.payments) {
      const verdict = await source.provider.getPaymentStatus(p.paymentId);
      if (verdict === 'SUCCEEDED' && p.status !== 'SUCCEEDED' && p.status !== 'REFUNDED') unapplied.push(`${p.paymentId}: provider SUCCEEDED, store ${p.status}`);
      if (verdict === 'FAILED' && p.status !== 'FAILED') unapplied.push(`${p.paymentId}: provider FAILED, store ${p.status}`);
    }
    expect(unapplied).toEqual([]);
  }

  const counts: Record<string, number> = {};
  for (const s of audit.seats) counts[s.status] = (counts[s.status] ?? 0) + 1;
  const count = (status: string) => counts[status] ?? 0;
  expect(count('AVAILABLE') + count('HELD') + count('SOLD'), 'every seat AVAILABLE, HELD or SOLD').toBe(capacity);

  // One admitting ticket per seat, ever.
  const admitting = audit.tickets.filter((k) => k.status !== 'INVALID');
  const seatTickets = new Map<string, number>();
  for (const k of admitting) if (k.seatId !== null) seatTickets.set(k.seatId, (seatTickets.get(k.seatId) ?? 0) + 1);
  expect([...seatTickets].filter(([, n]) => n > 1), 'seats in two admitting tickets').toEqual([]);

  // A seat is SOLD exactly when an admitting ticket names it (seats sold by quantity get theirs
  // when the tickets are issued).
  const bySeat = new Set(audit.sections.filter((s) => s.kind !== 'GENERAL_ADMISSION').map((s) => s.sectionId));
  const soldBySeat = audit.seats.filter((s) => s.status === 'SOLD' && bySeat.has(s.sectionId)).map((s) => s.seatId).sort();
  const ticketedBySeat = admitting.filter((k) => k.seatId !== null && audit.seats.some((s) => s.seatId === k.seatId && bySeat.has(s.sectionId))).map((k) => k.seatId as string).sort();
  expect(ticketedBySeat, 'SOLD seats and admitting tickets agree').toEqual(soldBySeat);

  // Every ticketed order has one ticket per unit it bought.
  const ticketsByOrder = new Map<string, number>();
  for (const k of audit.tickets) ticketsByOrder.set(k.orderId, (ticketsByOrder.get(k.orderId) ?? 0) + 1);
  const unticketed = audit.orders.filter((o) => o.status === 'TICKETED' && (ticketsByOrder.get(o.orderId) ?? 0) !== unitsOf(o.lines)).map((o) => o.orderId);
  expect(unticketed, 'ticketed orders with a ticket count other than their units').toEqual([]);

  // Counted stock: never below zero or above capacity, and what is gone is what live holds and
  // paid orders own (given back exactly once on expiry, release, cancellation and refund).
  const activeHoldIds = new Set(audit.holds.filter((h) => h.status === 'ACTIVE').map((h) => h.holdId));
  for (const section of audit.sections) {
    expect(section.available, `${section.sectionId} stock >= 0`).toBeGreaterThanOrEqual(0);
    expect(section.available, `${section.sectionId} stock <= capacity`).toBeLessThanOrEqual(section.capacity);
    if (section.kind !== 'GENERAL_ADMISSION' && section.sellBy !== 'QUANTITY') continue;
    const owned = audit.holds.filter((h) => h.status === 'ACTIVE').reduce((n, h) => n + unitsOf(h.lines, section.sectionId), 0)
      + audit.orders.filter((o) => soldOrderStatuses.has(o.status) && !activeHoldIds.has(o.holdId)).reduce((n, o) => n + unitsOf(o.lines, section.sectionId), 0);
    expect(section.capacity - section.available, `${section.sectionId}: units gone = units owned by live holds and paid orders`).toBe(owned);
  }

  // Per-user counters: what each buyer holds and bought, never negative.
  if (audit.userUnits !== undefined) {
    const expected = new Map<string, number>();
    for (const h of audit.holds) if (h.status === 'ACTIVE') expected.set(h.userId, (expected.get(h.userId) ?? 0) + unitsOf(h.lines));
    for (const o of audit.orders) {
      if (liveOrderStatuses.has(o.status) && !activeHoldIds.has(o.holdId) && soldOrderStatuses.has(o.status)) expected.set(o.userId, (expected.get(o.userId) ?? 0) + unitsOf(o.lines));
    }
    for (const u of audit.userUnits) expect(u.units, `units of ${u.userId}`).toBeGreaterThanOrEqual(0);
    const stored = Object.fromEntries(audit.userUnits.filter((u) => u.units !== 0).map((u) => [u.userId, u.units]));
    expect(stored, 'per-user unit counters match live holds and paid orders').toEqual(Object.fromEntries([...expected].filter(([, n]) => n !== 0)));
  }

  // Money is never lost: every successful payment bought its seats or was refunded.
  const orderStatus = new Map(audit.orders.map((o) => [o.orderId, o.status]));
  const lostMoney = audit.payments.filter((p) => p.status === 'SUCCEEDED' && !soldOrderStatuses.has(orderStatus.get(p.orderId) ?? '')).map((p) => p.paymentId);
  expect(lostMoney, 'successful payments whose order is not paid').toEqual([]);
  expect(audit.payments.filter((p) => p.status === 'REFUNDED').length, 'refunded payments = refunded orders').toBe(audit.orders.filter((o) => o.status === 'REFUNDED').length);
  return counts;
}

/**
 * The in-memory seat map (what buyers see) agrees with the store. A provider callback may still
 * land between the two reads, so they are compared until they agree; a real divergence never does.
 */
export async function expectSeatMapMatchesStore(baseUrl: string, source: AuditSource, showId: string): Promise<void> {
  const differences = async (): Promise<string[]> => {
    const map = await (await fetch(`${baseUrl}/api/v1/shows/${showId}/seats`)).json() as { seats: { seatId: string; status: string }[] };
    const stored = new Map((await readAudit(source, showId)).seats.map((s) => [s.seatId, s.status]));
    return map.seats.filter((s) => stored.get(s.seatId) !== s.status).map((s) => `${s.seatId}: map ${s.status}, store ${stored.get(s.seatId) ?? 'missing'}`);
  };
  await eventually(async () => ((await differences()).length === 0 ? true : undefined), 5_000, 'seat map in step with the store').catch(() => undefined);
  expect(await differences()).toEqual([]);
}
