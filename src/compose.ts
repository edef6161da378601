import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { randomBytes, randomInt } from 'node:crypto';
import { hostname } from 'node:os';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { createEd25519TicketSigner } from './adapters/crypto/ed25519-ticket-signer.js';
import { scryptPasswordHasher } from './adapters/crypto/scrypt-password-hasher.js';
import { createSandboxProvider, type SandboxProvider } from './adapters/payments/sandbox-provider.js';
import { openSqliteSandboxLedger } from './adapters/payments/sqlite-sandbox-ledger.js';
import { createStripeProvider } from './adapters/payments/stripe-provider.js';
import { secretFingerprint } from './adapters/crypto/secret-fingerprint.js';
import { timeLimitedProvider } from './adapters/payments/time-limited-provider.js';
import { unconfiguredProvider } from './adapters/payments/unconfigured-provider.js';
import { randomIds } from './adapters/runtime/random-ids.js';
import { systemClock } from './adapters/runtime/system-clock.js';
import { createInProcessQueue } from './adapters/runtime/in-process-queue.js';
import { createBullmqQueue } from './adapters/redis/bullmq-queue.js';
import { lockDataDir } from './adapters/sqlite/data-dir-lock.js';
import { openPgStore, type PgStore } from './adapters/postgres/pg-store.js';
import { pgSandboxLedger } from './adapters/postgres/sandbox-ledger.js';
import { isConnectionFailure } from './adapters/postgres/connection-failure.js';
import { probeRedis, redisAddress, redisReadiness } from './adapters/redis/probe.js';
import { openRedisGate } from './adapters/redis/redis-gate.js';
import { createPrometheusTelemetry } from './adapters/telemetry/prometheus-telemetry.js';
import { memoryAccountThrottle } from './adapters/throttle/memory-rate-limiter.js';
import { createBuyingThrottle } from './adapters/throttle/buying-throttle.js';
import { Blocklist, type BlocklistHooks } from './app/blocklist.js';
import { createUndiciSender } from './adapters/webhooks/undici-sender.js';
import { guardedSender, type WebhookTargetPolicy } from './app/webhook-targets.js';
import { lookup as dnsLookup } from 'node:dns/promises';
import { createNodemailerSender } from './adapters/email/nodemailer-sender.js';
import { defaultEmailPolicy, NotificationMailer } from './app/notification-email.js';
import { createNotificationSink } from './app/notification-sink.js';
import { ensureAdmin, type AdminBootstrap } from './app/accounts.js';
import { periodicSweeps, startBackgroundJobs, type BackgroundJobs } from './app/background-jobs.js';
import { anyFault, expiryOutageWindow, faultyProvider, sweepsWithExpiryOutage, withExpiryOutage } from './app/faults.js';
import { ensureDemoShow } from './app/catalog.js';
import { discountReturnsSink } from './app/discounts.js';
import type { AppContext } from './app/context.js';
import { sweepOverdueHolds } from './app/expiry.js';
import { jobHandlers } from './app/job-handlers.js';
import { warmReadModels } from './app/warm-up.js';
import { startChangeFeed, type ChangeFeed } from './app/change-feed.js';
import { applyCodePoolEvent } from './app/code-pools.js';
import { WaitingRoomCache } from './app/waiting-room-cache.js';
import { blockQueuePlaces } from './app/waiting-rooms.js';
import { hmacAdmissionTokens } from './adapters/crypto/admission-tokens.js';
import { startOutboxRelay, type OutboxRelayLoop } from './app/outbox-relay.js';
import { startOpsFigures } from './app/ops-figures.js';
import { openSqliteAuditReader } from './adapters/sqlite/audit-reader.js';
import { pgLedgerReader } from './adapters/postgres/ledger-reader.js';
import { feedingReadModel } from './app/read-model-store.js';
import { redisGateSink } from './app/gate-sink.js';
import { waitlistSink } from './app/waitlist.js';
import { GateService } from './app/inventory-gate.js';
import { SeatMapCache } from './app/seat-map-cache.js';
import { defaultWebhookDeliveryPolicy, WebhookDelivery } from './app/webhook-delivery.js';
import { createWebhookSink } from './app/webhook-sink.js';
import type { WebhookSettings } from './app/webhooks.js';
import { SecretDisagreement, settleSecrets } from './app/shared-secrets.js';
import { ConfigError, DependencyUnreachableError, secretVariables, type Config, type SecretName, type Secrets } from './config.js';
import { limits, selfAddressOf, type SelfAddress } from './domain/index.js';
import { openConfiguredStore } from './compose-store.js';
import { buildHttpApp } from './http/app.js';
import { createTokenService } from './http/auth.js';
import type { JobBackend } from './ports/jobs.js';
import type { Clock, IdSource } from './ports/runtime.js';
import type { PaymentProvider } from './ports/payment-provider.js';
import type { AuditReader, OutboxSink, Store } from './ports/engine/index.js';

