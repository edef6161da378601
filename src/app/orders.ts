import { createHash } from 'node:crypto';
import { isOverdue, limits, moveOrder, openOrder, type Order } from '../domain/index.js';
import type { StoreTx } from '../ports/store.js';
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
  const requestHash = orderRequestHash(command.holdId);
  const started = await beginOrder(ctx, command, scope, requestHash);
  if (started.kind === 'replay') return { order: started.order, replayed: true };
  const { order, claim } = started;
  try {
    const { paymentId } = await ctx.payments.createPayment({ orderId: order.orderId, amountCents: order.amountCents, currency: ctx.policy.currency });
    const pending = await awaitPayment(ctx, claim, order, paymentId);
    ctx.telemetry.orderAttempt('PENDING_PAY');
    return { order: orderView(pending), replayed: false };
  } catch (error) {
    await settleFailedStart(ctx, claim, order, error);
    ctx.telemetry.orderAttempt(error instanceof AppError ? error.code : 'PAYMENT_PROVIDER_UNAVAILABLE');
    if (error instanceof AppError) throw error;
    throw new AppError('PAYMENT_PROVIDER_UNAVAILABLE', 'the payment provider could not open a payment; try again', {
      cause: error instanceof Error ? error.message : String(error),
    });
  }
}

/** What "the same request" means for a key: the same hold. */
export function orderRequestHash(holdId: string): string {
  return createHash('sha256').update(JSON.stringify({ holdId })).digest('hex');
}

type Begun =
  | { kind: 'replay'; order: OrderView }
  | { kind: 'new'; order: Order }
  | { kind: 'refused'; failure: StoredFailure };

/** The IN_FLIGHT record this request wrote: only its writer may answer for the key. */
interface KeyClaim {
  readonly scope: string;
  readonly key: string;
  readonly createdAt: number;
}

async function beginOrder(
  ctx: AppContext, command: CreateOrderCommand, scope: string, requestHash: string,
): Promise<{ kind: 'replay'; order: OrderView } | { kind: 'new'; order: Order; claim: KeyClaim }> {
  const now = ctx.clock.now();
  const claim: KeyClaim = { scope, key: command.idempotencyKey, createdAt: now };
  const begun = await ctx.store.transaction(async (tx): Promise<Begun> => {
    const answered = await earlierAnswer(tx, scope, command.idempotencyKey, requestHash, now);
    if (answered !== null) return answered;
    await tx.idempotency.begin({ scope, key: command.idempotencyKey, requestHash, state: 'IN_FLIGHT', outcome: null, responseBody: null, createdAt: now });
    const outcome = await openOrResume(ctx, tx, command, now);
    // A refusal is an answer too: the same key replays it.
    if (outcome.kind === 'refused') await answer(tx, claim, 'FAILED', outcome.failure);
    if (outcome.kind === 'replay') await answer(tx, claim, 'SUCCEEDED', outcome.order);
    return outcome;
  });
  if (begun.kind === 'refused') throw new AppError(begun.failure.code, begun.failure.message, begun.failure.details);
  return begun.kind === 'new' ? { ...begun, claim } : begun;
}

const answer = (tx: StoreTx, claim: KeyClaim, outcome: 'SUCCEEDED' | 'FAILED', body: OrderView | StoredFailure): Promise<void> =>
  tx.idempotency.complete(claim.scope, claim.key, claim.createdAt, outcome, JSON.stringify(body));

/** Whether the key's record is still the one this request wrote (a retry may have taken it over). */
async function stillHolds(tx: StoreTx, claim: KeyClaim): Promise<boolean> {
  return (await tx.idempotency.get(claim.scope, claim.key))?.createdAt === claim.createdAt;
}

/** The stored answer to this key, if a finished request left one; throws if the key cannot be used now. */
async function earlierAnswer(tx: StoreTx, scope: string, key: string, requestHash: string, now: number): Promise<Begun | null> {
  const existing = await tx.idempotency.get(scope, key);
  if (existing === null) return null;
  if (existing.requestHash !== requestHash) {
    throw new AppError('IDEMPOTENCY_KEY_REUSED', 'this idempotency key was used with a different request');
  }
  if (existing.state === 'IN_FLIGHT') {
    if (now - existing.createdAt <= limits.idempotencyInFlightMsMax) {
      throw new AppError('IDEMPOTENCY_REQUEST_IN_FLIGHT', 'the first request with this key is still being processed; retry shortly');
    }
    // Its request died with its process (or overran every bound): this retry takes the key over.
    await tx.idempotency.remove(scope, key, existing.createdAt);
    return null;
  }
  const body = JSON.parse(existing.responseBody ?? 'null') as unknown;
  return existing.outcome === 'FAILED' ? { kind: 'refused', failure: body as StoredFailure } : { kind: 'replay', order: body as OrderView };
}

