import { createHash } from 'node:crypto';
import {
  activityTiming, createFlashSale as layoutFlashSale, flashSaleLimits, planCampaignChange, requireActiveHold, type ActivityTiming, type CampaignChange,
  type NewFlashSaleInput, type Order, detailsOf } from '../domain/index.js';
import type { FlashSale, TakeFlashSaleOutcome } from '../ports/engine/index.js';
import { auditDraft, campaignAction, type Actor } from './audit-trail.js';
import type { AppContext } from './context.js';
import { passBuyerGate, showActivity } from './buyer-gate.js';
import { AppError, unwrap } from './errors.js';
import { scheduleExpiry } from './expiry.js';
import { awaitPayment, beginKey, openPayment, settleFailedStart, withCheckout } from './orders.js';
import { applyPaymentReport } from './payments.js';
import { again, done, withStaleRetries } from './stale-retry.js';
import { iso, orderView, type OrderView } from './views.js';

/** Flash sales (issue 23, seed 001 秒杀): counted stock of the engine sold one step at a time. */
export async function createFlashSale(ctx: AppContext, input: NewFlashSaleInput, actor: Actor | null = null): Promise<{ flashSaleId: string }> {
  const flashSaleId = ctx.ids.newId('flashSale');
  const { show, record } = unwrap(layoutFlashSale({ ...input, currency: input.currency ?? ctx.policy.currency }, flashSaleId, ctx.clock.now()));
  const audit = auditDraft(ctx, actor, {
    action: 'flash_sale.created', entityType: 'flash_sale', entityId: flashSaleId, showId: flashSaleId, before: null,
    after: { ...detailsOf(show), items: record.items.length, maxPerUser: record.maxPerUser, offline: record.offline },
  });
  await ctx.store.createFlashSale({ show, record, audit });
  ctx.seatMaps.forgetMissing(flashSaleId);
  return { flashSaleId };
}

export interface FlashSaleItemView {
  itemId: string;
  name: string;
  priceCents: number;
  originalPriceCents: number;
  stock: number;
  /** Units not taken by a live order or sold. */
  available: number;
  sold: number;
}

export interface FlashSaleView extends ActivityTiming {
  flashSaleId: string;
  activityId: string;
  kind: 'FLASH_SALE';
  title: string;
  description: string;
  imageUrl: string | null;
  currency: string;
  saleStartsAt: string;
  saleEndsAt: string;
  maxPerUser: number;
  items: FlashSaleItemView[];
}

export async function flashSaleView(ctx: AppContext, sale: FlashSale): Promise<FlashSaleView> {
  const now = ctx.clock.now();
  const { show, record } = sale;
  const counts = new Map((await ctx.store.availability(show.showId) ?? []).map((a) => [a.sectionId, a]));
  const originals = new Map(record.items.map((i) => [i.itemId, i.originalPriceCents]));
  return {
    flashSaleId: show.showId,
    activityId: show.showId,
    kind: 'FLASH_SALE',
    title: show.title,
    description: show.description,
    imageUrl: show.imageUrl,
    currency: show.currency ?? ctx.policy.currency,
    saleStartsAt: iso(show.saleStartsAt),
    saleEndsAt: iso(show.saleEndsAt),
    maxPerUser: record.maxPerUser,
    ...activityTiming({ saleStartsAt: show.saleStartsAt, saleEndsAt: show.saleEndsAt, offline: record.offline }, now),
    items: show.seatMap.sections.map((s) => {
      const stock = s.kind === 'GENERAL_ADMISSION' ? s.capacity : 0;
      const count = counts.get(s.id);
      return {
        itemId: s.id, name: s.name, priceCents: s.priceCents, originalPriceCents: originals.get(s.id) ?? s.priceCents,
        stock, available: count?.available ?? stock, sold: count?.sold ?? 0,
      };
    }),
  };
}

export async function getFlashSale(ctx: AppContext, flashSaleId: string): Promise<FlashSaleView> {
  const sale = await ctx.store.getFlashSale(flashSaleId);
  if (sale === null) throw new AppError('ACTIVITY_NOT_FOUND', 'no such flash sale');
  return flashSaleView(ctx, sale);
}

export interface FlashOrderCommand {
  readonly userId: string;
  readonly flashSaleId: string;
  readonly itemId: string;
  readonly quantity: number;
  readonly idempotencyKey: string;
  /** The X-Admission-Token sent, for the buyer gate (undefined: none). */
  readonly admissionToken?: string | undefined;
}

