import type { AppContext } from '../../src/app/context.js';
import { AppError } from '../../src/app/errors.js';
import type { ExchangeCommand } from '../../src/app/exchanges.js';
import { exchangeOrderOnce } from '../../src/app/idempotent-exchanges.js';
import { sweepOverdueHolds } from '../../src/app/expiry.js';
import { holdSeats, releaseHold, type HoldRequest } from '../../src/app/holds.js';
import { cancelOrder, createOrder, type CreateOrderCommand } from '../../src/app/orders.js';
import { applyPaymentReport, reconcilePendingPayments, refundPendingPayments } from '../../src/app/payments.js';
import { processRefund, requestOrderRefund } from '../../src/app/refunds.js';
import { cancelShow, runShowCancellation } from '../../src/app/show-cancellation.js';
import { checkInTicket } from '../../src/app/tickets.js';
import { joinWaitlist } from '../../src/app/waitlist.js';
import type { PaymentReport } from '../../src/domain/index.js';
import { PaymentProviderError } from '../../src/ports/payment-provider.js';
import type { Prng } from './prng.js';
import type { RefundMood } from './scripted-provider.js';
import type { OrderFacts, Snapshot } from './snapshot.js';
import type { SimWorld } from './world.js';

/**
 * The simulation's operations: each draws its target from the store's truth (the snapshot read
 * after the previous step, lists sorted by id so a replay draws the same), calls the application
 * layer as a route or a job would, and answers one line for the step list. A refusal with an
 * application error code is an ordinary outcome; anything else thrown fails the run.
 */

export interface SimCast {
  readonly adminId: string;
  readonly buyers: readonly string[];
  readonly showIds: readonly string[];
  readonly codes: readonly string[];
}

/** What the run remembers to retry a request with the same key. */
export interface Memory {
  readonly orders: { command: CreateOrderCommand; orderId: string | null }[];
  readonly exchanges: { command: ExchangeCommand; key: string; exchangeId: string }[];
  readonly refunds: { userId: string; orderId: string; ticketIds: readonly string[] | null; key: string; refundId: string }[];
}

export interface StepContext {
  readonly world: SimWorld;
  readonly rng: Prng;
  readonly cast: SimCast;
  readonly snapshot: Snapshot;
  readonly memory: Memory;
  readonly step: number;
}

export const operationWeights = {
  hold: 16, order: 12, orderRetry: 2, pay: 12, deliver: 6, latePay: 3, reconcile: 2, cancelOrder: 2, releaseHold: 2,
  refundPart: 6, refundWhole: 5, refundRetry: 1, exchange: 8, exchangeRetry: 2, checkIn: 4, waitlist: 3, advance: 5, restart: 2, cancelShow: 1,
} as const;
export type OperationName = keyof typeof operationWeights;

/** Errors the application answers on purpose; anything else is a failure of the run. */
const refusal = (error: unknown): string => {
  if (error instanceof AppError && error.code !== 'INVARIANT_VIOLATED') return error.code;
  if (error instanceof PaymentProviderError) return 'PROVIDER_AWAY';
  throw error;
};

/** Runs `work`, answering its line, or the refusal's code. */
async function attempt(work: () => Promise<string>): Promise<string> {
  try {
    return await work();
  } catch (error) {
    return `→ ${refusal(error)}`;
  }
}

const refundMood = (rng: Prng): RefundMood => rng.weighted({ confirm: 65, refuse: 20, fail: 15 });

const ordersIn = (s: Snapshot, ...statuses: string[]): OrderFacts[] => s.orders.filter((f) => statuses.includes(f.order.status));
const openShows = (t: StepContext): string[] => t.cast.showIds.filter((id) => !t.snapshot.cancelledShows.has(id));
const activeHolds = (s: Snapshot) => [...s.shows.values()].flatMap((a) => a.holds.filter((h) => h.status === 'ACTIVE')).sort((a, b) => a.holdId.localeCompare(b.holdId));

