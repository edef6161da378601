import { createHash } from 'node:crypto';
import {
  activityTiming, bargainLimits, bargainReady, bargainSectionId, createBargain as layoutBargain, drawCut, planCampaignChange, requireActiveHold,
  type ActivityTiming, type CampaignChange, type NewBargainInput, type Order, detailsOf } from '../domain/index.js';
import type { Bargain, BargainOrder, OrderBargainOutcome } from '../ports/engine/index.js';
import { auditDraft, campaignAction, type Actor } from './audit-trail.js';
import type { AppContext } from './context.js';
import { passBuyerGate, showActivity } from './buyer-gate.js';
import { AppError, unwrap } from './errors.js';
import { scheduleExpiry } from './expiry.js';
import { current, settleFree, type FlashOrderView } from './flash-sales.js';
import { awaitPayment, beginKey, openPayment, settleFailedStart, withCheckout } from './orders.js';
import { again, done, withStaleRetries } from './stale-retry.js';
import { iso, orderView } from './views.js';

/**
 * Bargains (issue 23 item 4, seed 001 砍价): a buyer starts a bargain order, friends each cut it
 * once by a random amount towards the floor, and the buyer orders one unit at the price reached,
 * paid and ticketed like a flash sale's order.
 */
export async function createBargain(ctx: AppContext, input: NewBargainInput, actor: Actor | null = null): Promise<{ bargainId: string }> {
  const bargainId = ctx.ids.newId('bargain');
  const { show, record } = unwrap(layoutBargain({ ...input, currency: input.currency ?? ctx.policy.currency }, bargainId, ctx.clock.now()));
  const audit = auditDraft(ctx, actor, {
    action: 'bargain.created', entityType: 'bargain', entityId: bargainId, showId: bargainId, before: null,
    after: { ...detailsOf(show), goods: record.goods, originalPriceCents: record.originalPriceCents, floorPriceCents: record.floorPriceCents, offline: record.offline },
  });
  await ctx.store.createBargain({ show, record, audit });
  ctx.seatMaps.forgetMissing(bargainId);
  return { bargainId };
}

export interface BargainView extends ActivityTiming {
  bargainId: string;
  activityId: string;
  kind: 'BARGAIN';
  title: string;
  description: string;
  imageUrl: string | null;
  currency: string;
  goods: string;
  originalPriceCents: number;
  floorPriceCents: number;
  cutMinCents: number;
  cutMaxCents: number;
  minCuts: number;
  stock: number;
  available: number;
  saleStartsAt: string;
  saleEndsAt: string;
}

export async function bargainView(ctx: AppContext, bargain: Bargain): Promise<BargainView> {
  const { show, record } = bargain;
  const count = (await ctx.store.availability(show.showId) ?? []).find((a) => a.sectionId === bargainSectionId);
  const stock = show.capacity;
  return {
    bargainId: show.showId, activityId: show.showId, kind: 'BARGAIN', title: show.title, description: show.description, imageUrl: show.imageUrl,
    currency: show.currency ?? ctx.policy.currency, goods: record.goods, originalPriceCents: record.originalPriceCents, floorPriceCents: record.floorPriceCents,
    cutMinCents: record.cutMinCents, cutMaxCents: record.cutMaxCents, minCuts: record.minCuts, stock, available: count?.available ?? stock,
    saleStartsAt: iso(show.saleStartsAt), saleEndsAt: iso(show.saleEndsAt),
    ...activityTiming({ saleStartsAt: show.saleStartsAt, saleEndsAt: show.saleEndsAt, offline: record.offline }, ctx.clock.now()),
  };
}

export async function getBargain(ctx: AppContext, bargainId: string): Promise<BargainView> {
  const bargain = await ctx.store.getBargain(bargainId);
  if (bargain === null) throw new AppError('ACTIVITY_NOT_FOUND', 'no such bargain');
  return bargainView(ctx, bargain);
}

/** Where a friend opens the bargain order to cut it (the web front end's share page). */
export const shareUrlOf = (bargainOrderId: string): string => `/bargain-orders/${encodeURIComponent(bargainOrderId)}`;

export interface StartedBargain {
  bargainOrderId: string;
  currentPriceCents: number;
  cuts: number;
  shareUrl: string;
}