/** A flash-sale order as its route answers: the order, and until it is paid when it lapses. */
export type FlashOrderView = OrderView & { expiresAt: string | null };

/** What "the same request" means for a key: the same sale, item and quantity. */
export function flashOrderRequestHash(command: Pick<FlashOrderCommand, 'flashSaleId' | 'itemId' | 'quantity'>): string {
  return createHash('sha256').update(JSON.stringify({ flashSaleId: command.flashSaleId, itemId: command.itemId, quantity: command.quantity })).digest('hex');
}

/**
 * The buyer's one step: the units and the order in ONE store operation (takeFlashSaleUnits), then
 * the payment the way a show's order gets it (the provider, then awaitPayment: PENDING_PAY). The
 * order lapses with its hold (the engine's expiry gives the units back exactly once). A zero-price
 * item is settled at once as a payment of 0 that no provider is asked for. Idempotent by
 * X-Idempotency-Key as POST /orders is (the same key scope: one key never opens two orders).
 */
export async function placeFlashOrder(ctx: AppContext, command: FlashOrderCommand): Promise<{ order: FlashOrderView; replayed: boolean }> {
  if (!Number.isInteger(command.quantity) || command.quantity < 1 || command.quantity > flashSaleLimits.quantityMax) {
    throw new AppError('PURCHASE_LIMIT_REACHED', `at most ${flashSaleLimits.quantityMax} units in one order`, { limit: flashSaleLimits.quantityMax, claimed: 0, requested: command.quantity });
  }
  const begun = await beginKey(ctx, `order:${command.userId}`, command.idempotencyKey, flashOrderRequestHash(command));
  if (begun.kind === 'replay') return { order: await current(ctx, begun.order.orderId, begun.order), replayed: true };
  const { claim } = begun;
  let order: Order | null = null;
  // When the order lapses unless paid: the hold's expiry (known here, so the answer reads nothing more).
  let expiresAt: number | null = null;
  try {
    const earlier = await ctx.store.getOrderByKey(command.userId, command.idempotencyKey);
    if (earlier !== null) {
      // The key's first request opened the order and failed on the way to the provider: go on with it.
      if (earlier.activityId !== command.flashSaleId) throw new AppError('IDEMPOTENCY_KEY_REUSED', 'this idempotency key was used with a different request');
      if (earlier.status !== 'INIT') {
        const view = orderView(earlier);
        await ctx.store.completeKey({ ...claim, outcome: 'SUCCEEDED', responseBody: JSON.stringify(view) });
        return { order: await current(ctx, earlier.orderId, view), replayed: false };
      }
      const hold = await ctx.store.getHold(earlier.holdId);
      if (hold === null) throw new AppError('HOLD_NOT_FOUND', 'the order has no hold');
      unwrap(requireActiveHold(hold, ctx.clock.now()));
      order = earlier;
      expiresAt = hold.expiresAt;
    } else {
      ({ order, expiresAt } = await take(ctx, command));
    }
    if (order.amountCents === 0) return { order: await settleFree(ctx, claim, order), replayed: false };
    const payment = await openPayment(ctx, order);
    const pending = await awaitPayment(ctx, claim, order, payment);
    return { order: { ...withCheckout(orderView(pending), payment), expiresAt: expiresAt === null ? null : iso(expiresAt) }, replayed: false };
  } catch (error) {
    await settleFailedStart(ctx, claim, order, error).catch(() => undefined);
    throw error;
  }
}

