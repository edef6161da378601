import { allocatePaidCents, checkExchangeWindow, exchangeDifferenceReason, exchangeTickets, openOrder, planExchange, type ExchangeActor, type ExchangePlan, type Hold, type Order, type Show, type Ticket } from '../domain/index.js';
import type { Exchange, Refund, TicketDraft } from '../ports/engine/index.js';
import type { AppContext } from './context.js';
import { AppError, found, unwrap } from './errors.js';
import { enqueueJob } from './enqueue.js';
import { holdSeats, releaseHold, type HoldRequest } from './holds.js';
import { awaitPayment, beginKey, openPayment, orderRequestHash, withCheckout } from './orders.js';
import { carriedOutOf, sourcePaymentOf } from './money-source.js';
import { processRefundKey, refundView, type RefundView } from './refunds.js';
import { encodeTicketQr } from './ticket-qr.js';
import { orderView, ticketView, type OrderView, type TicketView } from './views.js';

export interface ExchangeCommand {
  readonly userId: string;
  readonly orderId: string;
  /** The show of the new seats; the order's own show when absent. */
  readonly showId: string | null;
  readonly request: HoldRequest;
  /** The tickets to give up (a partial exchange); null or absent: every VALID ticket of the order. */
  readonly ticketIds?: readonly string[] | null;
  /** The X-Admission-Token sent: the new seats' activity may have its waiting room on. */
  readonly admissionToken?: string | undefined;
}

export interface ExchangeView {
  readonly exchangeId: string;
  readonly oldOrderId: string;
  readonly oldTicketIds: string[];
  readonly newOrderId: string;
  readonly newShowId: string;
  readonly differenceCents: number;
  /** COMPLETED: swapped; PENDING: a dearer swap waiting for its difference payment (the order's); ABANDONED: that payment never came. */
  readonly status: Exchange['status'];
  readonly createdAt: string;
}

export interface ExchangeResult {
  readonly exchange: ExchangeView;
  /** A cheaper swap's difference going back to the money's source (PENDING until the provider confirms it); null for an even swap. */
  readonly refund: RefundView | null;
  /** The new order: TICKETED once swapped; for a dearer swap, PENDING_PAY with the difference to pay (its paymentId and checkout). */
  readonly order: OrderView;
  /** The new tickets; none while a dearer swap waits for its payment. */
  readonly tickets: TicketView[];
}

const exchangeView = (e: Exchange): ExchangeView => ({
  exchangeId: e.exchangeId, oldOrderId: e.oldOrderId, oldTicketIds: [...e.oldTicketIds], newOrderId: e.newOrderId, newShowId: e.newShowId,
  differenceCents: e.differenceCents, status: e.status, createdAt: new Date(e.createdAt).toISOString(),
});

export const listCentsOf = (show: Show) => (sectionId: string): number | undefined => show.seatMap.sections.find((s) => s.id === sectionId)?.priceCents;

/** The new hold goes back at once when the swap does not happen (best effort: its expiry frees it anyway). */
async function letGo(ctx: AppContext, userId: string, holdId: string): Promise<void> {
  try {
    await releaseHold(ctx, userId, holdId);
  } catch {
    // Already lapsed or confirmed: nothing to give back.
  }
}

/**
 * An exchange (改签) of a TICKETED order, whole or the named tickets: the new seats are HELD first
 * through the ordinary hold claim (same show or another), then one store operation swaps them in,
 * all or nothing. If anything refuses, the buyer keeps the old tickets and the new hold is
 * released. The buyer may exchange until the show's exchangeUntilHoursBefore; an admin
 * (organizer) any time. Someone else's order is 404. Even and cheaper swaps: the new order holds
 * the value the old tickets carry (their paid prices) less a cheaper swap's difference, which is
 * recorded with the swap as a refund of the old order (no tickets) and paid back through the
 * money's source by the process-refund job. A dearer swap answers PENDING with a new order awaiting
 * the difference's payment; the swap itself commits when that payment succeeds (settleExchangePayment).
 */
