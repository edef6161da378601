import { createHash } from 'node:crypto';
import type { AppContext } from './context.js';
import { exchangeOrder, type ExchangeCommand, type ExchangeResult } from './exchanges.js';
import { beginKey, underClaim } from './orders.js';

export interface KeyedExchange {
  readonly result: ExchangeResult;
  /** True when this answers an earlier request with the same key (nothing was exchanged again). */
  readonly replayed: boolean;
}

/** What "the same request" means for an exchange's key: the same order, show, new seats and tickets given up. */
export function exchangeRequestHash(command: Pick<ExchangeCommand, 'orderId' | 'showId' | 'request' | 'ticketIds'>): string {
  const ticketIds = command.ticketIds ?? null;
  // A whole exchange hashes as before (keys stored before partial exchanges still answer).
  return createHash('sha256').update(JSON.stringify({ orderId: command.orderId, showId: command.showId, request: command.request, ...(ticketIds === null ? {} : { ticketIds }) })).digest('hex');
}

/**
 * An exchange under X-Idempotency-Key (issue 32: every money route is idempotent by key), with the
 * orders' semantics: the key's record (scope exchange:<user>) is written IN_FLIGHT before the new
 * seats are held, so of any number of duplicates exactly one exchanges; the others hear
 * IDEMPOTENCY_REQUEST_IN_FLIGHT, or, once it is done, its first answer (the same exchange, new order
 * and tickets, as they were answered). The same key with another body is IDEMPOTENCY_KEY_REUSED. A
 * refused exchange frees the key: it changed nothing (the buyer kept the old tickets, the new hold
 * was let go), so a retry may succeed, as for holds.
 */
export async function exchangeOrderOnce(ctx: AppContext, command: ExchangeCommand, idempotencyKey: string): Promise<KeyedExchange> {
  const begun = await beginKey<ExchangeResult>(ctx, `exchange:${command.userId}`, idempotencyKey, exchangeRequestHash(command));
  if (begun.kind === 'replay') return { result: begun.order, replayed: true };
  const result = await underClaim(ctx, begun.claim, () => exchangeOrder(ctx, command), (r) => r);
  return { result, replayed: false };
}