async function take(ctx: AppContext, command: FlashOrderCommand): Promise<{ order: Order; expiresAt: number | null }> {
  // The gate from memory; the take's own statement decides the offline switch and the buyer's cap under its lock.
  const show = await ctx.seatMaps.show(command.flashSaleId);
  if (show !== null) passBuyerGate(ctx, { path: 'flash-sale-order', userId: command.userId, activity: showActivity(show), admissionToken: command.admissionToken });
  const now = ctx.clock.now();
  const outcome: TakeFlashSaleOutcome = await ctx.store.takeFlashSaleUnits({
    flashSaleId: command.flashSaleId,
    itemId: command.itemId,
    userId: command.userId,
    quantity: command.quantity,
    holdId: ctx.ids.newId('hold'),
    orderId: ctx.ids.newId('order'),
    idempotencyKey: command.idempotencyKey,
    now,
    expiresAt: now + ctx.policy.holdSecondsDefault * 1000,
  });
  if (outcome.ok) {
    ctx.seatMaps.apply(outcome.changes);
    scheduleExpiry(ctx, outcome.hold);
    return { order: outcome.order, expiresAt: outcome.hold.expiresAt };
  }
  switch (outcome.code) {
    case 'FLASH_SALE_NOT_FOUND': throw new AppError('ACTIVITY_NOT_FOUND', 'no such flash sale');
    case 'ITEM_NOT_FOUND': throw new AppError('ITEM_NOT_FOUND', `no item ${command.itemId} in this sale`);
    case 'ACTIVITY_OFFLINE': throw new AppError('ACTIVITY_OFFLINE', 'this sale has been taken offline by its organizer');
    case 'SALE_NOT_OPEN': throw new AppError('SALE_NOT_OPEN', 'the sale has not started or has ended');
    case 'SOLD_OUT': throw new AppError('SOLD_OUT', `not enough left for ${command.quantity}`, { available: outcome.available });
    case 'PURCHASE_LIMIT_REACHED':
      throw new AppError('PURCHASE_LIMIT_REACHED', `one buyer may have at most ${outcome.limit} units of this sale`, {
        limit: outcome.limit, claimed: outcome.claimed, requested: command.quantity,
      });
    case 'KEY_TAKEN': {
      // A request with the same key opened its order first (between our read and our step).
      const taken = await ctx.store.getOrder(outcome.orderId);
      if (taken === null) throw new AppError('IDEMPOTENCY_REQUEST_IN_FLIGHT', 'the first request with this key is still being processed; retry shortly');
      return { order: taken, expiresAt: (await ctx.store.getHold(taken.holdId))?.expiresAt ?? null };
    }
  }
}

/** No money to take: the order is paid at once through the same settlement, with no provider call. */
export async function settleFree(ctx: AppContext, claim: Parameters<typeof awaitPayment>[1], order: Order): Promise<FlashOrderView> {
  const paymentId = `free_${order.orderId}`;
  await awaitPayment(ctx, claim, order, paymentId);
  await applyPaymentReport(ctx, { paymentId, orderId: order.orderId, status: 'SUCCEEDED', amountCents: 0 });
  return current(ctx, order.orderId, orderView(order));
}

/** The order as stored now (a replay shows what became of it), with its payment deadline while unpaid. */
export async function current(ctx: AppContext, orderId: string, fallback: OrderView): Promise<FlashOrderView> {
  const order = await ctx.store.getOrder(orderId);
  const view = order === null ? fallback : orderView(order);
  let expiresAt: string | null = null;
  if (view.status === 'INIT' || view.status === 'PENDING_PAY') {
    const hold = await ctx.store.getHold(view.holdId);
    expiresAt = hold === null || hold.status !== 'ACTIVE' ? null : iso(hold.expiresAt);
  }
  return { ...view, expiresAt };
}

/**
 * An organizer's change of a flash sale: words, picture, the sale's end, offline or back on sale.
 * Decided on the stored version and applied only on it (no lost update); this process's read model
 * takes the new show at once, the others' through the change's 'show.changed' outbox row.
 */
export async function changeFlashSale(ctx: AppContext, flashSaleId: string, change: CampaignChange, actor: Actor | null = null): Promise<FlashSaleView> {
  const sale = await withStaleRetries('updateCampaign', async () => {
    const stored = await ctx.store.getFlashSale(flashSaleId);
    if (stored === null) throw new AppError('ACTIVITY_NOT_FOUND', 'no such flash sale');
    const { show, record } = stored;
    const next = unwrap(planCampaignChange({
      title: show.title, description: show.description, imageUrl: show.imageUrl, saleStartsAt: show.saleStartsAt, saleEndsAt: show.saleEndsAt, offline: record.offline,
    }, change));
    const before = { title: show.title, description: show.description, imageUrl: show.imageUrl, saleStartsAt: show.saleStartsAt, saleEndsAt: show.saleEndsAt, offline: record.offline };
    const audit = auditDraft(ctx, actor, { action: campaignAction('flash_sale', before, next), entityType: 'flash_sale', entityId: flashSaleId, showId: flashSaleId, before, after: { ...next } });
    const outcome = await ctx.store.updateCampaign({ activityId: flashSaleId, expectedVersion: show.version, details: next, audit, now: ctx.clock.now() });
    if (outcome.ok) return done(outcome.sale);
    if ('stale' in outcome) return again(outcome);
    throw new AppError('ACTIVITY_NOT_FOUND', 'no such flash sale');
  });
  ctx.seatMaps.replaceShow(sale.show);
  return flashSaleView(ctx, sale);
}