/** Delivers a provider callback to the application, as the callback route would, once or twice. */
async function deliver(world: SimWorld, report: PaymentReport, times: number): Promise<string> {
  const outcomes: string[] = [];
  for (let i = 0; i < times; i++) {
    outcomes.push(await attempt(async () => applyPaymentReport(world.ctx, report)));
    world.provider.markDelivered(report.paymentId);
  }
  return `${report.paymentId} ${report.status} → ${outcomes.join(', ')}`;
}

async function hold(t: StepContext): Promise<string | null> {
  const { rng, snapshot } = t;
  const userId = rng.pick(t.cast.buyers) as string;
  const showId = rng.pick(openShows(t)) ?? (rng.pick(t.cast.showIds) as string);
  const kind = rng.weighted({ seats: 35, best: 25, standing: 40 });
  let request: HoldRequest;
  if (kind === 'seats') {
    const section = rng.pick(['A', 'B']) as string;
    const seats = (snapshot.shows.get(showId)?.seats ?? []).filter((s) => s.sectionId === section).map((s) => s.seatId).sort();
    request = { kind: 'seats', seatIds: rng.some(seats, rng.int(1, 2)) };
  } else {
    request = { kind: 'best', quantity: rng.int(1, kind === 'best' ? 2 : 3), adjacent: false, section: kind === 'best' ? 'A' : 'G' };
  }
  const line = `${userId} ${showId} ${JSON.stringify(request)}`;
  return `${line} ${await attempt(async () => `→ ${(await holdSeats(t.world.ctx, { userId, showId, request })).hold.holdId}`)}`;
}

async function order(t: StepContext): Promise<string | null> {
  const { rng, world } = t;
  const target = rng.pick(activeHolds(t.snapshot));
  if (target === undefined) return null;
  const code = rng.chance(0.35) ? rng.pick(t.cast.codes) : undefined;
  const command: CreateOrderCommand = { userId: target.userId, holdId: target.holdId, idempotencyKey: `o${t.step}`, ...(code === undefined ? {} : { discountCode: code }) };
  world.provider.createFails = rng.chance(0.08);
  const remembered: { command: CreateOrderCommand; orderId: string | null } = { command, orderId: null };
  t.memory.orders.push(remembered);
  try {
    return `${target.holdId} code ${code ?? '-'}${world.provider.createFails ? ' (provider away)' : ''} ${await attempt(async () => {
      const placed = await createOrder(world.ctx, command);
      remembered.orderId = placed.order.orderId;
      return `→ ${placed.order.orderId} ${placed.order.status} ${placed.order.amountCents}`;
    })}`;
  } finally {
    world.provider.createFails = false;
  }
}

/** The same order request again with its key: it must answer the same order, never a second one. */
async function orderRetry(t: StepContext): Promise<string | null> {
  const earlier = t.rng.pick(t.memory.orders);
  if (earlier === undefined) return null;
  return `${earlier.command.idempotencyKey} ${await attempt(async () => {
    const again = await createOrder(t.world.ctx, earlier.command);
    if (earlier.orderId !== null && again.order.orderId !== earlier.orderId) throw new Error(`key ${earlier.command.idempotencyKey} answered ${again.order.orderId}, first ${earlier.orderId}`);
    earlier.orderId = again.order.orderId;
    return `→ ${again.order.orderId} ${again.order.status}${again.replayed ? ' (replayed)' : ''}`;
  })}`;
}

/** Payments the store awaits whose outcome the card holder has not given yet. */
const payable = (t: StepContext): OrderFacts[] => {
  const undecided = new Set(t.world.provider.undecided());
  return ordersIn(t.snapshot, 'PENDING_PAY').filter((f) => f.order.paymentId !== null && undecided.has(f.order.paymentId));
};

