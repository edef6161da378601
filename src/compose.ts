import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { createEd25519TicketSigner } from './adapters/crypto/ed25519-ticket-signer.js';
import { scryptPasswordHasher } from './adapters/crypto/scrypt-password-hasher.js';
import { createSandboxProvider, type SandboxProvider } from './adapters/payments/sandbox-provider.js';
import { timeLimitedProvider } from './adapters/payments/time-limited-provider.js';
import { unconfiguredProvider } from './adapters/payments/unconfigured-provider.js';
import { randomIds } from './adapters/runtime/random-ids.js';
import { systemClock } from './adapters/runtime/system-clock.js';
import { createTimerScheduler } from './adapters/runtime/timer-scheduler.js';
import { lockDataDir } from './adapters/sqlite/data-dir-lock.js';
import { createPrometheusTelemetry } from './adapters/telemetry/prometheus-telemetry.js';
import { memoryAccountThrottle } from './adapters/throttle/memory-rate-limiter.js';
import { ensureAdmin, type AdminBootstrap } from './app/accounts.js';
import { startBackgroundJobs, type BackgroundJobs } from './app/background-jobs.js';
import { ensureDemoShow } from './app/catalog.js';
import type { AppContext } from './app/context.js';
import { sweepOverdueHolds } from './app/expiry.js';
import { SeatMapCache } from './app/seat-map-cache.js';
import type { Config } from './config.js';
import { openConfiguredStore } from './compose-store.js';
import { limits } from './domain/index.js';
import { buildHttpApp } from './http/app.js';
import { createTokenService } from './http/auth.js';
import type { Clock } from './ports/runtime.js';
import type { Store } from './ports/engine/index.js';

export interface Node {
  readonly app: FastifyInstance;
  /** The built-in sandbox provider, when it is the configured one (drills and tests inject faults through it). */
  readonly sandbox: SandboxProvider | null;
  readonly ctx: AppContext;
  readonly config: Config;
  /** Listens, then starts the sandbox's deliveries and the background safety nets. Returns the base URL. */
  listen(): Promise<string>;
  stop(): Promise<void>;
}

export interface ComposeOptions {
  readonly clock?: Clock;
  /** Pino options, or false for silence (tests). */
  readonly logger?: boolean | Record<string, unknown>;
  /** The built web front end to serve at `/` (default dist/web); null serves the API only. */
  readonly webRoot?: string | null;
}

/**
 * The store in use, as the start-up log names it: the SQLite file, or PostgreSQL's host, port,
 * database and schema. Never the user or password of the URL.
 */
