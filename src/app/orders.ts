import { createHash } from 'node:crypto';
import {
  applyDiscount, buyerCancellation, checkHoldOwner, isOverdue, limits, moveOrder, normalizeDiscountCode, openOrder, requireActiveHold,
  type Hold, type Order, type OrderContact, type OrderDiscount,
} from '../domain/index.js';
import { applyPaymentReport } from './payments.js';
import { passOrderGate } from './buyer-gate.js';
import type { IdempotencyRecord, KeyClaim } from '../ports/engine/index.js';
import type { AppContext } from './context.js';
import { cancelExpiry } from './enqueue.js';
import { AppError, appFailure, found, unwrap, type AppErrorCode, type AppFailure } from './errors.js';
import { again, done, withStaleRetries } from './stale-retry.js';
import { scheduleOffered, waitlistTerms } from './waitlist-terms.js';
import { iso, orderView, type OrderView } from './views.js';

export interface CreateOrderCommand {
  readonly userId: string;
  readonly holdId: string;
  readonly idempotencyKey: string;
  /** A discount code the buyer typed (issue 25 item 6); the server prices the order with it. */
  readonly discountCode?: string;
  /** The buyer's contact for the organizer (seed 002 §5). */
  readonly contact?: OrderContact;
  /** The X-Admission-Token sent, for the buyer gate (undefined: none). */
  readonly admissionToken?: string | undefined;
}

export interface CreateOrderResult {
  readonly order: OrderView;
  /** True when this answer is the stored answer to an earlier request with the same key. */
  readonly replayed: boolean;
}

/** Failures worth replaying for the same key; anything else frees the key so a retry can succeed. */
const finalFailures: ReadonlySet<AppErrorCode> = new Set<AppErrorCode>([
  'HOLD_NOT_FOUND', 'HOLD_NOT_OWNED', 'HOLD_NOT_ACTIVE', 'HOLD_EXPIRED', 'HOLD_ALREADY_ORDERED',
]);

/** Rounds of "someone else moved first" (a key written, an order opened, a hold changed) before BUSY. */
const roundsMax = limits.staleRetriesMax + 1;

const busy = (what: string): AppError =>
  new AppError('BUSY', `too many concurrent changes to this ${what}; try again shortly`, { retryAfterSeconds: limits.busyRetryAfterSeconds });

/**
 * Creates an order the way payment APIs treat idempotency keys: the first answer to a key is
 * stored and replayed; the same key with a different body is refused; a key whose first request
 * is still running answers "in flight" instead of starting a second order. Each step is one store
 * operation; the key record's createdAt says which request may answer for the key, so a request
 * whose key a retry took over changes nothing more.
 */
export async function createOrder(ctx: AppContext, command: CreateOrderCommand): Promise<CreateOrderResult> {
  await passOrderGate(ctx, { userId: command.userId, holdId: command.holdId, admissionToken: command.admissionToken });
  const scope = `order:${command.userId}`;
  const requestHash = orderRequestHash(command.holdId, command);
  const begun = await beginKey(ctx, scope, command.idempotencyKey, requestHash);
  if (begun.kind === 'replay') return { order: begun.order, replayed: true };
  const { claim } = begun;
  let order: Order | null = null;
  try {
    const opened = await openOrResume(ctx, command);
    if (opened.kind === 'replay') {
      await ctx.store.completeKey({ ...claim, outcome: 'SUCCEEDED', responseBody: JSON.stringify(opened.order) });
      return { order: opened.order, replayed: false };
    }
    order = opened.order;
    // Nothing to pay (a discount took the whole price): paid at once, with no provider call.
    if (order.amountCents === 0) return { order: await settleFreeOrder(ctx, claim, order), replayed: false };
    const payment = await openPayment(ctx, order);
    return { order: withCheckout(orderView(await awaitPayment(ctx, claim, order, payment)), payment), replayed: false };
  } catch (error) {
    await settleFailedStart(ctx, claim, order, error).catch(() => undefined);
    throw error;
  }
}

