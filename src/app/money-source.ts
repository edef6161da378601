import { valueCarriedOut } from '../domain/index.js';
import type { AppContext } from './context.js';

/** More exchanges than any buyer makes of one place; a longer chain is a corrupt store, not a customer. */
const exchangeChainMax = 64;

/**
 * The payment that brought an order's money in (issue 32: refunds reach the money's source). An
 * order bought directly names its payment; an order created by an exchange has none of its own
 * (its value was carried from the old order), so the chain of exchanges is followed back to the
 * order that was paid. null: no payment anywhere on the chain (a free order, or a broken chain),
 * and then no money can be refunded (processRefund refuses rather than record money it never paid).
 */
export async function sourcePaymentOf(ctx: AppContext, orderId: string): Promise<string | null> {
  let current = orderId;
  for (let hop = 0; hop <= exchangeChainMax; hop++) {
    const order = await ctx.store.getOrder(current);
    if (order === null) return null;
    if (order.paymentId !== null) return order.paymentId;
    const exchange = await ctx.store.exchangeIntoOrder(current);
    if (exchange === null) return null;
    current = exchange.oldOrderId;
  }
  return null;
}

/**
 * What exchanges carried out of an order into new orders (valueCarriedOut of each): a partial
 * exchange leaves the order its other tickets, and later refunds and exchanges of those may take
 * only what is left after it.
 */
export async function carriedOutOf(ctx: AppContext, orderId: string): Promise<number> {
  let carried = 0;
  for (const exchange of await ctx.store.exchangesOfOrder(orderId)) {
    const into = await ctx.store.getOrder(exchange.newOrderId);
    if (into !== null) carried += valueCarriedOut(into.amountCents, exchange.differenceCents);
  }
  return carried;
}
