import { randomUUID } from 'node:crypto';
import { createBargain, createFlashSale, createShow, type Hold, type Order, type Payment, type SectionSpec, type Show } from '../../src/domain/index.js';
import type { ClaimOutcome, Store } from '../../src/ports/engine/index.js';

/** Plain domain data for driving the store port directly, as the application would. */
export const T0 = Date.UTC(2030, 0, 1);
export const minute = 60_000;

export const seated = (id: string, rows: number, seatsPerRow: number, sellBy: 'SEAT' | 'QUANTITY' = 'SEAT', priceCents = 5000): SectionSpec =>
  ({ id, name: `Section ${id}`, kind: 'SEATED', rows, seatsPerRow, priceCents, sellBy, accessible: [] });
export const ga = (id: string, capacity: number, priceCents = 4000): SectionSpec => ({ id, name: `Standing ${id}`, kind: 'GENERAL_ADMISSION', capacity, priceCents });

export const id = (prefix: string): string => `${prefix}_${randomUUID().replace(/-/g, '').slice(0, 16)}`;

export async function newShow(store: Store, sections: readonly SectionSpec[], maxSeatsPerUser: number | null = null): Promise<Show> {
  const made = createShow({
    showId: id('show'), title: 'Contract', venue: 'Hall', city: 'Town',
    startsAt: T0 + 30 * 86_400_000, saleStartsAt: T0 - 86_400_000, saleEndsAt: T0 + 20 * 86_400_000,
    seatMap: { sections }, maxSeatsPerUser,
  }, T0 - 2 * 86_400_000);
  if (!made.ok) throw new Error(`createShow: ${made.error.code} ${made.error.message}`);
  await store.createShow(made.value);
  return made.value.show;
}

export async function newUser(store: Store): Promise<string> {
  const userId = id('user');
  const inserted = await store.insertUser({ userId, username: userId, passwordHash: 'x', role: 'BUYER', createdAt: T0 });
  if (!inserted.ok) throw new Error('insertUser refused');
  return userId;
}

export const claimBase = (show: Show, userId: string, overrides: { now?: number; ttl?: number; userUnitsMax?: number } = {}) => {
  const now = overrides.now ?? T0;
  return { holdId: id('hold'), showId: show.showId, userId, now, expiresAt: now + (overrides.ttl ?? 10 * minute), userUnitsMax: overrides.userUnitsMax ?? 1_000 };
};

export function held(outcome: ClaimOutcome): Hold {
  if (!outcome.ok) throw new Error(`claim refused: ${JSON.stringify(outcome)}`);
  return outcome.hold;
}

export function newOrder(hold: Hold, key = id('key'), now = hold.createdAt + 1): Order {
  return {
    orderId: id('order'), userId: hold.userId, showId: hold.showId, holdId: hold.holdId, idempotencyKey: key,
    lines: hold.lines, amountCents: hold.totalPriceCents, status: 'INIT', paymentId: null, createdAt: now, updatedAt: now,
  };
}

/** Opens an order and moves it to PENDING_PAY with a payment, as order creation does. */
export async function orderAwaitingPayment(store: Store, hold: Hold, now = hold.createdAt + 1): Promise<{ order: Order; payment: Payment }> {
  const order = newOrder(hold, id('key'), now);
  const opened = await store.openOrder(order);
  if (!opened.ok) throw new Error(`openOrder: ${JSON.stringify(opened)}`);
  const key = { scope: `orders:${hold.userId}`, key: order.idempotencyKey, createdAt: now };
  const begun = await store.beginKey({ ...key, requestHash: 'h', state: 'IN_FLIGHT', outcome: null, responseBody: null });
  if (!begun.ok) throw new Error('beginKey refused');
  const payment: Payment = { paymentId: id('pay'), orderId: order.orderId, amountCents: order.amountCents, status: 'PENDING', updatedAt: now };
  const awaited = await store.awaitPayment({ orderId: order.orderId, payment, now, key, responseBody: '{}' });
  if (!awaited.ok) throw new Error(`awaitPayment: ${JSON.stringify(awaited)}`);
  return { order: awaited.order, payment };
}