/**
 * A key that already opened an order goes on with that order (its first request failed on the way
 * to the provider), so one key never makes two orders; otherwise a new order is opened on the hold.
 */
async function openOrResume(ctx: AppContext, tx: StoreTx, command: CreateOrderCommand, now: number): Promise<Begun> {
  const earlier = await tx.orders.findByIdempotencyKey(command.userId, command.idempotencyKey);
  if (earlier !== null) {
    if (earlier.holdId !== command.holdId) throw new AppError('IDEMPOTENCY_KEY_REUSED', 'this idempotency key was used with a different request');
    if (earlier.status === 'INIT') {
      const hold = await tx.holds.get(earlier.holdId);
      if (hold !== null && hold.status === 'ACTIVE' && !isOverdue(hold, now)) return { kind: 'new', order: earlier };
      return { kind: 'refused', failure: { code: 'HOLD_EXPIRED', message: 'the hold expired before the order could be placed' } };
    }
    if (earlier.status === 'CANCELLED') return { kind: 'refused', failure: { code: 'HOLD_NOT_ACTIVE', message: 'the order begun with this key was cancelled when its hold ended' } };
    return { kind: 'replay', order: orderView(earlier) };
  }
  const hold = await tx.holds.get(command.holdId);
  if (hold === null) return { kind: 'refused', failure: { code: 'HOLD_NOT_FOUND', message: 'no such hold' } };
  const opened = openOrder({
    hold,
    userId: command.userId,
    orderId: ctx.ids.newId('order'),
    idempotencyKey: command.idempotencyKey,
    existingOrder: await liveOrderOf(tx, hold.holdId, now),
    now,
  });
  if (!opened.ok) return { kind: 'refused', failure: opened.error };
  await tx.orders.insert(opened.value);
  return { kind: 'new', order: opened.value };
}

/**
 * The hold's live order. One left in INIT by a request that gave up (its key freed or its
 * request dead) is aborted here, so a buyer who retries with a new key is not locked out.
 */
async function liveOrderOf(tx: StoreTx, holdId: string, now: number): Promise<Order | null> {
  const live = await tx.orders.findLiveByHold(holdId);
  if (live === null || live.status !== 'INIT') return live;
  const record = await tx.idempotency.get(`order:${live.userId}`, live.idempotencyKey);
  const abandoned = record === null || (record.state === 'IN_FLIGHT' && now - record.createdAt > limits.idempotencyInFlightMsMax);
  if (!abandoned) return live;
  await tx.orders.save(unwrap(moveOrder(live, 'ABORT', now)), live.status);
  return null;
}

async function awaitPayment(ctx: AppContext, claim: KeyClaim, order: Order, paymentId: string): Promise<Order> {
  const now = ctx.clock.now();
  return ctx.store.transaction(async (tx) => {
    if (!(await stillHolds(tx, claim))) {
      throw new AppError('IDEMPOTENCY_REQUEST_IN_FLIGHT', 'a retry took this key over while the provider was slow; retry for its answer');
    }
    const current = found(await tx.orders.get(order.orderId), 'ORDER_NOT_FOUND', 'order vanished');
    if (current.status !== 'INIT') {
      // The hold lapsed while the provider was being asked: the order was aborted with it.
      throw new AppError('HOLD_EXPIRED', 'the hold expired before the order could be placed');
    }
    const pending = unwrap(moveOrder(current, 'AWAIT_PAYMENT', now, { paymentId }));
    await tx.orders.save(pending, current.status);
    await tx.payments.insert({ paymentId, orderId: order.orderId, amountCents: order.amountCents, status: 'PENDING', updatedAt: now });
    await answer(tx, claim, 'SUCCEEDED', orderView(pending));
    return pending;
  });
}

/**
 * The order never reached PENDING_PAY. A final refusal aborts it and is stored for the key; any
 * other failure (the provider was down) frees the key and leaves the order in INIT, so a retry
 * with the same key goes on with the same order.
 */
async function settleFailedStart(ctx: AppContext, claim: KeyClaim, order: Order, error: unknown): Promise<void> {
  const now = ctx.clock.now();
  await ctx.store.transaction(async (tx) => {
    // A retry that took the key over answers for it now, and goes on with the order.
    if (!(await stillHolds(tx, claim))) return;
    if (!(error instanceof AppError && finalFailures.has(error.code))) {
      await tx.idempotency.remove(claim.scope, claim.key, claim.createdAt);
      return;
    }
    const current = await tx.orders.get(order.orderId);
    if (current !== null && current.status === 'INIT') {
      await tx.orders.save(unwrap(moveOrder(current, 'ABORT', now)), current.status);
    }
    await answer(tx, claim, 'FAILED', { code: error.code, message: error.message });
  });
}
