import { auditCheckNames, auditShows, type AuditCheckName, type AuditViolation } from './app/inventory-audit.js';
import { loadConfig, type Config } from './config.js';
import { AuditUnavailableError, type AuditReader, type GateReader } from './ports/engine/index.js';

/**
 * `ticketrush audit`: the auditor's checks (src/app/inventory-audit.ts) over the configured store,
 * opened read-only beside any running server (SQLite read-only without the data-dir lock; on
 * PostgreSQL one more client, no migration), with the server's environment.
 */

export interface StoreAuditReport {
  /** Which store was read (no secrets). */
  readonly store: string;
  readonly at: string;
  readonly boundSeconds: number;
  /** Whether the provider's ledger was read (the sandbox provider keeps one). */
  readonly ledger: boolean;
  /** Whether the Redis gate was compared (TICKETRUSH_REDIS_URL set). */
  readonly gate: boolean;
  readonly shows: number;
  readonly passed: boolean;
  readonly counts: Readonly<Record<AuditCheckName, number>>;
  /** At most 20 per check. */
  readonly violations: readonly AuditViolation[];
}

/** Opens the auditor's read-only view of the store the configuration names. */
export async function openAuditReader(database: Config['database']): Promise<{ reader: AuditReader; store: string }> {
  if (database.kind === 'sqlite') {
    const { openSqliteAuditReader } = await import('./adapters/sqlite/audit-reader.js');
    return { reader: openSqliteAuditReader(database.filename), store: `SQLite ${database.filename}` };
  }
  const { openPgAuditReader } = await import('./adapters/postgres/audit-reader.js');
  const reader = await openPgAuditReader({
    url: database.url,
    schema: database.schema,
    poolMax: 2,
    connectTimeoutMs: database.connectTimeoutMs,
    idleTimeoutMs: database.idleTimeoutMs,
    lockTimeoutMs: database.lockTimeoutMs,
    statementTimeoutMs: database.statementTimeoutMs,
  });
  return { reader, store: `PostgreSQL schema ${database.schema}` };
}

/** Runs every check over every show; throws AuditUnavailableError when the store cannot be read. */
export async function auditConfiguredStore(config: Pick<Config, 'database' | 'auditBoundSeconds' | 'redis'>, now: number = Date.now()): Promise<StoreAuditReport> {
  const { reader, store } = await openAuditReader(config.database);
  let gate: GateReader | null = null;
  try {
    if (config.redis !== null) {
      const { openGateReader } = await import('./adapters/redis/gate-reader.js');
      gate = await openGateReader(config.redis);
    }
    const pass = await auditShows({ ...reader, gate }, { now, boundMs: config.auditBoundSeconds * 1000 });
    return {
      store,
      at: new Date(now).toISOString(),
      boundSeconds: config.auditBoundSeconds,
      ledger: reader.ledger !== null,
      gate: gate !== null,
      shows: pass.shows,
      passed: auditCheckNames.every((name) => pass.counts[name] === 0),
      counts: pass.counts,
      violations: pass.violations,
    };
  } catch (error) {
    if (error instanceof AuditUnavailableError) throw error;
    // A store that went away mid-audit (PostgreSQL down) is "could not run", not a violation.
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && /^(ECONNREFUSED|ECONNRESET|ENOTFOUND|ETIMEDOUT|57P0\d|08\d{3})$/.test(code)) {
      throw new AuditUnavailableError(`${store} went away during the audit: ${(error as Error).message}`);
    }
    throw error;
  } finally {
    await gate?.close().catch(() => undefined);
    await reader.close().catch(() => undefined);
  }
}

/** The human form: one line per check, then the violations found (a few per check). */
export function auditText(report: StoreAuditReport): string {
  const lines = [`TicketRush audit of ${report.store} at ${report.at}: ${report.shows} show${report.shows === 1 ? '' : 's'}, bound ${report.boundSeconds} s, provider ledger ${report.ledger ? 'read' : 'not kept (not checked)'}, Redis gate ${report.gate ? 'compared' : 'not configured'}`];
  for (const name of auditCheckNames) lines.push(`  ${report.counts[name] === 0 ? 'ok  ' : 'FAIL'}  ${name.padEnd(22)} ${report.counts[name]}`);
  for (const v of report.violations) lines.push(`  - ${v.check}: show ${v.showId}, ${v.subject}: ${v.detail}`);
  const total = auditCheckNames.reduce((n, name) => n + report.counts[name], 0);
  lines.push(report.passed ? 'clean: no violation' : `${total} violation${total === 1 ? '' : 's'}`);
  return `${lines.join('\n')}\n`;
}

/** The command: prints the report and answers the exit code (0 clean, 1 violations, 2 could not run). */
export async function runAuditCommand(options: { readonly json: boolean; readonly boundSeconds?: number }): Promise<number> {
  const loaded = loadConfig();
  const config = options.boundSeconds === undefined ? loaded : { ...loaded, auditBoundSeconds: options.boundSeconds };
  try {
    const report = await auditConfiguredStore(config);
    process.stdout.write(options.json ? `${JSON.stringify(report, null, 2)}\n` : auditText(report));
    return report.passed ? 0 : 1;
  } catch (error) {
    if (!(error instanceof AuditUnavailableError)) throw error;
    if (options.json) process.stdout.write(`${JSON.stringify({ passed: null, error: error.message }, null, 2)}\n`);
    process.stderr.write(`ticketrush audit: could not run: ${error.message}\n`);
    return 2;
  }
}
