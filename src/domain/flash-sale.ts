import { checkDetails, type Show } from './show.js';
import { fail, ok, type Result } from './result.js';
import { limits } from './limits.js';

/**
 * A flash sale (seed 001 秒杀) is counted stock of the inventory engine, not a second engine: it is
 * stored as a show whose sections are its items (general admission, capacity = stock, price =
 * the sale price), so holds, the per-buyer cap (maxPerUser = the show's seat limit), orders,
 * payments, expiry and tickets all work on it unchanged. What a show lacks (the original price of
 * each item, the organizer's "offline" switch) lives in the flash sale's own record.
 */
export interface FlashSaleItemSpec {
  /** Letters and digits, at most 8 (a section id). */
  readonly itemId: string;
  readonly name: string;
  readonly priceCents: number;
  /** The crossed-out price shown next to the sale price. */
  readonly originalPriceCents: number;
  readonly stock: number;
}

export interface NewFlashSaleInput {
  readonly title: string;
  readonly description?: string;
  readonly imageUrl?: string | null;
  readonly saleStartsAt: number;
  readonly saleEndsAt: number;
  readonly maxPerUser: number;
  readonly items: readonly FlashSaleItemSpec[];
  readonly currency?: string | null;
}

/** What a flash sale stores beyond its show. */
export interface FlashSaleRecord {
  readonly flashSaleId: string;
  /** Units one buyer may have across their live orders of the sale (the show's seat limit). */
  readonly maxPerUser: number;
  readonly offline: boolean;
  readonly items: readonly { readonly itemId: string; readonly originalPriceCents: number }[];
  readonly createdAt: number;
}

/** Documented maximums of a flash sale (the API's schema says the same). */
export const flashSaleLimits = Object.freeze({
  itemsMax: 20,
  stockMax: 1_000_000,
  maxPerUserMax: 100,
  quantityMax: 10,
  itemIdPattern: /^[A-Za-z0-9]{1,8}$/,
});

const dayMs = 86_400_000;

const invalid = (message: string): Result<never> => fail('INVALID_FLASH_SALE', message);

/** Checks the sale window alone (creation and every later change of its end). */
export function checkSaleWindow(saleStartsAt: number, saleEndsAt: number): Result<true> {
  if (!Number.isFinite(saleStartsAt) || !Number.isFinite(saleEndsAt)) return invalid('times must be valid ISO 8601 instants');
  if (saleEndsAt <= saleStartsAt) return invalid('saleEndsAt must be after saleStartsAt');
  if (saleEndsAt - saleStartsAt > limits.showDurationDaysMax * dayMs) return invalid(`a sale may last at most ${limits.showDurationDaysMax} days`);
  return ok(true);
}

function checkItem(item: FlashSaleItemSpec): Result<true> {
  if (!flashSaleLimits.itemIdPattern.test(item.itemId)) return invalid(`itemId "${item.itemId}" must be 1-8 letters or digits`);
  if (item.name.trim().length === 0 || item.name.length > limits.titleLengthMax) return invalid(`item ${item.itemId} needs a name of 1-${limits.titleLengthMax} characters`);
  for (const [field, value, max] of [['priceCents', item.priceCents, limits.priceCentsMax], ['originalPriceCents', item.originalPriceCents, limits.priceCentsMax], ['stock', item.stock, flashSaleLimits.stockMax]] as const) {
    if (!Number.isInteger(value) || value < 0 || value > max) return invalid(`item ${item.itemId}: ${field} must be an integer from 0 to ${max}`);
  }
  if (item.stock < 1) return invalid(`item ${item.itemId}: stock must be at least 1`);
  if (item.priceCents > item.originalPriceCents) return invalid(`item ${item.itemId}: the sale price may not exceed the original price`);
  return ok(true);
}