/** Starts the buyer's bargain order, or gives back the one they started (created false). */
export async function startBargain(ctx: AppContext, userId: string, bargainId: string): Promise<{ created: boolean; started: StartedBargain }> {
  // No stock is taken (no admission, no cap); the start's own statement decides the offline switch.
  const show = await ctx.seatMaps.show(bargainId);
  if (show !== null) passBuyerGate(ctx, { path: 'bargain-start', userId, activity: showActivity(show), admissionToken: undefined });
  const outcome = await ctx.store.startBargain({ bargainId, userId, bargainOrderId: ctx.ids.newId('bargainOrder'), now: ctx.clock.now() });
  if (!outcome.ok) {
    switch (outcome.code) {
      case 'BARGAIN_NOT_FOUND': throw new AppError('ACTIVITY_NOT_FOUND', 'no such bargain');
      case 'ACTIVITY_OFFLINE': throw new AppError('ACTIVITY_OFFLINE', 'this bargain has been taken offline by its organizer');
      case 'SALE_NOT_OPEN': throw new AppError('SALE_NOT_OPEN', 'the bargain has not started or has ended');
    }
  }
  const b = outcome.bargainOrder;
  return { created: outcome.created, started: { bargainOrderId: b.bargainOrderId, currentPriceCents: b.currentPriceCents, cuts: b.cuts, shareUrl: shareUrlOf(b.bargainOrderId) } };
}

export interface CutView {
  amountCents: number;
  currentPriceCents: number;
  cuts: number;
}

/** A friend's one cut: the draw made here from the injected random source, clamped to the floor by the store. */
export async function cutBargain(ctx: AppContext, helperId: string, bargainOrderId: string): Promise<CutView> {
  const bargainOrder = await ctx.store.getBargainOrder(bargainOrderId);
  if (bargainOrder === null) throw new AppError('BARGAIN_ORDER_NOT_FOUND', 'no such bargain order');
  const bargain = await ctx.store.getBargain(bargainOrder.bargainId);
  if (bargain === null) throw new AppError('BARGAIN_ORDER_NOT_FOUND', 'no such bargain order');
  passBuyerGate(ctx, { path: 'bargain-cut', userId: helperId, activity: { ...showActivity(bargain.show), offline: bargain.record.offline }, admissionToken: undefined });
  const drawCents = drawCut(bargain.record, ctx.random ?? Math.random);
  const outcome = await ctx.store.cutBargain({ bargainOrderId, helperId, drawCents, now: ctx.clock.now() });
  if (outcome.ok) return { amountCents: outcome.amountCents, currentPriceCents: outcome.currentPriceCents, cuts: outcome.cuts };
  switch (outcome.code) {
    case 'BARGAIN_ORDER_NOT_FOUND': throw new AppError('BARGAIN_ORDER_NOT_FOUND', 'no such bargain order');
    case 'ACTIVITY_OFFLINE': throw new AppError('ACTIVITY_OFFLINE', 'this bargain has been taken offline by its organizer');
    case 'SALE_NOT_OPEN': throw new AppError('SALE_NOT_OPEN', 'the bargain has ended: its bargain orders have lapsed');
    case 'BARGAIN_CLOSED': throw new AppError('BARGAIN_CLOSED', 'this bargain order has been ordered: its price is settled');
    case 'CANNOT_CUT_OWN': throw new AppError('CANNOT_CUT_OWN', 'you started this bargain: share it with friends to cut the price');
    case 'ALREADY_CUT': throw new AppError('ALREADY_CUT', 'you have cut this bargain order already');
    case 'FLOOR_REACHED': throw new AppError('FLOOR_REACHED', 'the price is at its floor');
  }
}

export type BargainOrderStatus = 'CUTTING' | 'READY' | 'ORDERED' | 'LAPSED';

export interface BargainOrderView {
  bargainOrderId: string;
  bargainId: string;
  title: string;
  goods: string;
  currency: string;
  originalPriceCents: number;
  floorPriceCents: number;
  currentPriceCents: number;
  minCuts: number;
  cuts: number;
  status: BargainOrderStatus;
  orderId: string | null;
  shareUrl: string;
  saleEndsAt: string;
  /** Whether the signed-in caller started it (null when anonymous): the page offers "order" or "cut". */
  mine: boolean | null;
  /** Whether the signed-in caller has cut it (null when anonymous). */
  cutByMe: boolean | null;
  /** Every cut, oldest first (helper's name, amount, time): no user ids, the page is public (issue 33). */
  cutList: { helperName: string; amountCents: number; cutAt: string }[];
}