/** What "the same request" means for a key: the same hold (and the same code and contact, when given). */
export function orderRequestHash(holdId: string, extras: { discountCode?: string; contact?: OrderContact } = {}): string {
  const body = {
    holdId,
    ...(extras.discountCode === undefined ? {} : { discountCode: normalizeDiscountCode(extras.discountCode) }),
    ...(extras.contact === undefined ? {} : { contact: extras.contact }),
  };
  return createHash('sha256').update(JSON.stringify(body)).digest('hex');
}

/** No money to take: the order goes through the same settlement as a paid one, its payment a free one. */
async function settleFreeOrder(ctx: AppContext, claim: KeyClaim, order: Order): Promise<OrderView> {
  const paymentId = `free_${order.orderId}`;
  await awaitPayment(ctx, claim, order, paymentId);
  await applyPaymentReport(ctx, { paymentId, orderId: order.orderId, status: 'SUCCEEDED', amountCents: 0 });
  return orderView(found(await ctx.store.getOrder(order.orderId), 'ORDER_NOT_FOUND', 'no such order'));
}

/** The discount's verdict for an order of this hold: refusals thrown with their own codes. */
async function discountFor(ctx: AppContext, raw: string | undefined, hold: Hold, now: number): Promise<OrderDiscount | undefined> {
  if (raw === undefined) return undefined;
  const discount = await ctx.store.getDiscount(normalizeDiscountCode(raw));
  return unwrap(applyDiscount(discount, { showId: hold.showId, priceCents: hold.totalPriceCents, now }));
}

/** The store could not take the code's use: say precisely why, from the code as it is now. */
async function discountRefusal(ctx: AppContext, code: 'DISCOUNT_USED_UP' | 'DISCOUNT_PER_USER_LIMIT' | 'DISCOUNT_UNAVAILABLE', order: Order): Promise<never> {
  if (code === 'DISCOUNT_USED_UP') throw new AppError('DISCOUNT_USED_UP', 'this discount code has been used up');
  if (code === 'DISCOUNT_PER_USER_LIMIT') throw new AppError('DISCOUNT_PER_USER_LIMIT', 'you have used this discount code as often as it allows');
  const discount = await ctx.store.getDiscount(order.discount?.code ?? '');
  unwrap(applyDiscount(discount, { showId: order.showId, priceCents: order.amountCents, now: ctx.clock.now() }));
  throw new AppError('DISCOUNT_UNKNOWN', 'no such discount code');
}

/** How long a key stays IN_FLIGHT before its request counts as dead (TICKETRUSH_IDEMPOTENCY_IN_FLIGHT_SECONDS). */
function inFlightMs(ctx: AppContext): number {
  return ctx.policy.idempotencyInFlightMs ?? limits.idempotencyInFlightMsMax;
}

/**
 * `T`: the stored answer's shape (an order's view; a hold's id for holds). `takenOver`: the record
 * of a dead request this one took the key over from (null: the key was free), so a use case can
 * look for what that request made before it died (idempotent-holds.ts).
 */
export type Begun<T = OrderView> = { kind: 'replay'; order: T } | { kind: 'claimed'; claim: KeyClaim; takenOver: KeyClaim | null };

/**
 * Writes this request's IN_FLIGHT record for the key, or answers from the record already there.
 * A record whose request died (IN_FLIGHT past the policy's idempotencyInFlightMs) is taken over. When
 * the store says the key was written first by someone else (beginKey false), that record is read
 * and honoured: this request never goes on without its own record.
 */
export async function beginKey<T = OrderView>(ctx: AppContext, scope: string, key: string, requestHash: string): Promise<Begun<T>> {
  for (let round = 0; round < roundsMax; round++) {
    const now = ctx.clock.now();
    const existing = await ctx.store.getKey(scope, key);
    let takenOver: KeyClaim | null = null;
    if (existing !== null) {
      const answered = earlierAnswer<T>(existing, requestHash, now - inFlightMs(ctx));
      if (answered !== null) return answered;
      // Its request died with its process (or overran every bound): this retry takes the key over.
      takenOver = { scope, key, createdAt: existing.createdAt };
      await ctx.store.removeKey(takenOver);
    }
    const record: IdempotencyRecord = { scope, key, requestHash, state: 'IN_FLIGHT', outcome: null, responseBody: null, createdAt: now };
    const begun = await ctx.store.beginKey(record);
    if (begun.ok) return { kind: 'claimed', claim: { scope, key, createdAt: now }, takenOver };
    // Someone wrote the key between our read and our write: read it again and honour it.
  }
  throw busy('idempotency key');
}