async function pay(t: StepContext): Promise<string | null> {
  const { rng, world } = t;
  const target = rng.pick(payable(t));
  if (target?.order.paymentId == null) return null;
  const report = world.provider.decide(target.order.paymentId, rng.chance(0.75) ? 'SUCCEEDED' : 'FAILED');
  if (report === null) return 'undecidable';
  const delivery = rng.weighted({ now: 60, twice: 15, later: 25 });
  if (delivery === 'later') return `${report.paymentId} ${report.status}, callback held back`;
  world.provider.takeCallback(world.provider.pendingCallbacks().indexOf(report));
  return deliver(world, report, delivery === 'twice' ? 2 : 1);
}

async function deliverHeld(t: StepContext): Promise<string | null> {
  const held = t.world.provider.pendingCallbacks();
  if (held.length === 0) return null;
  const report = t.world.provider.takeCallback(t.rng.int(0, held.length - 1)) as PaymentReport;
  return deliver(t.world, report, t.rng.chance(0.25) ? 2 : 1);
}

/** Paid after the hold expired: the callback arrives once the expiry swept the hold away. */
async function latePay(t: StepContext): Promise<string | null> {
  const { rng, world } = t;
  const target = rng.pick(payable(t));
  if (target?.order.paymentId == null) return null;
  const held = activeHolds(t.snapshot).find((h) => h.holdId === target.order.holdId);
  const report = world.provider.decide(target.order.paymentId, 'SUCCEEDED') as PaymentReport;
  world.provider.takeCallback(world.provider.pendingCallbacks().indexOf(report));
  if (held !== undefined) world.clock.advance(Math.max(0, held.expiresAt - world.clock.now()) + 1_000);
  const swept = await sweepOverdueHolds(world.ctx);
  // The money goes back if the seats are gone: the refund pass the callback starts meets the provider in a mood of its own.
  world.provider.refundMood = refundMood(rng);
  try {
    const delivered = await deliver(world, report, 1);
    await new Promise((resolve) => setImmediate(resolve));
    const refunded = await refundPendingPayments(world.ctx);
    return `${target.order.orderId} hold lapsed (${swept} swept), then ${delivered} (${world.provider.refundMood}: ${refunded} refunded)`;
  } finally {
    world.provider.refundMood = 'confirm';
  }
}

/** Reconciliation reads the verdicts of payments whose callbacks were held back. */
async function reconcile(t: StepContext): Promise<string | null> {
  const { world } = t;
  const applied = await reconcilePendingPayments(world.ctx, 0);
  for (const charge of world.provider.allCharges()) {
    if (charge.status === 'PENDING' || charge.delivered) continue;
    const stored = await world.ctx.store.getPayment(charge.paymentId);
    if (stored !== null && stored.status !== 'PENDING') world.provider.markDelivered(charge.paymentId);
  }
  return `${applied} applied`;
}

async function cancelUnpaid(t: StepContext): Promise<string | null> {
  const target = t.rng.pick(ordersIn(t.snapshot, 'INIT', 'PENDING_PAY'));
  if (target === undefined) return null;
  return `${target.order.orderId} ${await attempt(async () => `→ ${(await cancelOrder(t.world.ctx, target.order.userId, target.order.orderId)).status}`)}`;
}

async function release(t: StepContext): Promise<string | null> {
  const target = t.rng.pick(activeHolds(t.snapshot));
  if (target === undefined) return null;
  return `${target.holdId} ${await attempt(async () => `→ ${(await releaseHold(t.world.ctx, target.userId, target.holdId)).status}`)}`;
}