function statusOf(b: BargainOrder, bargain: Bargain, now: number): BargainOrderStatus {
  if (b.orderId !== null) return 'ORDERED';
  // A bargain order lapses at saleEndsAt (or while its bargain is offline nothing can be done).
  if (now >= bargain.show.saleEndsAt) return 'LAPSED';
  return bargainReady(b, bargain.record) ? 'READY' : 'CUTTING';
}

export async function getBargainOrder(ctx: AppContext, bargainOrderId: string, viewerUserId: string | null = null): Promise<BargainOrderView> {
  const b = await ctx.store.getBargainOrder(bargainOrderId);
  const bargain = b === null ? null : await ctx.store.getBargain(b.bargainId);
  if (b === null || bargain === null) throw new AppError('BARGAIN_ORDER_NOT_FOUND', 'no such bargain order');
  const cuts = await ctx.store.listBargainCuts(bargainOrderId, bargainLimits.cutsListedMax);
  return {
    bargainOrderId, bargainId: b.bargainId, title: bargain.show.title, goods: bargain.record.goods,
    currency: bargain.show.currency ?? ctx.policy.currency, originalPriceCents: bargain.record.originalPriceCents, floorPriceCents: bargain.record.floorPriceCents,
    currentPriceCents: b.currentPriceCents, minCuts: bargain.record.minCuts, cuts: b.cuts, status: statusOf(b, bargain, ctx.clock.now()), orderId: b.orderId,
    shareUrl: shareUrlOf(bargainOrderId), saleEndsAt: iso(bargain.show.saleEndsAt),
    mine: viewerUserId === null ? null : viewerUserId === b.userId,
    cutByMe: viewerUserId === null ? null : cuts.some((c) => c.helperId === viewerUserId),
    // The share page is public: names as their owners chose them, never an account's id.
    cutList: cuts.map((c) => ({ helperName: c.helperName, amountCents: c.amountCents, cutAt: iso(c.cutAt) })),
  };
}

export interface BargainOrderCommand {
  readonly userId: string;
  readonly bargainOrderId: string;
  readonly idempotencyKey: string;
  /** The X-Admission-Token sent, for the buyer gate (undefined: none). */
  readonly admissionToken?: string | undefined;
}

/** What "the same request" means for a key: the same bargain order. */
export function bargainOrderRequestHash(bargainOrderId: string): string {
  return createHash('sha256').update(JSON.stringify({ bargainOrderId })).digest('hex');
}

/**
 * The buyer's order at the price reached: one unit and the order in ONE store operation
 * (orderBargain), then the payment as a flash sale's order gets it. Idempotent by
 * X-Idempotency-Key in the same key scope as every order; a bargain order has one order ever,
 * so ordering again with another key answers that order (replayed).
 */
