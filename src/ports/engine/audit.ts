import type { ReservationLine, SeatMapSpec, SectionKind, SellBy } from '../../domain/index.js';

/**
 * Plain data for the test auditor (test/support/invariants.ts), so no test opens a database file:
 * it computes the invariants itself. Full lists: meant for test-sized shows (a few thousand seats).
 */
export interface ShowAudit {
  readonly seats: readonly { readonly seatId: string; readonly sectionId: string; readonly status: 'AVAILABLE' | 'HELD' | 'SOLD' | 'REFUND_PENDING'; readonly holdId: string | null }[];
  /** Every section; see SectionAvailability for what `available` means per kind. */
  readonly sections: readonly { readonly sectionId: string; readonly kind: SectionKind; readonly sellBy: SellBy; readonly capacity: number; readonly available: number }[];
  readonly holds: readonly { readonly holdId: string; readonly userId: string; readonly status: string; readonly expiresAt: number; readonly lines: readonly ReservationLine[] }[];
  /** `updatedAt`: when the order entered its status (epoch ms). */
  readonly orders: readonly { readonly orderId: string; readonly holdId: string; readonly userId: string; readonly status: string; readonly amountCents: number; readonly updatedAt: number; readonly lines: readonly ReservationLine[] }[];
  readonly payments: readonly { readonly paymentId: string; readonly orderId: string; readonly status: string; readonly amountCents: number; readonly updatedAt: number }[];
  readonly tickets: readonly { readonly ticketId: string; readonly orderId: string; readonly sectionId: string; readonly seatId: string | null; readonly status: string }[];
  /**
   * Tickets in refunds the provider has not answered yet (PENDING): INVALID already, but their
   * seats and units stay taken until the money is back (or the refund is refused and they admit
   * again), so the auditor counts them as sold. Absent: a reader from before it was read.
   */
  readonly pendingRefundTicketIds?: readonly string[];
  /**
   * Orders of this show that gave tickets up by exchange (issue 32): part of their value lives in
   * the new orders, so such an order may be REFUNDED while its payment is only PARTIALLY_REFUNDED
   * (a partial exchange, then the rest refunded). Absent: a reader from before it was read.
   */
  readonly exchangedOutOrderIds?: readonly string[];
  /** The per-user counter rows of this show. */
  readonly userUnits: readonly { readonly userId: string; readonly units: number }[];
  /** The show's seat map (the Redis gate's bit i is seat i of its canonical layout). */
  readonly seatMap?: SeatMapSpec;
}

/** Store-wide work still to settle (the auditor waits until it is all zero). */
export interface PendingAudit {
  readonly paidOrders: number;
  readonly refundPending: number;
  /** ACTIVE holds with expiresAt <= now. */
  readonly overdueActiveHolds: number;
  readonly pendingPayments: number;
}

/**
 * What is stuck, store-wide, for the gauges: each count stops at `countMax` (so the query's cost is
 * bounded), each `oldest` is the epoch ms the oldest row entered its state (null when none).
 * Every figure is an index range on (status, time) on both stores.
 */
export interface StuckReading {
  readonly pendingPay: { readonly count: number; readonly oldest: number | null };
  readonly paidNotTicketed: { readonly count: number; readonly oldest: number | null };
  /** ACTIVE holds with expiresAt <= now; `oldest` is the earliest expiresAt among them. */
  readonly overdueHolds: { readonly count: number; readonly oldest: number | null };
  readonly pendingPayments: { readonly count: number; readonly oldest: number | null };
}

export interface AuditStore {
  /** Everything of one show, read as of one moment; null when no such show. */
  audit(showId: string): Promise<ShowAudit | null>;
  auditPending(now: number): Promise<PendingAudit>;
  /** Show ids after `after` (null: from the start) in id order, at most `limit`: the auditor's pages over shows. */
  auditShowIds(after: string | null, limit: number): Promise<string[]>;
  stuckFigures(now: number, countMax: number): Promise<StuckReading>;
}

/** One payment as the provider's own ledger has it (the sandbox's), for the auditor. */
export interface LedgerCharge {
  readonly status: 'PENDING' | 'SUCCEEDED' | 'FAILED';
  readonly refunded: boolean;
  readonly amountCents: number;
}

/** Read-only view of the payment provider's ledger: the charges it holds for these payment ids. */
export interface ProviderLedgerReader {
  charges(paymentIds: readonly string[]): Promise<ReadonlyMap<string, LedgerCharge>>;
}

/** What the Redis gate holds for one show, read as is (the auditor compares it with the store). */
export interface GateSnapshot {
  /** Whether the show's gate is built (an unbuilt gate refuses nothing, so it cannot disagree). */
  readonly built: boolean;
  /** The seat bitmap: bit i (most significant first) = seat i of the canonical layout, 1 = taken. */
  readonly taken: Uint8Array;
  /** Units left per counted section. */
  readonly units: Readonly<Record<string, number>>;
}

/** Read-only view of the Redis gate, for the auditor. */
export interface GateReader {
  read(showId: string): Promise<GateSnapshot>;
  close(): Promise<void>;
}

/**
 * The auditor's own read-only view of a store (the CLI opens one beside a live server: SQLite
 * read-only without the data-dir lock, PostgreSQL as one more client, no migration).
 */
export interface AuditReader extends Pick<AuditStore, 'audit' | 'auditShowIds'> {
  /** The provider's ledger when this store keeps one (the sandbox provider), else null. */
  readonly ledger: ProviderLedgerReader | null;
  /** The Redis gate in front of the store, when one is configured. */
  readonly gate?: GateReader | null;
  close(): Promise<void>;
}

/** The store the auditor was pointed at cannot be read: `reason` says which store and why. */
export class AuditUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AuditUnavailableError';
  }
}