export async function exchangeOrder(ctx: AppContext, command: ExchangeCommand): Promise<ExchangeResult> {
  const order = await ctx.store.getOrder(command.orderId);
  const viewer = order === null || order.userId === command.userId ? null : await ctx.store.getUser(command.userId);
  const admin = viewer?.role === 'ADMIN';
  const visible = found(order !== null && (order.userId === command.userId || admin) ? order : null, 'ORDER_NOT_FOUND', 'no such order');
  const oldShow = found(await ctx.store.getShow(visible.showId), 'SHOW_NOT_FOUND', 'no such show');
  const actor: ExchangeActor = admin ? 'ORGANIZER' : 'BUYER';
  // Refusals that need no new seats are given before any hold is placed.
  unwrap(checkExchangeWindow(oldShow, actor, ctx.clock.now()));
  if (visible.status !== 'TICKETED') throw new AppError('ORDER_NOT_TICKETED', `an order in ${visible.status} cannot be exchanged`, { status: visible.status });
  // The tickets to give up (named, or every valid one) are checked before anything is held; the plan checks them again with the hold.
  unwrap(exchangeTickets(await ctx.store.ticketsByOrder(visible.orderId), command.ticketIds ?? null));
  const newShowId = command.showId ?? visible.showId;
  // The hold is the buyer's, whoever asks (an organizer exchanges on the buyer's behalf).
  const { hold } = await holdSeats(ctx, {
    userId: visible.userId, showId: newShowId, request: command.request,
    gate: { path: 'exchange', admissionToken: command.admissionToken, organizer: admin },
  });
  let begun: Exchange | null = null;
  try {
    const newShow = found(await ctx.store.getShow(newShowId), 'SHOW_NOT_FOUND', 'no such show');
    const seatedByQuantity = hold.lines.some((l) => l.kind === 'UNITS' && newShow.seatMap.sections.find((s) => s.id === l.sectionId)?.kind === 'SEATED');
    if (seatedByQuantity) throw new AppError('EXCHANGE_NOT_ALLOWED', 'exchanges into a seated section sold by quantity are not supported; choose seats');
    const now = ctx.clock.now();
    const tickets = await ctx.store.ticketsByOrder(visible.orderId);
    const plan = unwrap(planExchange({
      order: visible, tickets, newHold: hold, actor, now, ticketIds: command.ticketIds ?? null,
      refundedCents: await ctx.store.refundedCentsOfOrder(visible.orderId), carriedOutCents: await carriedOutOf(ctx, visible.orderId), oldListCentsOf: listCentsOf(oldShow),
    }, oldShow));
    if (plan.payCents > 0) {
      const dearer = await beginDearer(ctx, visible, hold, plan, now);
      begun = dearer.exchange;
      return await payDifference(ctx, dearer.exchange, dearer.order);
    }
    const units = hold.lines.flatMap((line) =>
      (line.kind === 'SEATS' ? line.seatIds.map((seatId): string | null => seatId) : Array.from({ length: line.quantity }, (): string | null => null))
        .map((seatId) => ({ sectionId: line.sectionId, seatId })));
    // The new order's charge (the value carried) shared over its tickets by the new seats' list prices.
    const paid = allocatePaidCents(plan.newAmountCents, units.map((u) => listCentsOf(newShow)(u.sectionId) ?? 0));
    const drafts: TicketDraft[] = units.map((u, i) => ({ ticketId: ctx.ids.newId('ticket'), code: ctx.ids.newTicketCode(), ...u, paidCents: paid[i] ?? 0 }));
    const exchange: Exchange = {
      exchangeId: ctx.ids.newId('exchange'), userId: visible.userId, oldOrderId: visible.orderId, oldShowId: visible.showId, oldTicketIds: plan.oldTicketIds,
      newOrderId: ctx.ids.newId('order'), newShowId, newHoldId: hold.holdId, newTicketIds: drafts.map((d) => d.ticketId), differenceCents: plan.differenceCents,
      status: 'COMPLETED', createdAt: now,
    };
    // A cheaper swap's difference: a refund of the old order with no tickets, through the money's source.
    const differenceRefund: Refund | null = plan.refundCents === 0 ? null : {
      refundId: ctx.ids.newId('refund'), orderId: visible.orderId, userId: visible.userId, showId: visible.showId, paymentId: await sourcePaymentOf(ctx, visible.orderId),
      amountCents: plan.refundCents, ticketIds: [], whole: false, status: 'PENDING', reason: exchangeDifferenceReason, requestedBy: actor,
      idempotencyKey: `exchange:${exchange.exchangeId}`, createdAt: now, updatedAt: now,
    };
    const outcome = await ctx.store.swapExchange({ exchange, tickets: drafts, amountCents: plan.newAmountCents, differenceRefund, now });
    if (!outcome.ok) {
      // Nothing was written: the buyer keeps the old tickets.
      if (outcome.stale === 'hold') throw new AppError('HOLD_EXPIRED', 'the new seats\' hold lapsed before the exchange; your tickets are unchanged');
      throw new AppError('ORDER_NOT_TICKETED', 'a ticket of this order changed meanwhile (used, refunded or exchanged); your tickets are unchanged');
    }
    ctx.telemetry.ticketsIssued(outcome.tickets.length);
    if (differenceRefund !== null) enqueueJob(ctx, 'process-refund', { refundId: differenceRefund.refundId }, { key: processRefundKey(differenceRefund.refundId) });
    return {
      exchange: exchangeView(outcome.exchange),
      refund: differenceRefund === null ? null : refundView(differenceRefund),
      order: orderView(outcome.newOrder),
      tickets: outcome.tickets.map((t: Ticket) => ticketView(t, encodeTicketQr(ctx.signer, t))),
    };
  } catch (error) {
    // Releasing the hold cancels a difference order with it (lapseHold); the pending exchange ends ABANDONED.
    await letGo(ctx, visible.userId, hold.holdId);
    if (begun !== null) await ctx.store.abandonExchange(begun.exchangeId, ctx.clock.now()).catch(() => false);
    throw error;
  }
}