/** Asks for a refund (the buyer, or an admin for them) and lets the provider answer in the current mood. */
async function refund(t: StepContext, whole: boolean): Promise<string | null> {
  const { rng, world } = t;
  const target = rng.pick(ordersIn(t.snapshot, 'TICKETED').filter((f) => f.tickets.some((k) => k.status === 'VALID')));
  if (target === undefined) return null;
  const valid = target.tickets.filter((k) => k.status === 'VALID').map((k) => k.ticketId);
  const ticketIds = whole ? null : rng.some(valid, rng.int(1, Math.max(1, valid.length - 1)));
  const userId = rng.chance(0.25) ? t.cast.adminId : target.order.userId;
  const key = `r${t.step}`;
  world.provider.refundMood = refundMood(rng);
  try {
    return `${target.order.orderId} ${ticketIds === null ? 'whole' : ticketIds.join(',')} by ${userId === t.cast.adminId ? 'admin' : 'buyer'} (${world.provider.refundMood}) ${await attempt(async () => {
      const asked = await requestOrderRefund(world.ctx, { userId, orderId: target.order.orderId, ticketIds, idempotencyKey: key });
      t.memory.refunds.push({ userId, orderId: target.order.orderId, ticketIds, key, refundId: asked.refund.refundId });
      const settled = await attempt(async () => `${(await processRefund(world.ctx, asked.refund.refundId))?.status ?? 'gone'}`);
      return `→ ${asked.refund.refundId} ${asked.refund.amountCents} ${settled}`;
    })}`;
  } finally {
    world.provider.refundMood = 'confirm';
  }
}

/** The same refund request with its key: the same refund answers, nothing is refunded twice. */
async function refundRetry(t: StepContext): Promise<string | null> {
  const earlier = t.rng.pick(t.memory.refunds);
  if (earlier === undefined) return null;
  return `${earlier.key} ${await attempt(async () => {
    const again = await requestOrderRefund(t.world.ctx, { userId: earlier.userId, orderId: earlier.orderId, ticketIds: earlier.ticketIds, idempotencyKey: earlier.key });
    if (again.refund.refundId !== earlier.refundId || !again.replayed) throw new Error(`refund key ${earlier.key} answered ${again.refund.refundId}, first ${earlier.refundId}`);
    return `→ ${again.refund.refundId} (replayed)`;
  })}`;
}

/**
 * An exchange of a whole order or of some of its tickets (ticketIds): even (same section and count,
 * this show or another), cheaper (A 500 < B 800 < G 1000: the difference refunded through the
 * source, in the provider's mood of the moment) or dearer (202: a new order PENDING_PAY for the
 * difference, which the pay, late-pay and expiry operations then pay, decline or let lapse like any
 * unpaid order; its success swaps, the rest abandon the exchange). The number of
 * new places is the number given up, now and then one fewer (a cheaper swap by count).
 */
async function exchange(t: StepContext): Promise<string | null> {
  const { rng, world } = t;
  const target = rng.pick(ordersIn(t.snapshot, 'TICKETED').filter((f) => f.tickets.some((k) => k.status === 'VALID')));
  if (target === undefined) return null;
  const valid = target.tickets.filter((k) => k.status === 'VALID');
  const partial = valid.length > 1 && rng.chance(0.35);
  const given = partial ? rng.some(valid, rng.int(1, valid.length - 1)) : valid;
  const from = (given[0] as { sectionId: string }).sectionId;
  const even = rng.chance(0.5);
  const section = even ? from : (rng.pick(['A', 'B', 'G'].filter((s) => s !== from)) as string);
  const showId = rng.chance(0.5) ? target.order.showId : (rng.pick(openShows(t)) ?? target.order.showId);
  const quantity = given.length > 1 && rng.chance(0.15) ? given.length - 1 : given.length;
  const request: HoldRequest = { kind: 'best', quantity, adjacent: false, section };
  const userId = rng.chance(0.2) ? t.cast.adminId : target.order.userId;
  const command: ExchangeCommand = { userId, orderId: target.order.orderId, showId, request, ticketIds: partial ? given.map((k) => k.ticketId) : null };
  const key = `x${t.step}`;
  world.provider.refundMood = refundMood(rng);
  try {
    return `${target.order.orderId} ${partial ? `${given.length} of ${valid.length}` : valid.length}×${from} → ${showId} ${quantity}×${section} by ${userId === t.cast.adminId ? 'admin' : 'buyer'} (${world.provider.refundMood}) ${await attempt(async () => {
      const { result } = await exchangeOrderOnce(world.ctx, command, key);
      t.memory.exchanges.push({ command, key, exchangeId: result.exchange.exchangeId });
      // A cheaper swap's difference: the job a server would run at once.
      const back = result.refund === null ? '' : ` back ${result.refund.amountCents} ${await attempt(async () => `${(await processRefund(world.ctx, result.refund?.refundId ?? ''))?.status ?? 'gone'}`)}`;
      const pending = result.exchange.status === 'PENDING' ? ` pending ${result.order.status} ${result.order.paymentId ?? '-'}` : '';
      return `→ ${result.exchange.exchangeId} ${result.order.orderId} ${result.order.amountCents}${back}${pending}`;
    })}`;
  } finally {
    world.provider.refundMood = 'confirm';
  }
}

