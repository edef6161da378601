import { paymentToCollect } from '../domain/index.js';
import type { AppContext } from './context.js';
import { AppError, found, unwrap } from './errors.js';

/**
 * The payment a buyer may pay for their order now. Someone else's order is reported as missing;
 * a hold that expired, was released or was confirmed is refused with the same code as on every
 * other route of that hold.
 */
export async function payableOrderPayment(ctx: AppContext, userId: string, orderId: string): Promise<string> {
  const now = ctx.clock.now();
  const order = await ctx.store.getOrder(orderId);
  const hold = order === null ? null : await ctx.store.getHold(order.holdId);
  if (order === null || order.userId !== userId) throw new AppError('ORDER_NOT_FOUND', 'no such order');
  return unwrap(paymentToCollect(order, found(hold, 'HOLD_NOT_FOUND', 'the order has no hold'), now));
}
