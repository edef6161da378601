import { allocatePaidCents, paidCentsByTicket, type Order, type Payment, type Show } from '../domain/index.js';
import type { Exchange, PayExchangeOutcome, TicketDraft } from '../ports/engine/index.js';
import type { AppContext } from './context.js';
import { carriedOutOf } from './money-source.js';

const listCentsOf = (show: Show | null) => (sectionId: string): number | undefined => show?.seatMap.sections.find((s) => s.id === sectionId)?.priceCents;

/**
 * The dearer exchange (改签) waiting for this order's payment, if any: the order is the difference
 * order of a PENDING (or already ABANDONED) exchange. A COMPLETED one is an ordinary paid order now.
 */
export async function exchangeAwaitingPayment(ctx: AppContext, orderId: string): Promise<Exchange | null> {
  const exchange = await ctx.store.exchangeIntoOrder(orderId);
  return exchange === null || exchange.status === 'COMPLETED' ? null : exchange;
}

/**
 * The difference of a dearer swap was paid: the swap commits with the payment, in one store
 * transaction (payExchange). The new order's value is what the tickets given up carry (their paid
 * prices, bounded by what is left of the old order after its refunds and other exchanges) plus
 * the difference paid, shared over the new tickets by the new seats' list prices. stale 'ticket':
 * an old ticket is no longer VALID (used, refunded or exchanged meanwhile); the caller refunds the
 * difference instead.
 */
export async function swapOnPayment(ctx: AppContext, exchange: Exchange, payment: Payment, order: Order, now: number): Promise<PayExchangeOutcome> {
  const old = await ctx.store.getOrder(exchange.oldOrderId);
  if (old === null) return { ok: false, stale: 'ticket' };
  const oldTickets = await ctx.store.ticketsByOrder(old.orderId);
  const given = new Set(exchange.oldTicketIds);
  if (oldTickets.filter((t) => given.has(t.ticketId) && t.status === 'VALID').length !== given.size) return { ok: false, stale: 'ticket' };
  const oldShow = await ctx.store.getShow(old.showId);
  const paid = paidCentsByTicket(old, oldTickets, listCentsOf(oldShow));
  const paidOfGiven = exchange.oldTicketIds.reduce((sum, id) => sum + (paid.get(id) ?? 0), 0);
  const left = old.amountCents - (await ctx.store.refundedCentsOfOrder(old.orderId)) - (await carriedOutOf(ctx, old.orderId));
  const carriedCents = Math.max(0, Math.min(paidOfGiven, left));
  const amountCents = carriedCents + payment.amountCents;
  const newShow = await ctx.store.getShow(order.showId);
  const units = order.lines.flatMap((line) =>
    (line.kind === 'SEATS' ? line.seatIds.map((seatId): string | null => seatId) : Array.from({ length: line.quantity }, (): string | null => null))
      .map((seatId) => ({ sectionId: line.sectionId, seatId })));
  const shares = allocatePaidCents(amountCents, units.map((u) => listCentsOf(newShow)(u.sectionId) ?? 0));
  const tickets: TicketDraft[] = units.map((u, i) => ({ ticketId: ctx.ids.newId('ticket'), code: ctx.ids.newTicketCode(), ...u, paidCents: shares[i] ?? 0 }));
  return ctx.store.payExchange({ exchange, paymentId: payment.paymentId, tickets, amountCents, now });
}