export function describeStore(database: Config['database']): string {
  if (database.kind === 'sqlite') return `SQLite ${database.filename}`;
  let where: string;
  try {
    const url = new URL(database.url);
    // As node-postgres reads the URL: a host in ?host= (a socket directory) wins; the database
    // defaults to the user's name.
    const host = url.searchParams.get('host') ?? (decodeURIComponent(url.hostname) || 'localhost');
    const name = decodeURIComponent(url.pathname.replace(/^\//, '')) || decodeURIComponent(url.username) || 'postgres';
    where = `${host}:${url.port || '5432'}/${name}`;
  } catch {
    where = '(unparsable TICKETRUSH_DATABASE_URL)';
  }
  return `PostgreSQL ${where} schema ${database.schema}`;
}

/** The composition root: the only place that picks adapters and wires them into the application. */
export async function composeNode(config: Config, options: ComposeOptions = {}): Promise<Node> {
  const clock = options.clock ?? systemClock;
  // Before anything in the directory is opened: a second server on it stops here, at once.
  const dataDirLock = lockDataDir(config.dataDir);
  // The lock stays whatever the store: the data directory also holds the sandbox ledger and secrets.
  let store: Store;
  try {
    store = await openConfiguredStore(config);
  } catch (error) {
    dataDirLock.release();
    throw error;
  }
  let baseUrl = config.publicUrl;
  const reportError = (job: string, error: unknown): void => app.log.error({ err: error, job }, 'background job failed');
  const reportAnomaly = (kind: string, details: Readonly<Record<string, unknown>>): void =>
    app.log.warn({ ...details, anomaly: kind }, 'payment anomaly: callback acknowledged but not applied as sent');
  const { telemetry, registry } = createPrometheusTelemetry(reportError, reportAnomaly);
  const scheduler = createTimerScheduler(() => clock.now(), (key, error) => telemetry.jobFailed(`scheduled-${key.split(':')[0] ?? 'job'}`, error));
  const sandbox = config.paymentProvider === 'sandbox'
    ? createSandboxProvider({
      ledgerFile: join(config.dataDir, 'sandbox-provider.db'),
      callbackUrl: () => `${baseUrl}/api/v1/payments/callback`,
      secret: config.secrets.payment,
      duplicateRate: config.sandboxDuplicateRate,
      deliveryDelayMsMax: config.sandboxDelayMsMax,
      deliveryAttemptsMax: 8,
      retryBaseDelayMs: 500,
      onDeliveryError: (paymentId, error) => app.log.warn({ err: error, paymentId }, 'sandbox callback not acknowledged; will retry'),
    })
    : null;
  const releaseStorage = async (): Promise<void> => {
    sandbox?.stop();
    try {
      await store.close();
    } finally {
      dataDirLock.release();
    }
  };
  const ctx: AppContext = {
    store,
    clock,
    ids: randomIds,
    scheduler,
    // Every provider call is bounded, which the idempotency keys' in-flight limit relies on.
    payments: timeLimitedProvider(sandbox ?? unconfiguredProvider, limits.providerCallMsMax),
    passwords: scryptPasswordHasher,
    throttle: memoryAccountThrottle(config.rateLimits),
    signer: createEd25519TicketSigner(config.secrets.ticketSigningKeyPem),
    telemetry,
    seatMaps: new SeatMapCache(store, () => clock.now(), `${clock.now()}-${randomBytes(8).toString('hex')}`, { seatsMax: config.readModelSeatsMax }),
    policy: {
      holdSecondsDefault: config.holdSecondsDefault,
      holdSecondsMax: config.holdSecondsMax,
      holdExtensionsMax: config.holdExtensionsMax,
      holdLifeSecondsMax: config.holdLifeSecondsMax,
      maxSeatsPerUserDefault: config.maxSeatsPerUser,
      currency: config.currency,
    },
  };
  const app = await buildHttpApp({
    ctx,
    tokens: createTokenService(config.secrets.jwt, config.tokenTtlSeconds),
    paymentSecret: config.secrets.payment,
    sandbox,
    metrics: { contentType: registry.contentType, render: () => registry.metrics() },
    bodyLimitBytes: config.bodyLimitBytes,
    importBytesMax: config.importBytesMax,
    requestTimeoutMs: config.requestTimeoutMs,
    liveConnectionsMax: config.liveConnectionsMax,
    seatMapStreamsMax: config.seatMapStreamsMax,
    webRoot: options.webRoot === undefined ? builtWebRoot() : options.webRoot,
    ticketFont: config.ticketFont,
    // Logs go to stdout through an asynchronous buffered writer: lines written while one write is
    // in flight leave together in the next, so a rush costs a write per batch of lines instead of
    // a blocking write per request. Pino flushes what is buffered when the process exits.
    logger: options.logger ?? { level: config.logLevel, stream: pino.destination({ dest: 1, sync: false }) },
  }).catch(async (error: unknown) => {
    await releaseStorage();
    throw error;
  });
  const release = async (): Promise<void> => {
    scheduler.stop();
    await app.close();
    await releaseStorage();
  };
  try {
    for (const warning of config.warnings) app.log.warn(warning);
    if (config.admin !== null) logAdminBootstrap(app, await ensureAdmin(ctx, config.admin.username, config.admin.password));
    if (config.demo) await ensureDemoShow(ctx);
    // Holds that fell due while the process was down are freed before the first request.
    await sweepOverdueHolds(ctx, Number.MAX_SAFE_INTEGER);
  } catch (error) {
    await release();
    throw error;
  }

  let jobs: BackgroundJobs | null = null;
  let listening = false;
  return {
    app,
    sandbox,
    ctx,
    config,
    async listen() {
      const address = await app.listen({ host: config.host, port: config.port });
      if (baseUrl === '') baseUrl = address.replace('://0.0.0.0', '://127.0.0.1').replace('://[::]', '://127.0.0.1');
      listening = true;
      sandbox?.start();
      jobs = startBackgroundJobs(ctx, {
        expirySweepMs: config.expirySweepMs,
        ticketSweepMs: config.ticketSweepMs,
        reconcileMs: config.reconcileMs,
        reconcileAfterMs: config.reconcileAfterMs,
      }, (job, error) => telemetry.jobFailed(job, error));
      return baseUrl;
    },
    async stop() {
      jobs?.stop();
      // Callbacks go to this very listener: deliver the decided ones while it still answers.
      if (listening) await sandbox?.drain(limits.sandboxDrainMsMax);
      await release();
    },
  };
}

/** What the start did about TICKETRUSH_ADMIN_USER, said where the operator looks. */
function logAdminBootstrap(app: FastifyInstance, result: AdminBootstrap): void {
  const { username, role } = result.user;
  if (result.outcome === 'NAME_TAKEN_BY_OTHER') {
    app.log.warn({ username, role }, `TICKETRUSH_ADMIN_USER names the existing ${role} account "${username}", whose password is not TICKETRUSH_ADMIN_PASSWORD: someone else registered that name, so it is not made ADMIN. Starting without the configured admin; choose another TICKETRUSH_ADMIN_USER`);
  } else if (result.outcome === 'ROLE_RESTORED') {
    app.log.warn({ username }, `the configured admin "${username}" had lost the ADMIN role; it has the configured password, so it is ADMIN again`);
  } else if (result.outcome !== 'KEPT') {
    app.log.info({ username, outcome: result.outcome }, 'configured admin account ensured');
  }
}

/** Where `npm run build` puts the web front end (dist/web), from src/ under tsx or from dist/. */
function builtWebRoot(): string {
  return fileURLToPath(new URL('../dist/web', import.meta.url));
}

export { openConfiguredStore };