export interface Node {
  readonly app: FastifyInstance;
  /** The built-in sandbox provider, when it is the configured one (drills and tests inject faults through it). */
  readonly sandbox: SandboxProvider | null;
  readonly ctx: AppContext;
  readonly config: Config;
  /** This process's name in the sweeps' leases. */
  readonly holder: string;
  /**
   * Webhooks out: the outbox relay's sink (register it with the relay), and the sender of
   * deliveries (its runJob is the deliver-webhook job's handler).
   */
  readonly webhooks: { readonly sink: OutboxSink; readonly delivery: WebhookDelivery };
  /**
   * The blocklist; its hooks.onBuyerBlocked is the list the composition fills with what a block of
   * a buyer must also do (e.g. the waiting room's blockQueuePlaces).
   */
  readonly blocklist: Blocklist;
  /**
   * Buyer notifications: the outbox relay's sink 'notifications' (registered with this process's
   * relay), and the mailer (null when TICKETRUSH_SMTP_URL is not set).
   */
  readonly notifications: { readonly sink: OutboxSink; readonly mailer: NotificationMailer | null };
  /** The outbox relay's sink 'redis-gate' that keeps the Redis gate in step with every process's commits (register it with the relay); null without Redis. */
  readonly gateSink: OutboxSink | null;
  /**
   * Listens, then starts the sandbox's deliveries and (unless composed with jobs: false) the
   * periodic sweeps and the webhooks' due pass. Returns the address it listens at.
   */
  listen(): Promise<string>;
  /** Starts running named jobs and the periodic sweeps without listening (`ticketrush worker`); listen() calls it. */
  startJobs(): void;
  stop(): Promise<void>;
}