/**
 * A dearer swap, first step: the new hold gets an order of its own whose charge is the difference
 * (the new seats' list price less the list price of the tickets given up), and the exchange is
 * recorded PENDING before any payment exists, so a payment for this order is always known to be a
 * difference (settleOnce swaps when it succeeds). The old tickets are untouched until then.
 */
async function beginDearer(ctx: AppContext, old: Order, hold: Hold, plan: ExchangePlan, now: number): Promise<{ exchange: Exchange; order: Order }> {
  const exchangeId = ctx.ids.newId('exchange');
  const opened = unwrap(openOrder({ hold, userId: old.userId, orderId: ctx.ids.newId('order'), idempotencyKey: `exchange:${exchangeId}`, existingOrder: null, now }));
  const exchange: Exchange = {
    exchangeId, userId: old.userId, oldOrderId: old.orderId, oldShowId: old.showId, oldTicketIds: plan.oldTicketIds, newOrderId: opened.orderId,
    newShowId: hold.showId, newHoldId: hold.holdId, newTicketIds: [], differenceCents: plan.differenceCents, status: 'PENDING', createdAt: now,
  };
  const outcome = await ctx.store.openOrder({ ...opened, amountCents: plan.payCents });
  if (!outcome.ok) throw new AppError('HOLD_NOT_ACTIVE', 'the new seats\' hold changed before the exchange; your tickets are unchanged');
  // Before its payment is opened: no payment of this order can be taken for an ordinary one.
  await ctx.store.beginExchange(exchange);
  return { exchange, order: outcome.order };
}

/** The difference order's payment, opened through the provider as any order's (sandbox-pay and the signed callback settle it). */
async function payDifference(ctx: AppContext, exchange: Exchange, order: Order): Promise<ExchangeResult> {
  const begun = await beginKey(ctx, `order:${order.userId}`, order.idempotencyKey, orderRequestHash(order.holdId));
  if (begun.kind === 'replay') throw new AppError('IDEMPOTENCY_REQUEST_IN_FLIGHT', 'this exchange\'s payment was opened already');
  try {
    const payment = await openPayment(ctx, order);
    const pending = await awaitPayment(ctx, begun.claim, order, payment);
    return { exchange: exchangeView(exchange), refund: null, order: withCheckout(orderView(pending), payment), tickets: [] };
  } catch (error) {
    await ctx.store.removeKey(begun.claim).catch(() => undefined);
    throw error;
  }
}
