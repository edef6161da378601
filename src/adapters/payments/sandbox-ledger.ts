import type { ProviderPaymentStatus } from '../../ports/payment-provider.js';

/** One payment as the sandbox provider keeps it. */
export interface SandboxEntry {
  readonly paymentId: string;
  readonly orderId: string;
  readonly amountCents: number;
  readonly status: Exclude<ProviderPaymentStatus, 'UNKNOWN'>;
  readonly delivered: boolean;
  readonly refunded: boolean;
}

/**
 * Where the sandbox provider ("another company") keeps its payments: a SQLite file of the data
 * directory for the embedded server (sqlite-sandbox-ledger.ts), a table of the shared database
 * when several processes serve one sale (postgres/sandbox-ledger.ts), so a payment opened through
 * one process is paid, called back and reconciled through any. Each method is one statement.
 */
export interface SandboxLedger {
  /** Opens a PENDING payment unless `idempotencyKey` opened one; returns the id of the one it opened. */
  open(entry: { readonly paymentId: string; readonly orderId: string; readonly amountCents: number; readonly idempotencyKey: string }): Promise<string>;
  get(paymentId: string): Promise<SandboxEntry | null>;
  /** PENDING → `outcome`; false when it was not PENDING (or is unknown). */
  decide(paymentId: string, outcome: 'SUCCEEDED' | 'FAILED'): Promise<boolean>;
  markDelivered(paymentId: string): Promise<void>;
  /**
   * Refunds a SUCCEEDED payment, idempotent by key as real providers are: a key that refunded
   * answers true again and never refunds twice; a new key is a new refund, refused (false) beyond
   * what was paid. One short transaction.
   */
  refund(request: { readonly paymentId: string; readonly amountCents: number; readonly idempotencyKey: string }): Promise<boolean>;
  /** What was given back for a payment over all its refunds (tests and drills audit it). */
  refundedCents(paymentId: string): Promise<number>;
  /** Decided payments whose callback was never acknowledged, oldest first, at most `limit`. */
  undelivered(limit: number): Promise<string[]>;
  close(): Promise<void>;
}
