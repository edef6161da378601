import { createHash } from 'node:crypto';
import { moveOrder, openOrder, type Order } from '../domain/index.js';
import type { AppContext } from './context.js';
import { AppError, found, unwrap, type AppErrorCode } from './errors.js';
import { orderView, type OrderView } from './views.js';

export interface CreateOrderCommand {
  readonly userId: string;
  readonly holdId: string;
  readonly idempotencyKey: string;
}

export interface CreateOrderResult {
  readonly order: OrderView;
  /** True when this answer is the stored answer to an earlier request with the same key. */
  readonly replayed: boolean;
}

interface StoredFailure {
  readonly code: AppErrorCode;
  readonly message: string;
  readonly details?: Readonly<Record<string, unknown>>;
}

/** Failures worth replaying for the same key; anything else frees the key so a retry can succeed. */
const finalFailures: ReadonlySet<AppErrorCode> = new Set<AppErrorCode>([
  'HOLD_NOT_FOUND', 'HOLD_NOT_OWNED', 'HOLD_NOT_ACTIVE', 'HOLD_EXPIRED', 'HOLD_ALREADY_ORDERED',
]);

/**
 * Creates an order the way payment APIs treat idempotency keys: the first answer to a key is
 * stored and replayed; the same key with a different body is refused; a key whose first request
 * is still running answers "in flight" instead of starting a second order.
 */
export async function createOrder(ctx: AppContext, command: CreateOrderCommand): Promise<CreateOrderResult> {
  const scope = `order:${command.userId}`;
  const requestHash = createHash('sha256').update(JSON.stringify({ holdId: command.holdId })).digest('hex');
  const started = await beginOrder(ctx, command, scope, requestHash);
  if (started.kind === 'replay') return { order: started.order, replayed: true };
  let order = started.order;
  try {
    const { paymentId } = await ctx.payments.createPayment({ orderId: order.orderId, amountCents: order.amountCents, currency: ctx.policy.currency });
    order = await awaitPayment(ctx, scope, command.idempotencyKey, order, paymentId);
    ctx.telemetry.orderAttempt('PENDING_PAY');
    return { order: orderView(order), replayed: false };
  } catch (error) {
    await settleFailedStart(ctx, scope, command.idempotencyKey, order, error);
    ctx.telemetry.orderAttempt(error instanceof AppError ? error.code : 'PAYMENT_PROVIDER_UNAVAILABLE');
    if (error instanceof AppError) throw error;
    throw new AppError('PAYMENT_PROVIDER_UNAVAILABLE', 'the payment provider could not open a payment; try again', {
      cause: error instanceof Error ? error.message : String(error),
    });
  }
}

type Begun =
  | { kind: 'replay'; order: OrderView }
  | { kind: 'new'; order: Order }
  | { kind: 'refused'; failure: StoredFailure };

async function beginOrder(ctx: AppContext, command: CreateOrderCommand, scope: string, requestHash: string): Promise<Begun & { kind: 'replay' | 'new' }> {
  const now = ctx.clock.now();
  const begun = await ctx.store.transaction(async (tx): Promise<Begun> => {
    const existing = await tx.idempotency.get(scope, command.idempotencyKey);
    if (existing !== null) {
      if (existing.requestHash !== requestHash) {
        throw new AppError('IDEMPOTENCY_KEY_REUSED', 'this idempotency key was used with a different request');
      }
      if (existing.state === 'IN_FLIGHT') {
        throw new AppError('IDEMPOTENCY_REQUEST_IN_FLIGHT', 'the first request with this key is still being processed; retry shortly');
      }
      const body = JSON.parse(existing.responseBody ?? 'null') as unknown;
      return existing.outcome === 'FAILED' ? { kind: 'refused', failure: body as StoredFailure } : { kind: 'replay', order: body as OrderView };
    }
    await tx.idempotency.begin({ scope, key: command.idempotencyKey, requestHash, state: 'IN_FLIGHT', outcome: null, responseBody: null, createdAt: now });
    const hold = await tx.holds.get(command.holdId);
    const opened = hold === null
      ? null
      : openOrder({ hold, userId: command.userId, orderId: ctx.ids.newId('order'), idempotencyKey: command.idempotencyKey, existingOrder: await tx.orders.findLiveByHold(hold.holdId), now });
    if (opened === null || !opened.ok) {
      // A refusal is an answer too: the same key replays it.
      const failure: StoredFailure = opened === null ? { code: 'HOLD_NOT_FOUND', message: 'no such hold' } : opened.error;
      await tx.idempotency.complete(scope, command.idempotencyKey, 'FAILED', JSON.stringify(failure));
      return { kind: 'refused', failure };
    }
    await tx.orders.insert(opened.value);
    return { kind: 'new', order: opened.value };
  });
  if (begun.kind === 'refused') throw new AppError(begun.failure.code, begun.failure.message, begun.failure.details);
  return begun;
}

async function awaitPayment(ctx: AppContext, scope: string, key: string, order: Order, paymentId: string): Promise<Order> {
  const now = ctx.clock.now();
  return ctx.store.transaction(async (tx) => {
    const current = found(await tx.orders.get(order.orderId), 'ORDER_NOT_FOUND', 'order vanished');
    if (current.status !== 'INIT') {
      // The hold lapsed while the provider was being asked: the order was aborted with it.
      throw new AppError('HOLD_EXPIRED', 'the hold expired before the order could be placed');
    }
    const pending = unwrap(moveOrder(current, 'AWAIT_PAYMENT', now, { paymentId }));
    await tx.orders.save(pending, current.status);
    await tx.payments.insert({ paymentId, orderId: order.orderId, amountCents: order.amountCents, status: 'PENDING', updatedAt: now });
    await tx.idempotency.complete(scope, key, 'SUCCEEDED', JSON.stringify(orderView(pending)));
    return pending;
  });
}

/** The order never reached PENDING_PAY: abort it; store a final refusal or free the key for a retry. */
async function settleFailedStart(ctx: AppContext, scope: string, key: string, order: Order, error: unknown): Promise<void> {
  const now = ctx.clock.now();
  await ctx.store.transaction(async (tx) => {
    const current = await tx.orders.get(order.orderId);
    if (current !== null && current.status === 'INIT') {
      await tx.orders.save(unwrap(moveOrder(current, 'ABORT', now)), current.status);
    }
    if (error instanceof AppError && finalFailures.has(error.code)) {
      await tx.idempotency.complete(scope, key, 'FAILED', JSON.stringify({ code: error.code, message: error.message }));
    } else {
      await tx.idempotency.remove(scope, key);
    }
  });
}