/**
 * A claimed key's work (holds, exchanges): a refusal frees the key, since nothing changed and a
 * retry may succeed; a success is remembered as `stored(result)`. A retry that took the key over
 * meanwhile (this request outlived the in-flight bound) answers for the key: completeKey then
 * changes nothing, and this request still gets its own result.
 */
export async function underClaim<R>(ctx: AppContext, claim: KeyClaim, work: () => Promise<R>, stored: (result: R) => unknown): Promise<R> {
  let result: R;
  try {
    result = await work();
  } catch (error) {
    await ctx.store.removeKey(claim).catch(() => undefined);
    throw error;
  }
  await ctx.store.completeKey({ ...claim, outcome: 'SUCCEEDED', responseBody: JSON.stringify(stored(result)) });
  return result;
}

/** The stored answer to this key; null when the record is a dead request's (take it over); throws if the key cannot be used now. */
function earlierAnswer<T>(existing: IdempotencyRecord, requestHash: string, deadBefore: number): Begun<T> | null {
  if (existing.requestHash !== requestHash) {
    throw new AppError('IDEMPOTENCY_KEY_REUSED', 'this idempotency key was used with a different request');
  }
  if (existing.state === 'IN_FLIGHT') {
    if (existing.createdAt >= deadBefore) {
      throw new AppError('IDEMPOTENCY_REQUEST_IN_FLIGHT', 'the first request with this key is still being processed; retry shortly');
    }
    return null;
  }
  const body = JSON.parse(existing.responseBody ?? 'null') as unknown;
  if (existing.outcome === 'FAILED') {
    const failure = body as AppFailure;
    throw new AppError(failure.code, failure.message, failure.details);
  }
  return { kind: 'replay', order: body as T };
}

type Opened = { kind: 'replay'; order: OrderView } | { kind: 'new'; order: Order };

const refuse = (failure: AppFailure): never => {
  throw new AppError(failure.code, failure.message, failure.details);
};

/**
 * A key that already opened an order goes on with that order (its first request failed on the way
 * to the provider), so one key never makes two orders; otherwise a new order is opened on the hold.
 * Refusals are thrown; createOrder stores the final ones for the key.
 */
async function openOrResume(ctx: AppContext, command: CreateOrderCommand): Promise<Opened> {
  for (let round = 0; round < roundsMax; round++) {
    const now = ctx.clock.now();
    const earlier = await ctx.store.getOrderByKey(command.userId, command.idempotencyKey);
    if (earlier !== null) return resume(ctx, earlier, command, now);
    const hold = await ctx.store.getHold(command.holdId);
    if (hold === null) throw new AppError('HOLD_NOT_FOUND', 'no such hold');
    // Before liveOrderOf, which may abort the hold's half-made order: someone else's request must
    // change nothing of a hold that is not theirs.
    const owner = checkHoldOwner(hold, command.userId);
    if (!owner.ok) refuse(appFailure(owner.error));
    const live = await liveOrderOf(ctx, hold.holdId, now);
    if (live === 'stale') continue;
    const discount = await discountFor(ctx, command.discountCode, hold, now);
    const order = unwrap(openOrder({
      hold, userId: command.userId, orderId: ctx.ids.newId('order'), idempotencyKey: command.idempotencyKey, existingOrder: live, now,
      ...(command.contact === undefined ? {} : { contact: command.contact }),
      ...(discount === undefined ? {} : { discount }),
    }));
    const outcome = await ctx.store.openOrder(order);
    if (outcome.ok) return { kind: 'new', order: outcome.order };
    if ('stale' in outcome) continue; // the hold changed: decide again on what it is now
    if (outcome.code === 'DISCOUNT_USED_UP' || outcome.code === 'DISCOUNT_PER_USER_LIMIT' || outcome.code === 'DISCOUNT_UNAVAILABLE') {
      return discountRefusal(ctx, outcome.code, order);
    }
    if (outcome.code === 'HOLD_ALREADY_ORDERED') {
      throw new AppError('HOLD_ALREADY_ORDERED', 'an order already exists for this hold', { orderId: outcome.orderId });
    }
    // KEY_TAKEN: a request with this key opened its order first; the next round goes on with it.
  }
  throw busy('hold');
}