export async function placeBargainOrder(ctx: AppContext, command: BargainOrderCommand): Promise<{ order: FlashOrderView; replayed: boolean }> {
  const begun = await beginKey(ctx, `order:${command.userId}`, command.idempotencyKey, bargainOrderRequestHash(command.bargainOrderId));
  if (begun.kind === 'replay') return { order: await current(ctx, begun.order.orderId, begun.order), replayed: true };
  const { claim } = begun;
  let order: Order | null = null;
  let expiresAt: number | null = null;
  try {
    const earlier = await ctx.store.getOrderByKey(command.userId, command.idempotencyKey);
    if (earlier !== null) {
      // The key's first request opened the order and failed on the way to the provider: go on with it.
      const mine = await ctx.store.getBargainOrder(command.bargainOrderId);
      if (mine === null || mine.orderId !== earlier.orderId) throw new AppError('IDEMPOTENCY_KEY_REUSED', 'this idempotency key was used with a different request');
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
      const taken = await take(ctx, command);
      if ('existing' in taken) {
        // One order per bargain order: another key opened it; answer that order as it stands.
        await ctx.store.completeKey({ ...claim, outcome: 'SUCCEEDED', responseBody: JSON.stringify(orderView(taken.existing)) });
        return { order: await current(ctx, taken.existing.orderId, orderView(taken.existing)), replayed: true };
      }
      ({ order, expiresAt } = taken);
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

async function take(ctx: AppContext, command: BargainOrderCommand): Promise<{ order: Order; expiresAt: number | null } | { existing: Order }> {
  // The bargain is the activity; someone else's bargain order, or none, is left to the statement (404).
  const mine = await ctx.store.getBargainOrder(command.bargainOrderId);
  const show = mine === null || mine.userId !== command.userId ? null : await ctx.seatMaps.show(mine.bargainId);
  if (show !== null) passBuyerGate(ctx, { path: 'bargain-order', userId: command.userId, activity: showActivity(show), admissionToken: command.admissionToken });
  const now = ctx.clock.now();
  const outcome: OrderBargainOutcome = await ctx.store.orderBargain({
    bargainOrderId: command.bargainOrderId, userId: command.userId, holdId: ctx.ids.newId('hold'), orderId: ctx.ids.newId('order'),
    idempotencyKey: command.idempotencyKey, now, expiresAt: now + ctx.policy.holdSecondsDefault * 1000,
  });
  if (outcome.ok) {
    scheduleExpiry(ctx, outcome.hold);
    return { order: outcome.order, expiresAt: outcome.hold.expiresAt };
  }
  switch (outcome.code) {
    case 'BARGAIN_ORDER_NOT_FOUND': throw new AppError('BARGAIN_ORDER_NOT_FOUND', 'no such bargain order of yours');
    case 'ACTIVITY_OFFLINE': throw new AppError('ACTIVITY_OFFLINE', 'this bargain has been taken offline by its organizer');
    case 'SALE_NOT_OPEN': throw new AppError('SALE_NOT_OPEN', 'the bargain has ended: its bargain orders have lapsed');
    case 'BARGAIN_NOT_READY': throw new AppError('BARGAIN_NOT_READY', 'neither the floor nor the minimum number of cuts has been reached');
    case 'SOLD_OUT': throw new AppError('SOLD_OUT', 'the goods are sold out', { available: outcome.available });
    case 'ALREADY_ORDERED':
    case 'KEY_TAKEN': {
      const id = outcome.orderId !== '' ? outcome.orderId : (await ctx.store.getBargainOrder(command.bargainOrderId))?.orderId ?? null;
      const existing = id === null ? null : await ctx.store.getOrder(id);
      if (existing === null) throw new AppError('IDEMPOTENCY_REQUEST_IN_FLIGHT', 'the first order of this bargain is still being opened; retry shortly');
      if (outcome.code === 'KEY_TAKEN') return { order: existing, expiresAt: (await ctx.store.getHold(existing.holdId))?.expiresAt ?? null };
      return { existing };
    }
  }
}

/** An organizer's change of a bargain (PATCH /admin/activities/{id}): as a flash sale's, on the stored version; other processes take it through 'show.changed'. */
export async function changeBargain(ctx: AppContext, bargainId: string, change: CampaignChange, actor: Actor | null = null): Promise<BargainView> {
  const bargain = await withStaleRetries('updateBargain', async () => {
    const stored = await ctx.store.getBargain(bargainId);
    if (stored === null) throw new AppError('ACTIVITY_NOT_FOUND', 'no such bargain');
    const { show, record } = stored;
    const next = unwrap(planCampaignChange({
      title: show.title, description: show.description, imageUrl: show.imageUrl, saleStartsAt: show.saleStartsAt, saleEndsAt: show.saleEndsAt, offline: record.offline,
    }, change));
    const before = { title: show.title, description: show.description, imageUrl: show.imageUrl, saleStartsAt: show.saleStartsAt, saleEndsAt: show.saleEndsAt, offline: record.offline };
    const audit = auditDraft(ctx, actor, { action: campaignAction('bargain', before, next), entityType: 'bargain', entityId: bargainId, showId: bargainId, before, after: { ...next } });
    const outcome = await ctx.store.updateBargain({ bargainId, expectedVersion: show.version, details: next, audit, now: ctx.clock.now() });
    if (outcome.ok) return done(outcome.bargain);
    if ('stale' in outcome) return again(outcome);
    throw new AppError('ACTIVITY_NOT_FOUND', 'no such bargain');
  });
  ctx.seatMaps.replaceShow(bargain.show);
  return bargainView(ctx, bargain);
}
