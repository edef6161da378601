import { AuditUnavailableError, type AuditReader } from '../../ports/engine/index.js';
import { pgAudit } from './audit.js';
import { createPgDb } from './db.js';
import { pgLedgerReader } from './ledger-reader.js';
import { createPgPool, type PgPoolOptions } from './pool.js';

/** The URL without its password, for messages. */
function shown(url: string): string {
  try {
    const u = new URL(url);
    if (u.password !== '') u.password = '***';
    return u.toString();
  } catch {
    return '(an unparsable TICKETRUSH_DATABASE_URL)';
  }
}

/**
 * The auditor's view of a PostgreSQL store: one more client with a pool of two, no migration (a
 * store without the schema is refused, not created); each show read in one REPEATABLE READ READ
 * ONLY transaction (audit.ts).
 */
export async function openPgAuditReader(options: PgPoolOptions): Promise<AuditReader> {
  const pool = createPgPool({ ...options, poolMax: 2, poolMin: 0 });
  let tables: { shows: string | null; ledger: string | null };
  try {
    const { rows } = await pool.query<{ shows: string | null; ledger: string | null }>("SELECT to_regclass('shows')::text AS shows, to_regclass('sandbox_payments')::text AS ledger");
    tables = rows[0] as { shows: string | null; ledger: string | null };
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw new AuditUnavailableError(`PostgreSQL at ${shown(options.url)} (TICKETRUSH_DATABASE_URL) cannot be reached: ${(error as Error).message}`);
  }
  if (tables.shows === null) {
    await pool.end();
    throw new AuditUnavailableError(`the PostgreSQL store at ${shown(options.url)}, schema ${options.schema}, is empty (no TicketRush tables: never started, or another schema)`);
  }
  const db = createPgDb('checkout', pool, { retriesMax: 2, retryBaseDelayMs: 5 });
  const { audit, auditShowIds } = pgAudit(db);
  return {
    audit,
    auditShowIds,
    ledger: tables.ledger === null ? null : pgLedgerReader(db),
    close: () => pool.end(),
  };
}