/** Validates a new flash sale and lays it out as the show that carries its stock. */
export function createFlashSale(input: NewFlashSaleInput, flashSaleId: string, now: number): Result<{ show: Show; record: FlashSaleRecord }> {
  if (input.title.trim().length === 0 || input.title.length > limits.titleLengthMax) return invalid(`title must have 1-${limits.titleLengthMax} characters`);
  const details = checkDetails({
    ...(input.description === undefined ? {} : { description: input.description }),
    ...(input.imageUrl === undefined ? {} : { imageUrl: input.imageUrl }),
    ...(input.currency === undefined ? {} : { currency: input.currency }),
  });
  if (!details.ok) return invalid(details.error.message);
  const window = checkSaleWindow(input.saleStartsAt, input.saleEndsAt);
  if (!window.ok) return window;
  if (!Number.isInteger(input.maxPerUser) || input.maxPerUser < 1 || input.maxPerUser > flashSaleLimits.maxPerUserMax) {
    return invalid(`maxPerUser must be an integer from 1 to ${flashSaleLimits.maxPerUserMax}`);
  }
  if (input.items.length < 1 || input.items.length > flashSaleLimits.itemsMax) return invalid(`a flash sale has 1-${flashSaleLimits.itemsMax} items`);
  if (new Set(input.items.map((i) => i.itemId)).size !== input.items.length) return invalid('item ids must be unique');
  for (const item of input.items) {
    const checked = checkItem(item);
    if (!checked.ok) return checked;
  }
  const capacity = input.items.reduce((sum, i) => sum + i.stock, 0);
  if (capacity > limits.seatsPerShowMax * 100) return invalid('too much stock in one sale');
  const show: Show = {
    showId: flashSaleId,
    title: input.title,
    // A pick-up ticket has no venue or performance: it is valid from the end of the sale.
    venue: '',
    city: '',
    startsAt: input.saleEndsAt,
    saleStartsAt: input.saleStartsAt,
    saleEndsAt: input.saleEndsAt,
    seatMap: { sections: input.items.map((i) => ({ id: i.itemId, name: i.name, kind: 'GENERAL_ADMISSION', capacity: i.stock, priceCents: i.priceCents })) },
    capacity,
    maxSeatsPerUser: input.maxPerUser,
    createdAt: now,
    description: input.description ?? '',
    imageUrl: input.imageUrl ?? null,
    currency: input.currency ?? null,
    version: 0,
    campaign: 'FLASH_SALE',
  };
  const record: FlashSaleRecord = {
    flashSaleId, maxPerUser: input.maxPerUser, offline: false, createdAt: now,
    items: input.items.map((i) => ({ itemId: i.itemId, originalPriceCents: i.originalPriceCents })),
  };
  return ok({ show, record });
}

/** An organizer's change of a campaign after creation (PATCH /admin/activities/{id}). */
export interface CampaignChange {
  readonly title?: string;
  readonly description?: string;
  readonly imageUrl?: string | null;
  readonly saleEndsAt?: number;
  readonly status?: 'OFFLINE' | 'ON_SALE';
}

export interface CampaignDetails {
  readonly title: string;
  readonly description: string;
  readonly imageUrl: string | null;
  readonly saleStartsAt: number;
  readonly saleEndsAt: number;
  readonly offline: boolean;
}

/** The details after the change, or why it is refused. */
export function planCampaignChange(current: CampaignDetails, change: CampaignChange): Result<CampaignDetails> {
  const next: CampaignDetails = {
    title: change.title ?? current.title,
    description: change.description ?? current.description,
    imageUrl: change.imageUrl === undefined ? current.imageUrl : change.imageUrl,
    saleStartsAt: current.saleStartsAt,
    saleEndsAt: change.saleEndsAt ?? current.saleEndsAt,
    offline: change.status === undefined ? current.offline : change.status === 'OFFLINE',
  };
  if (next.title.trim().length === 0 || next.title.length > limits.titleLengthMax) return invalid(`title must have 1-${limits.titleLengthMax} characters`);
  const details = checkDetails({ description: next.description, imageUrl: next.imageUrl });
  if (!details.ok) return invalid(details.error.message);
  const window = checkSaleWindow(next.saleStartsAt, next.saleEndsAt);
  if (!window.ok) return window;
  return ok(next);
}

/** Whether a buyer may order now: OFFLINE first (the organizer's word), then the window. */
export function checkFlashSaleOpen(sale: { readonly offline: boolean; readonly saleStartsAt: number; readonly saleEndsAt: number }, now: number): Result<true> {
  if (sale.offline) return fail('ACTIVITY_OFFLINE', 'this sale has been taken offline by its organizer');
  if (now < sale.saleStartsAt) return fail('SALE_NOT_OPEN', 'the sale has not started yet', { saleStartsAt: new Date(sale.saleStartsAt).toISOString() });
  if (now >= sale.saleEndsAt) return fail('SALE_NOT_OPEN', 'the sale has ended');
  return ok(true);
}
