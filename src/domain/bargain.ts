import { checkDetails, type Show } from './show.js';
import { checkSaleWindow } from './flash-sale.js';
import { fail, ok, type Result } from './result.js';
import { limits } from './limits.js';

/**
 * A bargain (seed 001 砍价): a buyer starts a bargain order at the original price, friends cut it
 * down (one random cut each) towards a floor, and once the floor is reached or enough friends
 * have cut, the buyer orders one unit at the price reached. Like a flash sale it is counted stock
 * of the inventory engine: stored as a show with one general-admission section (the goods,
 * capacity = stock), so the order's hold, payment, expiry and ticket are the engine's own.
 */
export interface NewBargainInput {
  readonly title: string;
  readonly description?: string;
  readonly imageUrl?: string | null;
  /** The goods' name (the section's name). */
  readonly goods: string;
  readonly originalPriceCents: number;
  readonly floorPriceCents: number;
  readonly cutMinCents: number;
  readonly cutMaxCents: number;
  /** Cuts after which the buyer may order above the floor (seed: 最小砍价次数). */
  readonly minCuts: number;
  readonly stock: number;
  readonly saleStartsAt: number;
  readonly saleEndsAt: number;
  readonly currency?: string | null;
}

/** What a bargain stores beyond its show. */
export interface BargainRecord {
  readonly bargainId: string;
  readonly goods: string;
  readonly originalPriceCents: number;
  readonly floorPriceCents: number;
  readonly cutMinCents: number;
  readonly cutMaxCents: number;
  readonly minCuts: number;
  readonly offline: boolean;
  readonly createdAt: number;
}

/** The one section that carries a bargain's stock. */
export const bargainSectionId = 'GOODS';

export const bargainLimits = Object.freeze({
  stockMax: 1_000_000,
  minCutsMax: 1_000,
  /** Helpers listed with a bargain order (every cut; the floor is reached long before with sane rules). */
  cutsListedMax: 1_000,
});

const invalid = (message: string): Result<never> => fail('INVALID_BARGAIN', message);

/** Validates a new bargain and lays it out as the show that carries its stock. */
export function createBargain(input: NewBargainInput, bargainId: string, now: number): Result<{ show: Show; record: BargainRecord }> {
  if (input.title.trim().length === 0 || input.title.length > limits.titleLengthMax) return invalid(`title must have 1-${limits.titleLengthMax} characters`);
  if (input.goods.trim().length === 0 || input.goods.length > limits.titleLengthMax) return invalid(`goods must have 1-${limits.titleLengthMax} characters`);
  const details = checkDetails({
    ...(input.description === undefined ? {} : { description: input.description }),
    ...(input.imageUrl === undefined ? {} : { imageUrl: input.imageUrl }),
    ...(input.currency === undefined ? {} : { currency: input.currency }),
  });
  if (!details.ok) return invalid(details.error.message);
  const window = checkSaleWindow(input.saleStartsAt, input.saleEndsAt);
  if (!window.ok) return invalid(window.error.message);
  for (const [field, value, min, max] of [
    ['originalPriceCents', input.originalPriceCents, 1, limits.priceCentsMax],
    ['floorPriceCents', input.floorPriceCents, 0, limits.priceCentsMax],
    ['cutMinCents', input.cutMinCents, 1, limits.priceCentsMax],
    ['cutMaxCents', input.cutMaxCents, 1, limits.priceCentsMax],
    ['minCuts', input.minCuts, 1, bargainLimits.minCutsMax],
    ['stock', input.stock, 1, bargainLimits.stockMax],
  ] as const) {
    if (!Number.isInteger(value) || value < min || value > max) return invalid(`${field} must be an integer from ${min} to ${max}`);
  }
  if (input.floorPriceCents >= input.originalPriceCents) return invalid('floorPriceCents must be below originalPriceCents');
  if (input.cutMinCents > input.cutMaxCents) return invalid('cutMinCents may not exceed cutMaxCents');
  const show: Show = {
    showId: bargainId,
    title: input.title,
    // A pick-up ticket has no venue or performance: it is valid from the end of the sale.
    venue: '',
    city: '',
    startsAt: input.saleEndsAt,
    saleStartsAt: input.saleStartsAt,
    saleEndsAt: input.saleEndsAt,
    seatMap: { sections: [{ id: bargainSectionId, name: input.goods, kind: 'GENERAL_ADMISSION', capacity: input.stock, priceCents: input.originalPriceCents }] },
    capacity: input.stock,
    // One bargain order per buyer, one unit per bargain order.
    maxSeatsPerUser: 1,
    createdAt: now,
    description: input.description ?? '',
    imageUrl: input.imageUrl ?? null,
    currency: input.currency ?? null,
    version: 0,
    campaign: 'BARGAIN',
  };
  const record: BargainRecord = {
    bargainId, goods: input.goods, originalPriceCents: input.originalPriceCents, floorPriceCents: input.floorPriceCents,
    cutMinCents: input.cutMinCents, cutMaxCents: input.cutMaxCents, minCuts: input.minCuts, offline: false, createdAt: now,
  };
  return ok({ show, record });
}

/**
 * A helper's random draw in [cutMinCents, cutMaxCents], from an injected source of uniform
 * numbers in [0, 1). The store clamps it to what is left above the floor (the draw is decided
 * here, the clamp where the price lives, so two cuts at once never both pass the floor).
 */
export function drawCut(rules: Pick<BargainRecord, 'cutMinCents' | 'cutMaxCents'>, random: () => number): number {
  const span = rules.cutMaxCents - rules.cutMinCents + 1;
  const r = random();
  const unit = Number.isFinite(r) && r >= 0 && r < 1 ? r : 0;
  return rules.cutMinCents + Math.min(span - 1, Math.floor(unit * span));
}

/** The cut actually applied: the draw, but never past the floor. Pure mirror of the store's clamp. */
export function applyCut(currentPriceCents: number, floorPriceCents: number, drawCents: number): { amountCents: number; currentPriceCents: number } {
  const next = Math.max(floorPriceCents, currentPriceCents - drawCents);
  return { amountCents: currentPriceCents - next, currentPriceCents: next };
}

/** Seed 001 砍价 5: ordering is allowed once the floor is reached or enough friends have cut. */
export function bargainReady(state: { readonly currentPriceCents: number; readonly cuts: number }, rules: Pick<BargainRecord, 'floorPriceCents' | 'minCuts'>): boolean {
  return state.currentPriceCents <= rules.floorPriceCents || state.cuts >= rules.minCuts;
}
