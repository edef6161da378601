import type { ExchangeStatus, Order, Ticket } from '../../domain/index.js';
import type { InventoryChanges, Stale } from './common.js';
import type { Refund } from './refunds.js';
import type { TicketDraft } from './tickets.js';

/** One exchange (改签) of an order (whole, or the named tickets) for the seats of a new hold; recorded once it is done. */
export interface Exchange {
  readonly exchangeId: string;
  readonly userId: string;
  readonly oldOrderId: string;
  readonly oldShowId: string;
  readonly oldTicketIds: readonly string[];
  /** The order the new tickets belong to (created TICKETED by the swap, on the new hold). */
  readonly newOrderId: string;
  readonly newShowId: string;
  readonly newHoldId: string;
  readonly newTicketIds: readonly string[];
  /** New list price minus the list price of the tickets given up (0: even; < 0: cheaper, the difference refunded). */
  readonly differenceCents: number;
  /**
   * COMPLETED: the swap is done (even and cheaper swaps are born COMPLETED). PENDING: a dearer swap
   * whose difference order (newOrderId, on newHoldId) awaits its payment; ABANDONED: that payment
   * was declined, the hold lapsed, or the old tickets changed first (exchangeMachine).
   */
  readonly status: ExchangeStatus;
  readonly createdAt: number;
}

export interface PayExchangeInput {
  /** The PENDING exchange as stored (oldTicketIds, newHoldId, newOrderId). */
  readonly exchange: Exchange;
  /** The difference payment: PENDING -> SUCCEEDED. */
  readonly paymentId: string;
  /** One draft per unit of the new hold's lines, in line order; their paid prices sum to amountCents. */
  readonly tickets: readonly TicketDraft[];
  /** The new order's value once swapped: the value carried plus the difference paid. */
  readonly amountCents: number;
  readonly now: number;
}

export type PayExchangeOutcome =
  | { readonly ok: true; readonly exchange: Exchange; readonly newOrder: Order; readonly tickets: readonly Ticket[]; readonly changes: InventoryChanges; readonly newShowChanges: InventoryChanges }
  /**
   * Nothing written: the payment is no longer PENDING, the order no longer PENDING_PAY, the hold no
   * longer ACTIVE, the exchange no longer PENDING, or an old ticket is no longer VALID (used,
   * refunded or exchanged meanwhile: the caller refunds the difference instead).
   */
  | Stale<'payment' | 'order' | 'hold' | 'exchange' | 'ticket'>;

export interface SwapExchangeInput {
  /** The exchange as it will be stored; newTicketIds are the drafts' ids. */
  readonly exchange: Exchange;
  /** One draft per unit of the new hold's lines, in line order (seat lines name their seat). */
  readonly tickets: readonly TicketDraft[];
  /** The new order's value: the value carried from the old tickets less any difference given back (planExchange). */
  readonly amountCents: number;
  /**
   * A cheaper swap's difference going back: a PENDING refund of the old order with no tickets
   * (reason 'exchange difference'), written in the same transaction, so a committed swap always
   * has its refund recorded; the process-refund job then pays it through the money's source. null: nothing to give back.
   */
  readonly differenceRefund: Refund | null;
  readonly now: number;
}

export type SwapExchangeOutcome =
  | {
      readonly ok: true;
      readonly exchange: Exchange;
      readonly newOrder: Order;
      readonly tickets: readonly Ticket[];
      /** The old show's seats and units given back. */
      readonly changes: InventoryChanges;
      /** The new show's seats sold from the hold. */
      readonly newShowChanges: InventoryChanges;
    }
  /**
   * Nothing written: the new hold is no longer the buyer's ACTIVE, unexpired hold (it lapsed or was
   * used first), or an old ticket is no longer VALID (a check-in, a refund or another exchange came first).
   */
  | Stale<'hold' | 'ticket'>;

/**
 * Exchanges (issue 25 item 4). The swap is one transaction: either the buyer has the new tickets
 * and the old ones are revoked, or nothing changed (they keep the old tickets; the new hold is
 * left as it was for the caller to release).
 */
export interface ExchangeStore {
  /**
   * One transaction. Guards, each a conditional update (any miss rolls everything back):
   * the new hold ACTIVE -> CONFIRMED only if it is the buyer's and expires after `now` (else stale
   * 'hold'), its seats HELD -> SOLD; each old ticket VALID -> INVALID only if it is of the old order
   * (else stale 'ticket'). Effects: a new TICKETED order on the new hold (idempotency key
   * `exchange:{exchangeId}`), one VALID ticket per draft, door counts moved on both shows; the old
   * seats SOLD -> AVAILABLE (their hold line's claim cleared), units back to their sections' stock,
   * the buyer's units of the old show down; the exchange row (unique per new hold); the difference
   * refund row when there is one (as requestRefund inserts it, no ticket moved, the old order's
   * status unchanged); outbox 'exchange.completed' with the freed changes, 'tickets.issued' for the
   * new order with the sold ones, and 'refund.requested' for the difference refund.
   */
  swapExchange(input: SwapExchangeInput): Promise<SwapExchangeOutcome>;
  /** Records a dearer swap PENDING (its difference order already opened on the new hold); unique per new hold. */
  beginExchange(exchange: Exchange): Promise<void>;
  /**
   * A dearer swap's difference was paid: one transaction, each step a conditional update (any miss
   * rolls everything back): the payment PENDING -> SUCCEEDED, the order PENDING_PAY -> TICKETED at
   * amountCents, the hold ACTIVE -> CONFIRMED with its seats sold, each old ticket VALID -> INVALID
   * (its seat or unit given back, as swapExchange), the drafts issued VALID, the exchange
   * PENDING -> COMPLETED; outbox 'exchange.completed' and 'tickets.issued'.
   */
  payExchange(input: PayExchangeInput): Promise<PayExchangeOutcome>;
  /** PENDING -> ABANDONED (false: it was not PENDING). The difference order and hold end by their own machines. */
  abandonExchange(exchangeId: string, now: number): Promise<boolean>;
  /** Exchanges that gave up (or, PENDING, would give up) this order's tickets, oldest first, any status. */
  exchangesOfOrder(orderId: string): Promise<Exchange[]>;
  /** The exchange that created this order (its new order), or null for an order bought directly. */
  exchangeIntoOrder(orderId: string): Promise<Exchange | null>;
}