export async function audit(store: Store, showId: string) {
  const read = await store.audit(showId);
  if (read === null) throw new Error(`no audit for ${showId}`);
  return read;
}

/** A flash sale on sale at T0 (issue 23): items TEA (stock, price) and a free CUP. */
export async function newFlashSale(store: Store, options: { stock?: number; maxPerUser?: number; priceCents?: number } = {}): Promise<string> {
  const flashSaleId = id('fls');
  const made = createFlashSale({
    title: 'Contract sale', saleStartsAt: T0 - minute, saleEndsAt: T0 + 60 * minute, maxPerUser: options.maxPerUser ?? 2,
    items: [
      { itemId: 'TEA', name: 'Tea', priceCents: options.priceCents ?? 1500, originalPriceCents: 3000, stock: options.stock ?? 10 },
      { itemId: 'CUP', name: 'Cup', priceCents: 0, originalPriceCents: 500, stock: 5 },
    ],
  }, flashSaleId, T0 - 2 * minute);
  if (!made.ok) throw new Error(`createFlashSale: ${made.error.message}`);
  await store.createFlashSale(made.value);
  return flashSaleId;
}

export const takeInput = (flashSaleId: string, userId: string, overrides: Partial<{ itemId: string; quantity: number; key: string; now: number }> = {}) => ({
  flashSaleId, userId, itemId: overrides.itemId ?? 'TEA', quantity: overrides.quantity ?? 1,
  holdId: id('hold'), orderId: id('order'), idempotencyKey: overrides.key ?? id('key'), now: overrides.now ?? T0, expiresAt: (overrides.now ?? T0) + 10 * minute,
});

/** A bargain on sale at T0 (issue 23 item 4): 10000 cut towards 6000 by 100-500 a helper, 3 cuts to order. */
export async function newBargain(store: Store, options: Partial<{ stock: number; originalPriceCents: number; floorPriceCents: number; cutMinCents: number; cutMaxCents: number; minCuts: number }> = {}): Promise<string> {
  const bargainId = id('brg');
  const made = createBargain({
    title: 'Contract bargain', goods: 'Kettle', originalPriceCents: options.originalPriceCents ?? 10_000, floorPriceCents: options.floorPriceCents ?? 6_000,
    cutMinCents: options.cutMinCents ?? 100, cutMaxCents: options.cutMaxCents ?? 500, minCuts: options.minCuts ?? 3, stock: options.stock ?? 5,
    saleStartsAt: T0 - minute, saleEndsAt: T0 + 60 * minute,
  }, bargainId, T0 - 2 * minute);
  if (!made.ok) throw new Error(`createBargain: ${made.error.message}`);
  await store.createBargain(made.value);
  return bargainId;
}

/** Starts `userId`'s bargain order of `bargainId` at T0 and returns its id. */
export async function startedBargain(store: Store, bargainId: string, userId: string): Promise<string> {
  const started = await store.startBargain({ bargainId, userId, bargainOrderId: id('bgo'), now: T0 });
  if (!started.ok) throw new Error(`startBargain: ${started.code}`);
  return started.bargainOrder.bargainOrderId;
}

export const cutInput = (bargainOrderId: string, helperId: string, drawCents: number, now = T0) => ({ bargainOrderId, helperId, drawCents, now });

export const bargainOrderInput = (bargainOrderId: string, userId: string, overrides: Partial<{ key: string; now: number }> = {}) => ({
  bargainOrderId, userId, holdId: id('hold'), orderId: id('order'), idempotencyKey: overrides.key ?? id('key'),
  now: overrides.now ?? T0, expiresAt: (overrides.now ?? T0) + 10 * minute,
});
