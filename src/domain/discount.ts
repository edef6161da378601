import { defineMachine } from './state-machine.js';
import { fail, ok, type Result } from './result.js';

/**
 * Discount codes (issue 25 item 6): an organizer's code takes a percentage or a fixed amount off an
 * order's price, within a validity window, up to maxUses orders in all and perUserMax per buyer.
 * The server prices the order; the price never goes below zero. Uses are counted by the store in
 * the order's own transaction; a cancelled or expired unpaid order gives its use back.
 */
export const discountStatuses = ['ACTIVE', 'DISABLED'] as const;
export type DiscountStatus = (typeof discountStatuses)[number];
export const discountEvents = ['DISABLE'] as const;
export type DiscountEvent = (typeof discountEvents)[number];
export const discountMachine = defineMachine<DiscountStatus, DiscountEvent>('discount', discountStatuses, discountEvents, {
  ACTIVE: { DISABLE: 'DISABLED' },
  DISABLED: {},
});

export type DiscountOff = { readonly kind: 'PERCENT'; readonly percent: number } | { readonly kind: 'AMOUNT'; readonly cents: number };

export interface DiscountCode {
  /** Stored upper-cased: buyers type codes in any case. */
  readonly code: string;
  readonly off: DiscountOff;
  /** null: every show. */
  readonly showIds: readonly string[] | null;
  readonly validFrom: number;
  readonly validUntil: number;
  readonly maxUses: number;
  readonly perUserMax: number;
  /** Orders holding a use now (a use given back is not counted). */
  readonly uses: number;
  readonly status: DiscountStatus;
  readonly createdAt: number;
}

/** The discount an order carries: the code and the cents it took off (kept with the order). */
export interface OrderDiscount {
  readonly code: string;
  readonly discountCents: number;
}

export const discountLimits = {
  codeLengthMax: 32,
  showIdsMax: 100,
  maxUsesMax: 10_000_000,
  perUserMaxMax: 1_000,
  amountOffCentsMax: 100_000_000,
} as const;

const codePattern = /^[A-Z0-9][A-Z0-9_-]{2,31}$/;

export const normalizeDiscountCode = (raw: string): string => raw.trim().toUpperCase();

export interface NewDiscountInput {
  readonly code: string;
  readonly percentOff?: number;
  readonly amountOffCents?: number;
  readonly showIds?: readonly string[];
  readonly validFrom: number;
  readonly validUntil: number;
  readonly maxUses: number;
  readonly perUserMax: number;
  readonly now: number;
}

export function newDiscount(input: NewDiscountInput): Result<DiscountCode> {
  const code = normalizeDiscountCode(input.code);
  if (!codePattern.test(code)) return fail('INVALID_DISCOUNT', 'a code is 3-32 letters, digits, _ or -');
  if ((input.percentOff === undefined) === (input.amountOffCents === undefined)) return fail('INVALID_DISCOUNT', 'give exactly one of percentOff and amountOffCents');
  const off: DiscountOff = input.percentOff !== undefined ? { kind: 'PERCENT', percent: input.percentOff } : { kind: 'AMOUNT', cents: input.amountOffCents ?? 0 };
  if (off.kind === 'PERCENT' && !(Number.isInteger(off.percent) && off.percent >= 1 && off.percent <= 100)) return fail('INVALID_DISCOUNT', 'percentOff is a whole number from 1 to 100');
  if (off.kind === 'AMOUNT' && !(Number.isInteger(off.cents) && off.cents >= 1 && off.cents <= discountLimits.amountOffCentsMax)) return fail('INVALID_DISCOUNT', 'amountOffCents is a positive whole number of cents');
  if (!(input.validUntil > input.validFrom)) return fail('INVALID_DISCOUNT', 'validUntil must be after validFrom');
  if (!(Number.isInteger(input.maxUses) && input.maxUses >= 1 && input.maxUses <= discountLimits.maxUsesMax)) return fail('INVALID_DISCOUNT', 'maxUses must be at least 1');
  if (!(Number.isInteger(input.perUserMax) && input.perUserMax >= 1 && input.perUserMax <= discountLimits.perUserMaxMax)) return fail('INVALID_DISCOUNT', 'perUserMax must be at least 1');
  const showIds = input.showIds === undefined || input.showIds.length === 0 ? null : [...new Set(input.showIds)];
  return ok({ code, off, showIds, validFrom: input.validFrom, validUntil: input.validUntil, maxUses: input.maxUses, perUserMax: input.perUserMax, uses: 0, status: 'ACTIVE', createdAt: input.now });
}

export function disableDiscount(discount: DiscountCode): Result<DiscountCode> {
  const next = discountMachine.transition(discount.status, 'DISABLE');
  if (!next.ok) return next;
  return ok({ ...discount, status: next.value });
}

/** What a code takes off a price: never more than the price (the order is never below zero). */
export function discountCents(off: DiscountOff, priceCents: number): number {
  const wanted = off.kind === 'PERCENT' ? Math.floor((priceCents * off.percent) / 100) : off.cents;
  return Math.min(Math.max(wanted, 0), priceCents);
}

/**
 * Whether `discount` applies to an order of `showId` at `now`, and how much it takes off. The use
 * counts are checked again by the store, atomically, when the order is opened (this read may be
 * stale by then); a null discount is an unknown code.
 */
export function applyDiscount(discount: DiscountCode | null, input: { showId: string; priceCents: number; now: number }): Result<OrderDiscount> {
  if (discount === null || discount.status !== 'ACTIVE') return fail('DISCOUNT_UNKNOWN', 'no such discount code');
  if (input.now < discount.validFrom || input.now >= discount.validUntil) {
    return fail('DISCOUNT_EXPIRED', 'this discount code is not valid now', { validFrom: new Date(discount.validFrom).toISOString(), validUntil: new Date(discount.validUntil).toISOString() });
  }
  if (discount.showIds !== null && !discount.showIds.includes(input.showId)) return fail('DISCOUNT_NOT_FOR_SHOW', 'this discount code is not for this show');
  if (discount.uses >= discount.maxUses) return fail('DISCOUNT_USED_UP', 'this discount code has been used up');
  return ok({ code: discount.code, discountCents: discountCents(discount.off, input.priceCents) });
}

/** A buyer's contact for an order (seed 002 §5): who the organizer calls about it. */
export interface OrderContact {
  readonly name: string;
  readonly phone: string;
  readonly email: string;
}

export const contactLimits = { nameLengthMax: 100, phoneLengthMax: 32, emailLengthMax: 254 } as const;
const phonePattern = /^\+?[0-9][0-9 ()-]{4,30}$/;
const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function checkContact(raw: OrderContact): Result<OrderContact> {
  const contact = { name: raw.name.trim(), phone: raw.phone.trim(), email: raw.email.trim() };
  if (contact.name.length < 1 || contact.name.length > contactLimits.nameLengthMax) return fail('INVALID_CONTACT', 'the contact name is 1-100 characters');
  if (!phonePattern.test(contact.phone)) return fail('INVALID_CONTACT', 'the contact phone is digits, spaces, ( ) - and an optional leading +');
  if (contact.email.length > contactLimits.emailLengthMax || !emailPattern.test(contact.email)) return fail('INVALID_CONTACT', 'the contact email is not an email address');
  return ok(contact);
}
