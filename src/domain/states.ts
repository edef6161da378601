import { defineMachine } from './state-machine.js';

// Seat: SOLD is only ever reached from HELD (seed 002 §3: HELD -> CONFIRMED -> PAID).
export const seatStatuses = ['AVAILABLE', 'HELD', 'SOLD', 'REFUND_PENDING'] as const;
export type SeatStatus = (typeof seatStatuses)[number];
export const seatEvents = ['HOLD', 'RELEASE', 'SELL', 'REQUEST_REFUND', 'COMPLETE_REFUND', 'REFUSE_REFUND', 'EXCHANGE_OUT'] as const;
export type SeatEvent = (typeof seatEvents)[number];
export const seatMachine = defineMachine<SeatStatus, SeatEvent>('seat', seatStatuses, seatEvents, {
  AVAILABLE: { HOLD: 'HELD' },
  HELD: { RELEASE: 'AVAILABLE', SELL: 'SOLD' },
  // An exchange (改签) gives the old seat up at once, in the transaction that sells the new one.
  SOLD: { REQUEST_REFUND: 'REFUND_PENDING', EXCHANGE_OUT: 'AVAILABLE' },
  // A refund the provider refuses gives the seat back to its buyer (the order keeps it).
  REFUND_PENDING: { COMPLETE_REFUND: 'AVAILABLE', REFUSE_REFUND: 'SOLD' },
});

// Hold: an EXPIRED or RELEASED hold never becomes an order; it can only be confirmed again by a
// late payment that finds every one of its seats still free (see settlePayment).
export const holdStatuses = ['ACTIVE', 'EXPIRED', 'CONFIRMED', 'RELEASED'] as const;
export type HoldStatus = (typeof holdStatuses)[number];
export const holdEvents = ['CONFIRM', 'EXPIRE', 'RELEASE', 'CONFIRM_LATE', 'EXTEND'] as const;
export type HoldEvent = (typeof holdEvents)[number];
export const holdMachine = defineMachine<HoldStatus, HoldEvent>('hold', holdStatuses, holdEvents, {
  ACTIVE: { CONFIRM: 'CONFIRMED', EXPIRE: 'EXPIRED', RELEASE: 'RELEASED', EXTEND: 'ACTIVE' },
  EXPIRED: { CONFIRM_LATE: 'CONFIRMED' },
  RELEASED: { CONFIRM_LATE: 'CONFIRMED' },
  CONFIRMED: {},
});

export const orderStatuses = ['INIT', 'PENDING_PAY', 'PAID', 'TICKETED', 'CANCELLED', 'REFUNDED', 'REFUND_PENDING'] as const;
export type OrderStatus = (typeof orderStatuses)[number];
export const orderEvents = [
  'AWAIT_PAYMENT', 'ABORT', 'PAY', 'CANCEL', 'PAY_LATE', 'ISSUE_TICKETS', 'REFUND', 'REQUEST_REFUND', 'COMPLETE_REFUND', 'REFUSE_REFUND',
] as const;
export type OrderEvent = (typeof orderEvents)[number];
export const orderMachine = defineMachine<OrderStatus, OrderEvent>('order', orderStatuses, orderEvents, {
  INIT: { AWAIT_PAYMENT: 'PENDING_PAY', ABORT: 'CANCELLED' },
  PENDING_PAY: { PAY: 'PAID', CANCEL: 'CANCELLED' },
  PAID: { ISSUE_TICKETS: 'TICKETED' },
  // A refund of the whole order (buyer, organizer or the show's cancellation) waits for the
  // provider in REFUND_PENDING; a refused one returns to TICKETED. A partial refund never leaves
  // TICKETED: the order's refundedCents grows and the refunded tickets go INVALID.
  TICKETED: { REQUEST_REFUND: 'REFUND_PENDING' },
  REFUND_PENDING: { COMPLETE_REFUND: 'REFUNDED', REFUSE_REFUND: 'TICKETED' },
  // A cancelled order whose money arrives anyway is either sold late or refunded: never lost.
  CANCELLED: { PAY_LATE: 'PAID', REFUND: 'REFUNDED' },
  REFUNDED: {},
});

export const paymentStatuses = ['PENDING', 'SUCCEEDED', 'FAILED', 'REFUND_PENDING', 'REFUNDED', 'PARTIALLY_REFUNDED'] as const;
export type PaymentStatus = (typeof paymentStatuses)[number];
export const paymentEvents = ['SUCCEED', 'FAIL', 'REQUIRE_REFUND', 'COMPLETE_REFUND', 'REFUND_PART', 'REFUND_ALL'] as const;
export type PaymentEvent = (typeof paymentEvents)[number];
// A decline can be followed by a success on the same payment (the provider retried the card):
// the money is real, so FAILED -> SUCCEEDED. A success is final: a late FAILED changes nothing.
export const paymentMachine = defineMachine<PaymentStatus, PaymentEvent>('payment', paymentStatuses, paymentEvents, {
  PENDING: { SUCCEED: 'SUCCEEDED', FAIL: 'FAILED' },
  SUCCEEDED: { REQUIRE_REFUND: 'REFUND_PENDING', REFUND_PART: 'PARTIALLY_REFUNDED', REFUND_ALL: 'REFUNDED' },
  FAILED: { SUCCEED: 'SUCCEEDED' },
  // REFUND_PENDING is a late payment (its hold lapsed) being refunded whole; ordinary refunds of a
  // sold order (issue 32) move SUCCEEDED -> PARTIALLY_REFUNDED -> REFUNDED as the provider confirms
  // them, derived from the payment's REFUNDED refunds (paymentAfterRefund).
  REFUND_PENDING: { COMPLETE_REFUND: 'REFUNDED' },
  PARTIALLY_REFUNDED: { REFUND_PART: 'PARTIALLY_REFUNDED', REFUND_ALL: 'REFUNDED' },
  REFUNDED: {},
});

