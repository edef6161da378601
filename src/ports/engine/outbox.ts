import type { InventoryChanges } from './common.js';

/**
 * The local message table (seed 003): every change of state that anyone outside may care about
 * writes one outbox row in the same transaction as the change, on every backend. A relay hands the
 * rows on at least once, in order per show: to every process's read model and live events, to the
 * shared Redis gate, to webhooks.
 */
export type OutboxEventType =
  | 'hold.created'
  | 'hold.expired'
  | 'hold.released'
  | 'order.created'
  | 'order.paid'
  | 'order.cancelled'
  | 'order.refunded'
  | 'tickets.issued'
  | 'ticket.checked_in'
  | 'show.changed'
  // Emitted by the money issue's refunds, exchanges, waitlist and show cancellation (issue 25).
  | 'refund.requested'
  | 'refund.completed'
  | 'refund.failed'
  | 'exchange.completed'
  | 'waitlist.offered'
  | 'show.cancelled'
  /** An activity's waiting room was turned on, off, or its rate or window changed (issue 24). */
  | 'waiting-room.changed'
  /** A buyer left an activity's line while admitted: their admission token ends (issue 33). */
  | 'queue.left'
  /** An organizer changed a code pool (its window, offline, words): every process drops its cached window (issue 33). */
  | 'code-pool.changed';

export const outboxEventTypes: readonly OutboxEventType[] = [
  'hold.created', 'hold.expired', 'hold.released', 'order.created', 'order.paid', 'order.cancelled',
  'order.refunded', 'tickets.issued', 'ticket.checked_in', 'show.changed',
  'refund.requested', 'refund.completed', 'refund.failed', 'exchange.completed', 'waitlist.offered', 'show.cancelled', 'waiting-room.changed',
  'queue.left', 'code-pool.changed',
];

export interface OutboxEvent {
  /** Opaque, totally ordered cursor of the row in the store's commit order; compare only through the store. */
  readonly position: string;
  /** Stable across redeliveries: receivers de-duplicate on it (X-TicketRush-Event-Id). */
  readonly eventId: string;
  readonly type: OutboxEventType;
  readonly showId: string | null;
  /** Epoch ms of the change (the application's clock). */
  readonly createdAt: number;
  /** The process that wrote it: a process skips its own rows where it already applied them locally. */
  readonly origin: string;
  /** The public payload (what a webhook receiver gets as `data`): plain JSON. */
  readonly data: Readonly<Record<string, unknown>>;
  /** What the change did to the show's inventory, for read models and the Redis gate; null when nothing. */
  readonly changes: InventoryChanges | null;
}

/** A page of the feed after a position (null: from the start of what is retained). */
export interface OutboxPage {
  readonly events: readonly OutboxEvent[];
  /** Where the next read starts: the last event's position, or the `after` given when there was none. */
  readonly position: string | null;
}

/** A consumer of the feed with a durable cursor (the relay calls it; e.g. webhooks, the Redis gate). */
export interface OutboxSink {
  /** The cursor's name in the store (relay_cursors), unique per sink. */
  readonly name: string;
  /** Handles a page in order; throws to have the same page redelivered (at least once). */
  deliver(events: readonly OutboxEvent[]): Promise<void>;
}

/** What an outbox row is before it is stored: the adapter adds the id, position, time and origin. */
export interface OutboxDraft {
  readonly type: OutboxEventType;
  readonly showId: string | null;
  readonly data: Readonly<Record<string, unknown>>;
  readonly changes: InventoryChanges | null;
}

/** A relay cursor moved only from where the relay read it (compare-and-set). */
export type AdvanceCursorOutcome = { readonly ok: true } | { readonly ok: false; readonly stale: 'cursor' };

/**
 * The store's side of the outbox. Rows are written by the operations themselves (in their own
 * transaction); these read them in commit order and keep the relay's durable cursors.
 */
export interface OutboxStore {
  /** Up to `limit` rows strictly after `after` (null: from the oldest row retained), in position order. */
  readOutbox(after: string | null, limit: number): Promise<OutboxPage>;
  /**
   * The position now: a reader that starts here sees every row committed after this call (and
   * perhaps a few committed just before it: at least once, never less).
   */
  outboxHead(): Promise<string>;
  /** The durable cursor of a sink (null: it has never advanced). */
  relayCursor(name: string): Promise<string | null>;
  /** Moves the cursor from `from` (as read) to `to`; stale when someone else moved it meanwhile. */
  advanceRelayCursor(name: string, from: string | null, to: string): Promise<AdvanceCursorOutcome>;
  /**
   * Deletes at most `limit` rows created before `before` that every durable cursor has passed
   * (retention). Answers how many went.
   */
  pruneOutbox(before: number, limit: number): Promise<number>;
}