/** The same exchange with its key: the first answer again, nothing taken twice. */
async function exchangeRetry(t: StepContext): Promise<string | null> {
  const earlier = t.rng.pick(t.memory.exchanges);
  if (earlier === undefined) return null;
  return `${earlier.key} ${await attempt(async () => {
    const again = await exchangeOrderOnce(t.world.ctx, earlier.command, earlier.key);
    if (again.result.exchange.exchangeId !== earlier.exchangeId || !again.replayed) throw new Error(`exchange key ${earlier.key} answered ${again.result.exchange.exchangeId}, first ${earlier.exchangeId}`);
    return `→ ${again.result.exchange.exchangeId} (replayed)`;
  })}`;
}

async function checkIn(t: StepContext): Promise<string | null> {
  const tickets = ordersIn(t.snapshot, 'TICKETED').flatMap((f) => f.tickets.filter((k) => k.status === 'VALID'));
  const ticket = t.rng.pick(tickets);
  if (ticket === undefined) return null;
  return `${ticket.ticketId} ${await attempt(async () => `→ ${(await checkInTicket(t.world.ctx, { code: ticket.code, showId: ticket.showId }, { nonce: null, staffUserId: t.cast.adminId, gate: null, deviceId: null })).outcome}`)}`;
}

async function waitlist(t: StepContext): Promise<string | null> {
  const { rng } = t;
  const userId = rng.pick(t.cast.buyers) as string;
  const showId = rng.pick(t.cast.showIds) as string;
  const body = { section: rng.pick(['A', 'G']) as string, quantity: rng.int(1, 2) };
  return `${userId} ${showId} ${JSON.stringify(body)} ${await attempt(async () => `→ ${(await joinWaitlist(t.world.ctx, userId, showId, body)).status}`)}`;
}

async function advance(t: StepContext): Promise<string | null> {
  const minutes = t.rng.int(1, 15);
  t.world.clock.advance(minutes * 60_000);
  return `${minutes} min`;
}

async function restart(t: StepContext): Promise<string | null> {
  await t.world.restart();
  return `restart ${t.world.restarts}`;
}

/** The organizer cancels a show (while another stays on sale); its refunds go out in the current mood. */
async function cancel(t: StepContext): Promise<string | null> {
  const open = openShows(t);
  if (open.length < 2) return null;
  const showId = t.rng.pick(open) as string;
  const ctx: AppContext = t.world.ctx;
  t.world.provider.refundMood = refundMood(t.rng);
  try {
    return `${showId} (${t.world.provider.refundMood}) ${await attempt(async () => {
      await cancelShow(ctx, showId, 'simulation');
      return `→ ${await attempt(async () => `${await runShowCancellation(ctx, showId)} orders`)}`;
    })}`;
  } finally {
    t.world.provider.refundMood = 'confirm';
  }
}

/** Each answers its step's line, or null when it has nothing to act on now (the step draws another). */
export const operations: Readonly<Record<OperationName, (t: StepContext) => Promise<string | null>>> = {
  hold, order, orderRetry, pay, deliver: deliverHeld, latePay, reconcile, cancelOrder: cancelUnpaid, releaseHold: release,
  refundPart: (t) => refund(t, false), refundWhole: (t) => refund(t, true), refundRetry, exchange, exchangeRetry, checkIn, waitlist, advance, restart, cancelShow: cancel,
};