async function resume(ctx: AppContext, earlier: Order, command: CreateOrderCommand, now: number): Promise<Opened> {
  if (earlier.holdId !== command.holdId) throw new AppError('IDEMPOTENCY_KEY_REUSED', 'this idempotency key was used with a different request');
  if (earlier.status !== 'INIT' && earlier.status !== 'CANCELLED') return { kind: 'replay', order: orderView(earlier) };
  // A hold that ended answers as it does on every route; only an active one goes on.
  const hold = await ctx.store.getHold(earlier.holdId);
  if (hold === null) throw new AppError('HOLD_NOT_FOUND', 'no such hold');
  unwrap(requireActiveHold(hold, now));
  if (earlier.status === 'INIT') return { kind: 'new', order: earlier };
  throw new AppError('HOLD_NOT_ACTIVE', 'the order begun with this key was cancelled');
}

/**
 * The hold's live order. One left in INIT by a request that gave up (its key freed or its
 * request dead) is aborted here, so a buyer who retries with a new key is not locked out.
 */
async function liveOrderOf(ctx: AppContext, holdId: string, now: number): Promise<Order | null | 'stale'> {
  const live = await ctx.store.liveOrderOfHold(holdId);
  if (live === null || live.status !== 'INIT') return live;
  const record = await ctx.store.getKey(`order:${live.userId}`, live.idempotencyKey);
  const abandoned = record === null || (record.state === 'IN_FLIGHT' && now - record.createdAt > inFlightMs(ctx));
  if (!abandoned) return live;
  const aborted = await ctx.store.abortOrder({ orderId: live.orderId, now });
  return aborted.ok ? null : 'stale';
}

/**
 * Asks the provider for the order's payment, keyed by the order id: a retry, or a request that took
 * the key over, gets the same payment back, never a second one. Only the provider's own failure is
 * PAYMENT_PROVIDER_UNAVAILABLE ("nothing was charged").
 */
export async function openPayment(ctx: AppContext, order: Order): Promise<OpenedPayment> {
  // The show's own currency (chosen at its creation); the configured one for shows from before.
  const currency = (await ctx.seatMaps.show(order.showId))?.currency ?? ctx.policy.currency;
  try {
    const created = await ctx.payments.createPayment({
      orderId: order.orderId, amountCents: order.amountCents, currency, idempotencyKey: order.orderId,
    });
    return { paymentId: created.paymentId, checkoutUrl: created.redirectUrl ?? null };
  } catch (error) {
    throw new AppError('PAYMENT_PROVIDER_UNAVAILABLE', 'the payment provider could not open a payment; try again', {
      cause: error instanceof Error ? error.message : String(error),
    });
  }
}

/** The provider's payment for an order, and the hosted page the buyer pays on (Stripe Checkout), if any. */
export interface OpenedPayment {
  readonly paymentId: string;
  readonly checkoutUrl: string | null;
}

/** The order's answer, with the hosted payment page to send the buyer to when the provider has one. */
export function withCheckout<T extends OrderView>(view: T, payment: OpenedPayment): T {
  return payment.checkoutUrl === null ? view : { ...view, checkoutUrl: payment.checkoutUrl };
}

export async function awaitPayment(ctx: AppContext, claim: KeyClaim, order: Order, opened: OpenedPayment | string): Promise<Order> {
  const payment = typeof opened === 'string' ? { paymentId: opened, checkoutUrl: null } : opened;
  const paymentId = payment.paymentId;
  const now = ctx.clock.now();
  const pending = unwrap(moveOrder(order, 'AWAIT_PAYMENT', now, { paymentId }));
  const outcome = await ctx.store.awaitPayment({
    orderId: order.orderId,
    payment: { paymentId, orderId: order.orderId, amountCents: order.amountCents, status: 'PENDING', updatedAt: now, ...(payment.checkoutUrl === null ? {} : { checkoutUrl: payment.checkoutUrl }) },
    now,
    key: claim,
    // A replay for the key answers the same hosted page, so a retried checkout lands on it too.
    responseBody: JSON.stringify(withCheckout(orderView(pending), payment)),
  });
  if (outcome.ok) return outcome.order;
  if ('code' in outcome) {
    throw new AppError('IDEMPOTENCY_REQUEST_IN_FLIGHT', 'a retry took this key over while the provider was slow; retry for its answer');
  }
  // The order is no longer INIT: its hold ended while the provider was being asked (the order was
  // cancelled with it). Say how, in the words every route uses for that hold.
  const hold = await ctx.store.getHold(order.holdId);
  if (hold !== null) unwrap(requireActiveHold(hold, ctx.clock.now()));
  throw new AppError('HOLD_EXPIRED', 'the hold expired before the order could be placed');
}