export interface ComposeOptions {
  readonly clock?: Clock;
  /** Pino options, or false for silence (tests). */
  readonly logger?: boolean | Record<string, unknown>;
  /** The built web front end to serve at `/` (default dist/web); null serves the API only. */
  readonly webRoot?: string | null;
  /**
   * Whether this process runs jobs and the periodic sweeps (default true). false: API only
   * (`ticketrush start --no-jobs`); it still enqueues jobs, for the processes that run them.
   */
  readonly jobs?: boolean;
  /**
   * Open the database pools' connections before listening and keep them (default true, as a
   * deployed server should). In-process test nodes turn it off: many share one PostgreSQL.
   */
  readonly warmStore?: boolean;
  /** More durable consumers of the outbox for the relay, beside the webhooks' sink (e.g. the Redis gate). */
  readonly outboxSinks?: readonly OutboxSink[];
  /**
   * A payment provider in place of the configured one (no sandbox is created then). The seeded
   * simulation (test/sim) puts its scripted provider here: one that fails, delays and refuses on cue.
   */
  readonly paymentProvider?: PaymentProvider;
  /** Ids in place of random ones: the seeded simulation replays a run only if every id is the same again. */
  readonly ids?: IdSource;
  /**
   * Whether this process runs the outbox relay's periodic pass (default true). false: whoever
   * composed the node runs relayOnce itself, at moments it chooses (the seeded simulation, whose
   * replay must not depend on when a timer fired).
   */
  readonly outboxRelay?: boolean;
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

/** How often the outbox relay looks for rows for its sinks: webhooks may wait that long; the read model does not (it has the change feed). */
const relayIntervalMs = 250;

/** The composition root: the only place that picks adapters and wires them into the application. */
export async function composeNode(loaded: Config, options: ComposeOptions = {}): Promise<Node> {
  const clock = options.clock ?? systemClock;
  // Before anything in the directory is opened: a second server on it stops here, at once. Only
  // on SQLite, where the directory holds the store, the secrets and the sandbox ledger; over
  // PostgreSQL all three live in the database and many processes share it by design.
  const dataDirLock = loaded.database.kind === 'sqlite' ? lockDataDir(loaded.dataDir) : { release() {} };
  // This process's name on the outbox rows it writes: its change feed skips them (applied locally).
  const origin = `${hostname()}:${process.pid}:${randomBytes(6).toString('hex')}`;
  let store: Store;
  let config: Config;
  try {
    // A server: its pools opened before it listens (the first onsale after a deploy must not open them).
    store = await openConfiguredStore(loaded, { warm: options.warmStore ?? (loaded.database.kind === 'postgres' && loaded.database.warm), origin }).catch((error: unknown) => {
      if (loaded.database.kind !== 'postgres' || !isConnectionFailure(error)) throw error;
      throw new DependencyUnreachableError(`cannot reach ${describeStore(loaded.database)} (TICKETRUSH_DATABASE_URL): ${(error as Error).message}`, { cause: error });
    });
  } catch (error) {
    dataDirLock.release();
    throw error;
  }
  try {
    if (loaded.redis !== null) await checkRedis(loaded.redis.url, loaded.database);
    config = loaded.database.kind === 'sqlite' ? loaded : Object.freeze({ ...loaded, secrets: Object.freeze(await sharedSecrets(store, loaded)) });
  } catch (error) {
    await store.close();
    dataDirLock.release();
    throw error;
  }
  let baseUrl = config.publicUrl;
  /** The address the listener actually took (port 0 picks one), whatever the public URL says. */
  let listenUrl = '';
  const reportError = (job: string, error: unknown): void => app.log.error({ err: error, job }, 'background job failed');
  const reportAnomaly = (kind: string, details: Readonly<Record<string, unknown>>): void =>
    app.log.warn({ ...details, anomaly: kind }, 'payment anomaly: callback acknowledged but not applied as sent');
  const { telemetry, registry } = createPrometheusTelemetry(reportError, reportAnomaly);
  const runsJobs = options.jobs !== false;
  const holder = `${hostname()}:${process.pid}:${randomBytes(6).toString('hex')}`;
  const onJobError = (name: string, _key: string, error: unknown): void => telemetry.jobFailed(name, error);
  // BullMQ when Redis is configured: a job outlives the process that enqueued it. Otherwise the
  // jobs run in this process and the sweeps (leased, so one process runs each) are the durable
  // net: see docs/architecture.md, "Jobs".
  let queue: JobBackend;
  try {
    queue = config.redis === null
      ? createInProcessQueue(() => clock.now(), onJobError)
      : await createBullmqQueue({ url: config.redis.url, prefix: config.redis.prefix, now: () => clock.now(), onError: onJobError });
  } catch (error) {
    await store.close().catch(() => undefined);
    dataDirLock.release();
    throw new Error(`Redis at TICKETRUSH_REDIS_URL is unreachable: ${(error as Error).message}`, { cause: error });
  }
  const sandbox = config.paymentProvider === 'sandbox' && options.paymentProvider === undefined
    ? createSandboxProvider({
      ledger: isPgStore(store) ? pgSandboxLedger(store.lanes.checkout) : openSqliteSandboxLedger(join(config.dataDir, 'sandbox-provider.db')),
      callbackUrl: () => `${baseUrl}/api/v1/payments/callback`,
      secret: config.secrets.payment,
      duplicateRate: config.sandboxDuplicateRate,
      deliveryDelayMsMax: config.sandboxDelayMsMax,
      deliveryAttemptsMax: 8,
      retryBaseDelayMs: 500,
      onDeliveryError: (paymentId, error) => app.log.warn({ err: error, paymentId }, 'sandbox callback not acknowledged; will retry'),
    })
    : null;
  const stripe = config.stripe === null ? null : createStripeProvider({
    ...config.stripe,
    // Stripe's hosted page sends the buyer back to their order's page.
    returnUrl: (orderId, outcome) => `${config.publicUrl || baseUrl}/orders/${encodeURIComponent(orderId)}?checkout=${outcome}`,
    toleranceSeconds: limits.signatureToleranceSeconds,
  });
  // A slow provider on demand (a cancellation test kills a process mid-way through its refunds).
  if (sandbox !== null && config.sandboxCallDelayMs > 0) sandbox.setCallDelayMs(config.sandboxCallDelayMs);
  const redisReady = config.redis === null ? null : redisReadiness(config.redis.url, 1_000);
  // Seed 003's gate in front of the claims, when Redis is configured. Lost while running, it is
  // skipped (short timeout, circuit breaker): claims go to the database, slower, not down.
  const redisGate = config.redis === null ? null : openRedisGate({ url: config.redis.url, prefix: config.redis.prefix });
  const gate = redisGate === null ? null : new GateService(redisGate, store, () => clock.now(), (error) => telemetry.jobFailed('gate-rebuild', error));
  const releaseStorage = async (): Promise<void> => {
    redisReady?.close();
    await redisGate?.close();
    sandbox?.stop();
    try {
      await store.close();
    } finally {
      dataDirLock.release();
    }
  };
  const seatMaps = new SeatMapCache(store, () => clock.now(), { seatsMax: config.readModelSeatsMax });
  const ctx: AppContext = {
    // Every inventory change this process makes reaches its read model here, as the call returns.
    store: feedingReadModel(store, seatMaps),
    clock,
    ids: options.ids ?? randomIds,
    // A bargain's cut is money: drawn from the CSPRNG, like the ids (randomInt's range is below 2^48).
    random: () => randomInt(0, 2 ** 47) / 2 ** 47,
    jobs: queue,
    // Every provider call is bounded, which the idempotency keys' in-flight limit relies on.
    // Fault injection (drills only; off by default): some calls fail as in an outage.
    payments: timeLimitedProvider(faultyProvider(options.paymentProvider ?? sandbox ?? stripe ?? unconfiguredProvider, config.faults.providerErrorRate, Math.random), limits.providerCallMsMax),
    passwords: scryptPasswordHasher(config.scryptCost),
    throttle: memoryAccountThrottle(config.rateLimits),
    signer: createEd25519TicketSigner(config.secrets.ticketSigningKeyPem),
    telemetry,
    seatMaps,
    policy: {
      holdSecondsDefault: config.holdSecondsDefault,
      holdSecondsMax: config.holdSecondsMax,
      holdExtensionsMax: config.holdExtensionsMax,
      holdLifeSecondsMax: config.holdLifeSecondsMax,
      maxSeatsPerUserDefault: config.maxSeatsPerUser,
      waitlistClaimSeconds: config.waitlistClaimSeconds,
      idempotencyInFlightMs: config.idempotencyInFlightSeconds * 1000,
      currency: config.currency,
    },
    rooms: new WaitingRoomCache(),
    admission: hmacAdmissionTokens(config.secrets.admission),
    ...(gate === null ? {} : { gate }),
  };
  // Issue 24: the buying routes' limits (shared through the gate's Redis connection when
  // configured, so every process counts together) and the blocklist, cached per process.
  const buyingThrottle = createBuyingThrottle(config.rateLimits?.buying ?? null, redisGate === null ? { kind: 'memory' } : { kind: 'redis', redis: redisGate.redis, prefix: config.redis?.prefix ?? 'ticketrush:' });
  const blocklistHooks: BlocklistHooks = {
    // A blocked buyer's places in every waiting room become BLOCKED (issue 24 item 4).
    onBuyerBlocked: [async (userId) => {
      await blockQueuePlaces(ctx, userId);
    }],
    onHookError: (error) => telemetry.jobFailed('blocklist-hook', error),
  };
  const blocklist = new Blocklist(ctx, blocklistHooks);
  const gateSink = redisGate === null ? null : redisGateSink(redisGate, { layoutOf: async (showId) => (await ctx.seatMaps.get(showId))?.layout ?? null });
  // Webhooks out: deliveries are sent by background work only (the due pass here, or the
  // deliver-webhook job), never on a request's path. The due pass, woken by the sink, sends at
  // once; with BullMQ each retry is also a delayed job, so it survives this process.
  // Every target is checked before each attempt (issue 33): no delivery into this network unless allowed.
  const webhookTargets: WebhookTargetPolicy = {
    allow: { entries: config.webhooks.allowHosts },
    resolve: async (host) => (await dnsLookup(host, { all: true })).map((a) => a.address),
  };
  const webhookSender = guardedSender(createUndiciSender(), webhookTargets);
  const webhookDelivery = new WebhookDelivery({
    store,
    clock,
    // randomInt's range is below 2^48: 47 bits of jitter are plenty.
    random: () => randomInt(0, 2 ** 47) / 2 ** 47,
    sender: webhookSender,
    // On BullMQ each attempt is a job that outlives this process; in-process, the due pass alone.
    jobs: config.redis === null ? null : queue,
    policy: { ...defaultWebhookDeliveryPolicy, timeoutMs: config.webhooks.timeoutMs, concurrency: config.webhooks.concurrency, leaseMs: Math.max(defaultWebhookDeliveryPolicy.leaseMs, 3 * config.webhooks.timeoutMs) },
    onError: (what, error) => telemetry.jobFailed(what, error),
    onAttempt: (outcome, durationMs) => telemetry.webhookAttempt(outcome, durationMs / 1000),
  });
  const webhookSink = createWebhookSink({
    store,
    clock,
    newDeliveryId: () => `dlv_${randomBytes(12).toString('hex')}`,
    // On BullMQ each attempt is a job that outlives this process; in-process, the due pass alone.
    jobs: config.redis === null ? null : queue,
    wake: () => webhookDelivery.wake(),
    onError: (what, error) => telemetry.jobFailed(what, error),
  });
  // Notifications: rows from the outbox (always), emails when SMTP is configured, sent by
  // background work only (the due pass woken by the sink, or the notification-email job).
  const emailSender = config.email.smtpUrl === null ? null : createNodemailerSender({ url: config.email.smtpUrl, from: config.email.from, timeoutMs: config.email.timeoutMs });
  const mailer = emailSender === null ? null : new NotificationMailer({
    store,
    clock,
    random: () => randomInt(0, 2 ** 47) / 2 ** 47,
    sender: emailSender,
    jobs: config.redis === null ? null : queue,
    // The lease outlasts an attempt many times over (connect, greeting and socket timeouts).
    policy: { ...defaultEmailPolicy, retryBaseMs: config.email.retryBaseMs, leaseMs: Math.max(defaultEmailPolicy.leaseMs, 10 * config.email.timeoutMs) },
    baseUrl: () => config.publicUrl !== '' ? config.publicUrl : baseUrl,
    onError: (what, error) => telemetry.jobFailed(what, error),
  });
  const notificationSink = createNotificationSink({
    store,
    clock,
    newNotificationId: () => randomIds.newId('notification'),
    email: mailer !== null,
    jobs: config.redis === null ? null : queue,
    wake: () => mailer?.wake(),
    onError: (what, error) => telemetry.jobFailed(what, error),
  });
  const webhookSettings: WebhookSettings = {
    // The configured listen address, the actual one once listening, and the public URL: a webhook
    // to any of them would deliver to this server itself.
    selfAddresses: () => [
      ...(config.port === 0 ? [] : [{ host: config.host, port: config.port }]),
      ...[listenUrl, baseUrl, config.publicUrl].map(selfAddressOf).filter((a): a is SelfAddress => a !== null),
    ],
    targets: webhookTargets,
    newWebhookId: () => `whk_${randomBytes(12).toString('hex')}`,
    newSecret: () => `whsec_${randomBytes(32).toString('hex')}`,
  };
  const app = await buildHttpApp({
    ctx,
    tokens: createTokenService(config.secrets.jwt, config.tokenTtlSeconds),
    paymentSecret: config.secrets.payment,
    webhooks: webhookSettings,
    sandbox,
    stripe,
    metrics: { contentType: registry.contentType, render: () => registry.metrics(), token: config.metricsToken },
    bodyLimitBytes: config.bodyLimitBytes,
    importBytesMax: config.importBytesMax,
    requestTimeoutMs: config.requestTimeoutMs,
    liveConnectionsMax: config.liveConnectionsMax,
    seatMapStreamsMax: config.seatMapStreamsMax,
    loadShedding: config.loadShedding,
    readiness: { store: describeStore(config.database), others: redisReady === null ? [] : [redisReady] },
    webRoot: options.webRoot === undefined ? builtWebRoot() : options.webRoot,
    ticketFont: config.ticketFont,
    buyers: { throttle: buyingThrottle, blocklist },
    trustProxy: config.trustProxy,
    // Logs go to stdout through an asynchronous buffered writer: lines written while one write is
    // in flight leave together in the next, so a rush costs a write per batch of lines instead of
    // a blocking write per request. Pino flushes what is buffered when the process exits.
    logger: options.logger ?? { level: config.logLevel, stream: pino.destination({ dest: 1, sync: false }) },
  }).catch(async (error: unknown) => {
    await queue.close();
    await releaseStorage();
    throw error;
  });
  // Jobs run from here on (a hold placed by a start-up chore, or by a test that never listens, is
  // released on time); the periodic sweeps start with listen() or startJobs().
  // Drills: the expiry job stopped for a window after the start (TICKETRUSH_FAULT_EXPIRY_STOP_*).
  const outage = expiryOutageWindow(config.faults, Date.now());
  const expiryStopped = (): boolean => outage !== null && Date.now() >= outage.fromMs && Date.now() < outage.untilMs;
  if (config.faults.providerDelayMs > 0) sandbox?.setCallDelayMs(config.faults.providerDelayMs);
  if (runsJobs) queue.start(withExpiryOutage(jobHandlers(ctx, webhookDelivery, mailer), expiryStopped));
  let jobs: BackgroundJobs | null = null;
  let webhookTimer: NodeJS.Timeout | null = null;
  let emailTimer: NodeJS.Timeout | null = null;
  let feed: ChangeFeed | null = null;
  let relay: OutboxRelayLoop | null = null;
  let stopBlocklist: (() => void) | null = null;
  let opsFigures: { stop(): void; now(): Promise<void> } | null = null;
  // The auditor job's read-only view: on SQLite a read-only connection of its own (paged reads on
  // this thread, never the store thread that decides the sales), with the sandbox ledger beside it;
  // on PostgreSQL the checkout lane and the ledger's table.
  const auditReader: AuditReader | null = config.database.kind === 'sqlite' ? openSqliteAuditReader(config.database.filename)
    : isPgStore(store) ? { audit: (id) => store.audit(id), auditShowIds: (after, n) => store.auditShowIds(after, n), ledger: sandbox === null ? null : pgLedgerReader(store.lanes.checkout), close: async () => undefined }
      : null;
  const release = async (): Promise<void> => {
    stopBlocklist?.();
    await jobs?.stop();
    feed?.stop();
    relay?.stop();
    opsFigures?.stop();
    await auditReader?.close();
    await queue.close();
    if (webhookTimer !== null) clearInterval(webhookTimer);
    if (emailTimer !== null) clearInterval(emailTimer);
    webhookDelivery.stop();
    mailer?.stop();
    // Attempts in flight are bounded by the webhook timeout; wait a little for them to be
    // recorded, no longer: an unrecorded attempt is simply sent again after its lease.
    await Promise.race([webhookDelivery.idle(), new Promise((resolve) => setTimeout(resolve, 1_000).unref())]);
    await webhookSender.close();
    if (mailer !== null) await Promise.race([mailer.idle(), new Promise((resolve) => setTimeout(resolve, 1_000).unref())]);
    await emailSender?.close();
    await app.close();
    await releaseStorage();
  };
  try {
    for (const warning of config.warnings) app.log.warn(warning);
    // Drills read this line (server.log) for the outage's exact window.
    if (anyFault(config.faults)) {
      app.log.warn({ faults: config.faults, expiryStoppedFrom: outage === null ? null : new Date(outage.fromMs).toISOString(), expiryStoppedUntil: outage === null ? null : new Date(outage.untilMs).toISOString() }, 'fault injection on (drills only)');
    }
    if (config.admin !== null) logAdminBootstrap(app, await ensureAdmin(ctx, config.admin.username, config.admin.password));
    if (config.demo) await ensureDemoShow(ctx);
    // The blocklist in memory before the first request; then re-read whenever another process changed it.
    await blocklist.refresh();
    stopBlocklist = blocklist.startRefreshing(config.blocklistRefreshMs, (error) => telemetry.jobFailed('blocklist-refresh', error));
    // Other processes' changes (PostgreSQL: several processes share it; SQLite has one process).
    if (config.database.kind !== 'sqlite') {
      feed = await startChangeFeed(store, seatMaps, origin, { intervalMs: config.changeFeedMs, onError: (error) => telemetry.jobFailed('change-feed', error), onEvent: (event) => {
        ctx.rooms.applyEvent(event);
        applyCodePoolEvent(ctx, event);
      } });
    }
    // Which waiting rooms are on (after the feed started, so no change is missed in between).
    await ctx.rooms.load(store);
    // Holds that fell due while the process was down are freed before the first request (by the
    // processes that run jobs; an API-only one leaves it to them).
    if (runsJobs) await sweepOverdueHolds(ctx, Number.MAX_SAFE_INTEGER);
    // The read models of the shows on sale (or about to be) loaded before the first request.
    const warmed = await warmReadModels(ctx);
    if (warmed > 0) app.log.info({ shows: warmed }, 'seat maps of the shows on sale loaded');
    // The outbox relay to its durable sinks (webhooks first), and retention (delivered rows older
    // than the retention), in bounded passes; every process runs it, cursors move by compare-and-set.
    // What is stuck, for the gauges: every process reads it (a few index-range reads per period).
    opsFigures = startOpsFigures(ctx, config.opsFiguresMs, (error) => telemetry.jobFailed('ops-figures', error));
    void opsFigures.now();
    if (options.outboxRelay !== false) relay = startOutboxRelay(ctx, [webhookSink, notificationSink, ...(gateSink === null ? [] : [gateSink]), waitlistSink(ctx), discountReturnsSink(ctx), ...(options.outboxSinks ?? [])], { intervalMs: relayIntervalMs, retentionMs: config.outboxRetentionHours * 3_600_000 });
  } catch (error) {
    await release();
    throw error;
  }

  let listening = false;
  const startJobs = (): void => {
    if (jobs !== null) return;
    queue.start(withExpiryOutage(jobHandlers(ctx, webhookDelivery, mailer), expiryStopped));
    jobs = startBackgroundJobs(ctx, sweepsWithExpiryOutage(periodicSweeps(ctx, {
      expirySweepMs: config.expirySweepMs,
      ticketSweepMs: config.ticketSweepMs,
      reconcileMs: config.reconcileMs,
      reconcileAfterMs: config.reconcileAfterMs,
      admitSweepMs: config.admitSweepMs,
      auditMs: config.auditMs,
      auditBoundMs: config.auditBoundSeconds * 1000,
    }, auditReader), expiryStopped), holder, (job, error) => telemetry.jobFailed(job, error));
    // Due webhook deliveries (retries, and any whose job was lost); each pass leases, so processes share.
    webhookTimer = setInterval(() => webhookDelivery.wake(), config.webhooks.sweepMs);
    webhookTimer.unref();
    webhookDelivery.wake();
    // Due notification emails (retries, and any whose job was lost); each pass leases, so processes share.
    if (mailer !== null) {
      emailTimer = setInterval(() => mailer.wake(), config.email.sweepMs);
      emailTimer.unref();
      mailer.wake();
    }
  };
  return {
    app,
    sandbox,
    ctx,
    config,
    holder,
    startJobs,
    webhooks: { sink: webhookSink, delivery: webhookDelivery },
    notifications: { sink: notificationSink, mailer },
    gateSink,
    blocklist,
    async listen() {
      const address = (await app.listen({ host: config.host, port: config.port })).replace('://0.0.0.0', '://127.0.0.1').replace('://[::]', '://127.0.0.1');
      listenUrl = address;
      if (baseUrl === '') baseUrl = address;
      listening = true;
      sandbox?.start();
      if (runsJobs) startJobs();
      // This process's own address: behind a load balancer (TICKETRUSH_PUBLIC_URL) it differs
      // from the public one, and the operator (and a test) must reach each process.
      return address;
    },
    async stop() {
      await jobs?.stop();
      // Callbacks go to this very listener: deliver the decided ones while it still answers.
      if (listening) await sandbox?.drain(limits.sandboxDrainMsMax);
      await release();
    },
  };
}

/** A configured Redis must answer at start (see probe.ts); the message names its address. */
async function checkRedis(url: string, database: Config['database']): Promise<void> {
  const timeoutMs = database.kind === 'postgres' ? Math.max(database.connectTimeoutMs, 1_000) : 2_000;
  await probeRedis(url, timeoutMs).catch((error: unknown) => {
    throw new DependencyUnreachableError(`cannot reach Redis at ${redisAddress(url)} (TICKETRUSH_REDIS_URL): ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  });
}

function isPgStore(store: Store): store is PgStore {
  return 'lanes' in store;
}

/**
 * Over a shared database every process must use the same secrets: given ones are checked against
 * the others' fingerprints, generated ones are the first process's. A disagreement stops the
 * start as a configuration error naming the variable.
 */
async function sharedSecrets(store: Store, config: Config): Promise<Secrets> {
  const names = Object.keys(secretVariables) as SecretName[];
  try {
    return await settleSecrets(store, names.map((name) => ({
      name, variable: secretVariables[name], given: config.secretsGiven.includes(name), value: config.secrets[name],
    })), secretFingerprint);
  } catch (error) {
    if (error instanceof SecretDisagreement) throw new ConfigError(error.message);
    throw error;
  }
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
