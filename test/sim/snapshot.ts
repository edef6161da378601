import type { AppContext } from '../../src/app/context.js';
import { sourcePaymentOf } from '../../src/app/money-source.js';
import type { Order, Payment, Ticket } from '../../src/domain/index.js';
import type { Exchange, Refund, ShowAudit } from '../../src/ports/engine/index.js';

/** One order as the store has it, with everything its money depends on. */
export interface OrderFacts {
  readonly order: Order;
  readonly payment: Payment | null;
  readonly tickets: readonly Ticket[];
  readonly refunds: readonly Refund[];
  /** Exchanges that gave up this order's tickets. */
  readonly exchangesOut: readonly Exchange[];
  /** The exchange that created this order, if one did. */
  readonly exchangeIn: Exchange | null;
  /** The payment each refund goes back through (its own, or the chain's source). */
  readonly refundPayment: ReadonlyMap<string, string | null>;
}

/** The store's truth after a step: every simulated show's audit read and every order's facts, sorted by id. */
export interface Snapshot {
  readonly shows: ReadonlyMap<string, ShowAudit>;
  readonly orders: readonly OrderFacts[];
  readonly cancelledShows: ReadonlySet<string>;
}

export async function readSnapshot(ctx: AppContext, showIds: readonly string[]): Promise<Snapshot> {
  const shows = new Map<string, ShowAudit>();
  const cancelledShows = new Set<string>();
  const orderIds: string[] = [];
  for (const showId of showIds) {
    const audit = await ctx.store.audit(showId);
    if (audit === null) throw new Error(`the store lost show ${showId}`);
    shows.set(showId, audit);
    if ((await ctx.store.getShow(showId))?.cancelledAt != null) cancelledShows.add(showId);
    orderIds.push(...audit.orders.map((o) => o.orderId));
  }
  const orders: OrderFacts[] = [];
  for (const orderId of orderIds.sort()) {
    const order = await ctx.store.getOrder(orderId);
    if (order === null) throw new Error(`the audit names order ${orderId}, the store has none`);
    const refunds = await ctx.store.refundsByOrder(orderId);
    const refundPayment = new Map<string, string | null>();
    for (const r of refunds) refundPayment.set(r.refundId, r.paymentId ?? await sourcePaymentOf(ctx, orderId));
    orders.push({
      order,
      payment: order.paymentId === null ? null : await ctx.store.getPayment(order.paymentId),
      tickets: [...await ctx.store.ticketsByOrder(orderId)].sort((a, b) => a.ticketId.localeCompare(b.ticketId)),
      refunds,
      // Only swaps done: a dearer one still waiting for (or abandoned without) its difference gave nothing up.
      exchangesOut: (await ctx.store.exchangesOfOrder(orderId)).filter((e) => e.status === 'COMPLETED'),
      exchangeIn: await ctx.store.exchangeIntoOrder(orderId),
      refundPayment,
    });
  }
  return { shows, orders, cancelledShows };
}