/**
 * The order never reached PENDING_PAY. A final refusal aborts it and is stored for the key; any
 * other failure (the provider was down, the store was busy) frees the key and leaves the order in
 * INIT, so a retry with the same key goes on with the same order. Both act only on this request's
 * record: a retry that took the key over answers for it now.
 */
export async function settleFailedStart(ctx: AppContext, claim: KeyClaim, order: Order | null, error: unknown): Promise<void> {
  if (!(error instanceof AppError && finalFailures.has(error.code))) {
    await ctx.store.removeKey(claim);
    return;
  }
  if (order !== null) await ctx.store.abortOrder({ orderId: order.orderId, now: ctx.clock.now() });
  const failure: AppFailure = error.details === undefined ? { code: error.code, message: error.message } : { code: error.code, message: error.message, details: error.details };
  await ctx.store.completeKey({ ...claim, outcome: 'FAILED', responseBody: JSON.stringify(failure) });
}

/**
 * The buyer calls off their unpaid order (INIT or PENDING_PAY): its hold is released at once, which
 * cancels the order in the same store operation (lapseHold), so the seats are free again the
 * moment the answer arrives. Someone else's order is ORDER_NOT_FOUND (ids cannot be probed); a paid
 * one ORDER_ALREADY_PAID; one cancelled or refunded ORDER_NOT_CANCELLABLE. Money that still
 * arrives for a cancelled order is sold late or refunded, as for any lapsed hold.
 */
export async function cancelOrder(ctx: AppContext, userId: string, orderId: string): Promise<OrderView> {
  const cancelled = await withStaleRetries('order', async () => {
    const order = await ctx.store.getOrder(orderId);
    if (order === null || order.userId !== userId) throw new AppError('ORDER_NOT_FOUND', 'no such order');
    unwrap(buyerCancellation(order));
    const hold = found(await ctx.store.getHold(order.holdId), 'HOLD_NOT_FOUND', 'the order has no hold');
    // An unpaid order lives exactly as long as its ACTIVE hold (lapseHold cancels both together):
    // an ended hold here is a read torn by a lapse in between, so read both again.
    if (hold.status !== 'ACTIVE') return again({ ok: false, stale: 'hold' });
    const now = ctx.clock.now();
    // Overdue but not swept yet: it expires now rather than being released, as the sweep would.
    const outcome = await ctx.store.lapseHold({ holdId: hold.holdId, event: isOverdue(hold, now) ? 'EXPIRE' : 'RELEASE', expectedExpiresAt: hold.expiresAt, now, waitlist: await waitlistTerms(ctx, hold, now) });
    if (!outcome.ok) {
      if ('code' in outcome) throw new AppError('HOLD_NOT_FOUND', 'the order has no hold');
      return again(outcome);
    }
    scheduleOffered(ctx, outcome);
    cancelExpiry(ctx, hold.holdId);
    return done(outcome.cancelledOrder);
  });
  // The lapse cancels the order with its hold; re-read it only in the case the port allows none.
  return orderView(cancelled ?? found(await ctx.store.getOrder(orderId), 'ORDER_NOT_FOUND', 'no such order'));
}

/**
 * When the buyer must have paid an unpaid order (INIT or PENDING_PAY): its hold's expiry, since the
 * order is cancelled with the hold. null for any other order.
 */
export async function paymentDueAt(ctx: AppContext, order: Pick<OrderView, 'status' | 'holdId'>): Promise<string | null> {
  if (order.status !== 'INIT' && order.status !== 'PENDING_PAY') return null;
  const hold = await ctx.store.getHold(order.holdId);
  return hold === null || hold.status !== 'ACTIVE' ? null : iso(hold.expiresAt);
}
