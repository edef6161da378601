import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { LedgerCharge, ProviderLedgerReader } from '../../ports/engine/index.js';

/** Ids per statement: well under SQLite's bound on parameters. */
const chunk = 500;

/**
 * The sandbox provider's SQLite ledger (sandbox-provider.db beside the store), opened read-only
 * for the auditor: null when there is none (another provider, or no payment yet).
 */
export function openSqliteLedgerReader(file: string): (ProviderLedgerReader & { close(): void }) | null {
  if (!existsSync(file)) return null;
  const db = new Database(file, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  const known = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sandbox_payments'").get() !== undefined;
  if (!known) {
    db.close();
    return null;
  }
  const byCount = new Map<number, Database.Statement>();
  const statement = (n: number): Database.Statement => {
    let s = byCount.get(n);
    if (s === undefined) byCount.set(n, (s = db.prepare(`SELECT payment_id, status, refunded, amount_cents FROM sandbox_payments WHERE payment_id IN (${Array(n).fill('?').join(',')})`)));
    return s;
  };
  return {
    async charges(paymentIds) {
      const found = new Map<string, LedgerCharge>();
      for (let i = 0; i < paymentIds.length; i += chunk) {
        const ids = paymentIds.slice(i, i + chunk);
        for (const r of statement(ids.length).all(...ids) as { payment_id: string; status: LedgerCharge['status']; refunded: number; amount_cents: number }[]) {
          found.set(r.payment_id, { status: r.status, refunded: r.refunded === 1, amountCents: r.amount_cents });
        }
      }
      return found;
    },
    close: () => db.close(),
  };
}
