/**
 * Every failure the domain can report. The HTTP edge maps each code to a status in one registry
 * (src/http/error-registry.ts), so a code means the same thing whatever adapter produced it.
 */
export const domainErrorCodes = [
  'ILLEGAL_TRANSITION',
  'INVALID_SEAT_MAP',
  'INVALID_SHOW_TIMES',
  'INVALID_SHOW_DETAILS',
  'CHANGE_NOT_ALLOWED',
  'SALE_NOT_OPEN',
  'SEAT_NOT_FOUND',
  'SEAT_UNAVAILABLE',
  'DUPLICATE_SEAT',
  'TOO_MANY_SEATS',
  'NOT_ENOUGH_SEATS',
  'INVALID_HOLD_DURATION',
  'HOLD_NOT_OWNED',
  'HOLD_NOT_ACTIVE',
  'HOLD_EXPIRED',
  'HOLD_ALREADY_ORDERED',
  'HOLD_EXTENSION_LIMIT',
  'ORDER_NOT_PAYABLE',
  'ORDER_ALREADY_PAID',
  'ORDER_NOT_CANCELLABLE',
  'PURCHASE_LIMIT_REACHED',
  'INVALID_PURCHASE_LIMIT',
  'PAYMENT_ORDER_MISMATCH',
  'PAYMENT_AMOUNT_MISMATCH',
  'TICKET_ALREADY_USED',
  'TICKET_NOT_VALID',
  'WEBHOOK_URL_INVALID',
  'WEBHOOK_URL_TOO_LONG',
  'WEBHOOK_URL_LOOP',
  'WEBHOOK_EVENT_UNKNOWN',
  'INVARIANT_VIOLATED',
  /** Nothing left to hand out (a code pool with no free code). */
  'SOLD_OUT',
  /** A campaign's title, details or sale window break the rules (code-pool.ts). */
  'INVALID_CAMPAIGN',
  'ACTIVITY_OFFLINE',
  'INVALID_FLASH_SALE',
  /** A bargain's prices, cut range, stock or sale window break the rules (bargain.ts). */
  'INVALID_BARGAIN',
  /** A helper cuts a bargain order once (seed 001 砍价: one row per helper, a unique index). */
  'ALREADY_CUT',
  /** The buyer who started a bargain order may not cut it. */
  'CANNOT_CUT_OWN',
  /** The price is at the floor: nothing is left to cut. */
  'FLOOR_REACHED',
  /** Neither the floor nor the minimum number of cuts has been reached: no order yet. */
  'BARGAIN_NOT_READY',
  /** The bargain order has been ordered: its price is settled, no more cuts. */
  'BARGAIN_CLOSED',
  /** A discount code's terms break the rules (discount.ts). */
  'INVALID_DISCOUNT',
  /** No such discount code (or it was disabled). */
  'DISCOUNT_UNKNOWN',
  /** The discount code is outside its validity window. */
  'DISCOUNT_EXPIRED',
  /** Every use of the discount code is taken. */
  'DISCOUNT_USED_UP',
  /** The buyer has used the discount code as often as it allows one buyer. */
  'DISCOUNT_PER_USER_LIMIT',
  /** The discount code is for other shows. */
  'DISCOUNT_NOT_FOR_SHOW',
  /** An order's contact (name, phone, email) is not valid. */
  'INVALID_CONTACT',
  /** A blocklist entry without a reason, or expiring in the past. */
  'INVALID_BLOCK',
  /** A waitlist join with a bad quantity or section (waitlist.ts). */
  'INVALID_WAITLIST_REQUEST',
  /** One live waitlist entry per buyer and show (a partial unique index). */
  'WAITLIST_ALREADY_JOINED',
  /** No live waitlist entry of this buyer for this show. */
  'WAITLIST_NOT_FOUND',
  /** A buyer's refund outside the show's refund policy (issue 25). */
  'REFUND_NOT_ALLOWED',
  /** The order is not TICKETED (a whole refund is pending or done, or it was never paid). */
  'ORDER_NOT_REFUNDABLE',
  /** A named ticket is not a VALID ticket of the order (used, refunded, pending, or someone else's). */
  'TICKET_NOT_REFUNDABLE',
  /** The show was cancelled: no hold, no sale, no second cancellation. */
  'SHOW_CANCELLED',
  /** A buyer's exchange (改签) outside the show's exchange policy (issue 25). */
  'EXCHANGE_NOT_ALLOWED',
  /** The new seats cost more than the tickets given up: dearer exchanges are not supported yet (details: differenceCents to pay). */
  'EXCHANGE_PRICE_DIFFERS',
  /** A ticket named for a partial exchange is not a VALID ticket of the order (used, refunded, exchanged, unknown), or is named twice. */
  'TICKET_NOT_EXCHANGEABLE',
  /** The order has no tickets yet, or none that can be exchanged (moved here from the app's codes: the exchange decides it). */
  'ORDER_NOT_TICKETED',
  /** A waiting room's rate or admission window outside its documented bounds (waiting-room.ts). */
  'INVALID_WAITING_ROOM',
] as const;

export type DomainErrorCode = (typeof domainErrorCodes)[number];
