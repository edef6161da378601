import type { Order, Ticket } from './entities.js';

/**
 * What each ticket (order line unit) was paid: the order's charge (amountCents, already net of
 * any discount) shared over its units in proportion to their list prices, in integer cents, so
 * the units always sum exactly to the charge (STYLE item 14: money is a ledger; a refund or an
 * exchange of some tickets takes their paid price, never their list price).
 *
 * Rounding rule (largest remainder, in line order): each unit first gets
 * floor(charge × listPrice / totalListPrice); the cents left over (fewer than the number of units)
 * go one each to the units with the largest remainders, ties to the earlier unit in line order.
 * Two seats at 380 with 20% off (608) are 304 + 304; three units of 100 for 200 are 67 + 67 + 66.
 * When every weight is 0 the units are weighed equally.
 */
export function allocatePaidCents(chargeCents: number, weights: readonly number[]): number[] {
  if (weights.length === 0) return [];
  const even = weights.every((w) => w <= 0);
  const w = even ? weights.map(() => 1) : weights.map((x) => Math.max(0, x));
  // BigInt: charge × weight can pass 2^53 for large orders; the shares themselves are safe integers.
  const total = BigInt(w.reduce((sum, x) => sum + x, 0));
  const shares = w.map((x, i) => {
    const exact = BigInt(chargeCents) * BigInt(x);
    return { i, base: Number(exact / total), remainder: exact % total };
  });
  let left = chargeCents - shares.reduce((sum, s) => sum + s.base, 0);
  const paid = shares.map((s) => s.base);
  // Stable sort: equal remainders keep line order.
  for (const s of [...shares].sort((a, b) => (b.remainder > a.remainder ? 1 : b.remainder < a.remainder ? -1 : 0))) {
    if (left <= 0) break;
    paid[s.i] = (paid[s.i] ?? 0) + 1;
    left--;
  }
  return paid;
}

/**
 * Each ticket's paid price, by ticket id. A ticket stored with its paid price keeps it; an order
 * whose tickets were issued before paid prices were stored has its charge allocated now by the
 * rule above over every ticket it ever had (in the order given), weighted by section list price.
 */
export function paidCentsByTicket(
  order: Pick<Order, 'amountCents'>,
  tickets: readonly Pick<Ticket, 'ticketId' | 'sectionId' | 'paidCents'>[],
  listCentsOf: (sectionId: string) => number | undefined,
): Map<string, number> {
  if (tickets.every((t) => t.paidCents !== undefined)) return new Map(tickets.map((t) => [t.ticketId, t.paidCents ?? 0]));
  const paid = allocatePaidCents(order.amountCents, tickets.map((t) => listCentsOf(t.sectionId) ?? 0));
  return new Map(tickets.map((t, i) => [t.ticketId, paid[i] ?? 0]));
}
