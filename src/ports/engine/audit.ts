import type { ReservationLine, SectionKind, SellBy } from '../../domain/index.js';

/**
 * Plain data for the test auditor (test/support/invariants.ts), so no test opens a database file:
 * it computes the invariants itself. Full lists: meant for test-sized shows (a few thousand seats).
 */
export interface ShowAudit {
  readonly seats: readonly { readonly seatId: string; readonly sectionId: string; readonly status: 'AVAILABLE' | 'HELD' | 'SOLD' | 'REFUND_PENDING'; readonly holdId: string | null }[];
  /** Every section; see SectionAvailability for what `available` means per kind. */
  readonly sections: readonly { readonly sectionId: string; readonly kind: SectionKind; readonly sellBy: SellBy; readonly capacity: number; readonly available: number }[];
  readonly holds: readonly { readonly holdId: string; readonly userId: string; readonly status: string; readonly expiresAt: number; readonly lines: readonly ReservationLine[] }[];
  readonly orders: readonly { readonly orderId: string; readonly holdId: string; readonly userId: string; readonly status: string; readonly amountCents: number; readonly lines: readonly ReservationLine[] }[];
  readonly payments: readonly { readonly paymentId: string; readonly orderId: string; readonly status: string; readonly amountCents: number }[];
  readonly tickets: readonly { readonly ticketId: string; readonly orderId: string; readonly sectionId: string; readonly seatId: string | null; readonly status: string }[];
  /** The per-user counter rows of this show. */
  readonly userUnits: readonly { readonly userId: string; readonly units: number }[];
}

/** Store-wide work still to settle (the auditor waits until it is all zero). */
export interface PendingAudit {
  readonly paidOrders: number;
  readonly refundPending: number;
  /** ACTIVE holds with expiresAt <= now. */
  readonly overdueActiveHolds: number;
  readonly pendingPayments: number;
}

export interface AuditStore {
  /** Everything of one show; null when no such show. */
  audit(showId: string): Promise<ShowAudit | null>;
  auditPending(now: number): Promise<PendingAudit>;
}
