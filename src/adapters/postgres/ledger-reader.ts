import type { LedgerCharge, ProviderLedgerReader } from '../../ports/engine/index.js';
import type { PgDb } from './db.js';

/** The sandbox provider's ledger table (sandbox_payments) read for the auditor: one statement per batch of ids. */
export function pgLedgerReader(db: PgDb): ProviderLedgerReader {
  return {
    async charges(paymentIds) {
      const found = new Map<string, LedgerCharge>();
      if (paymentIds.length === 0) return found;
      const { rows } = await db.query<{ payment_id: string; status: LedgerCharge['status']; refunded: boolean; amount_cents: number }>(
        'SELECT payment_id, status, refunded, amount_cents FROM sandbox_payments WHERE payment_id = ANY($1::text[])', [paymentIds]);
      for (const r of rows) found.set(r.payment_id, { status: r.status, refunded: r.refunded, amountCents: r.amount_cents });
      return found;
    },
  };
}