// Exchange record (issue 32, 改签 with a difference): an even or cheaper swap is recorded COMPLETED
// as it commits; a dearer one is recorded PENDING with its difference order awaiting payment, and
// becomes COMPLETED when the difference is paid (the swap commits with the payment), or ABANDONED
// when it is declined, the hold lapses, or the old tickets changed before the money arrived.
export const exchangeStatuses = ['PENDING', 'COMPLETED', 'ABANDONED'] as const;
export type ExchangeStatus = (typeof exchangeStatuses)[number];
export const exchangeEvents = ['COMPLETE', 'ABANDON'] as const;
export type ExchangeEvent = (typeof exchangeEvents)[number];
export const exchangeMachine = defineMachine<ExchangeStatus, ExchangeEvent>('exchange', exchangeStatuses, exchangeEvents, {
  PENDING: { COMPLETE: 'COMPLETED', ABANDON: 'ABANDONED' },
  COMPLETED: {},
  ABANDONED: {},
});

export const ticketStatuses = ['VALID', 'USED', 'INVALID'] as const;
export type TicketStatus = (typeof ticketStatuses)[number];
export const ticketEvents = ['CHECK_IN', 'INVALIDATE', 'REINSTATE'] as const;
export type TicketEvent = (typeof ticketEvents)[number];
export const ticketMachine = defineMachine<TicketStatus, TicketEvent>('ticket', ticketStatuses, ticketEvents, {
  VALID: { CHECK_IN: 'USED', INVALIDATE: 'INVALID' },
  USED: { INVALIDATE: 'INVALID' },
  // A refunded ticket is INVALID at once (on the door's revocation list). REINSTATE is the way
  // back, and only for the tickets of a refund the provider refused (the refund row names them):
  // their seats stayed REFUND_PENDING meanwhile, so nobody else can hold a ticket for them.
  INVALID: { REINSTATE: 'VALID' },
});

/** A blocklist entry: ACTIVE until an admin lifts it (its expiry is a time, not a move). */
export const blockStatuses = ['ACTIVE', 'LIFTED'] as const;
export type BlockStatus = (typeof blockStatuses)[number];
export const blockEvents = ['LIFT'] as const;
export type BlockEvent = (typeof blockEvents)[number];
export const blockMachine = defineMachine<BlockStatus, BlockEvent>('block', blockStatuses, blockEvents, {
  ACTIVE: { LIFT: 'LIFTED' },
  LIFTED: {},
});

// Waitlist entry (候补): joined WAITING; seats that come back are OFFERED to it as a hold; the buyer
// pays for that hold (CLAIMED) or its claim window runs out (LAPSED); LEFT when the buyer gives up.
// An OFFERED entry that lapses is never offered again (the next one in line gets the seats).
export const waitlistStatuses = ['WAITING', 'OFFERED', 'CLAIMED', 'LAPSED', 'LEFT'] as const;
export type WaitlistStatus = (typeof waitlistStatuses)[number];
export const waitlistEvents = ['OFFER', 'CLAIM', 'LAPSE', 'LEAVE'] as const;
export type WaitlistEvent = (typeof waitlistEvents)[number];
export const waitlistMachine = defineMachine<WaitlistStatus, WaitlistEvent>('waitlist', waitlistStatuses, waitlistEvents, {
  WAITING: { OFFER: 'OFFERED', LEAVE: 'LEFT' },
  OFFERED: { CLAIM: 'CLAIMED', LAPSE: 'LAPSED', LEAVE: 'LEFT' },
  CLAIMED: {},
  LAPSED: {},
  LEFT: {},
});

// A place in an activity's waiting room (issue 24). WAITING until the admitter lets it in (or the
// buyer leaves, is blocked, or nothing is left to sell); ADMITTED for the admission window, then
// EXPIRED. A buyer who left or whose window passed may join again (REJOIN: the back of the line).
export const queueEntryStates = ['WAITING', 'ADMITTED', 'EXPIRED', 'LEFT', 'BLOCKED', 'SOLD_OUT'] as const;
export type QueueEntryState = (typeof queueEntryStates)[number];
export const queueEntryEvents = ['ADMIT', 'EXPIRE', 'LEAVE', 'BLOCK', 'SELL_OUT', 'REJOIN'] as const;
export type QueueEntryEvent = (typeof queueEntryEvents)[number];
export const queueEntryMachine = defineMachine<QueueEntryState, QueueEntryEvent>('queue-entry', queueEntryStates, queueEntryEvents, {
  WAITING: { ADMIT: 'ADMITTED', LEAVE: 'LEFT', BLOCK: 'BLOCKED', SELL_OUT: 'SOLD_OUT' },
  ADMITTED: { EXPIRE: 'EXPIRED', LEAVE: 'LEFT', BLOCK: 'BLOCKED' },
  EXPIRED: { REJOIN: 'WAITING' },
  LEFT: { REJOIN: 'WAITING' },
  BLOCKED: {},
  SOLD_OUT: {},
});
