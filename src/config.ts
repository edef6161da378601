import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { isIP } from 'node:net';
import { isCurrencyCode, limits, waitlistLimits } from './domain/index.js';
import { anyFault, noFaults, type Faults } from './app/faults.js';
import { buyingLimitNames, type BuyingLimitName } from './ports/rate-limiter.js';

/**
 * Configuration: read once from the environment, checked, frozen. A bad value stops the start with
 * a message that names the variable. Secrets not given are generated once into the data
 * directory (fine for one embedded node; set them explicitly when several nodes share a sale).
 */
export interface Config {
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  /** Where bookings are stored: SQLite in the data dir (default), or PostgreSQL when TICKETRUSH_DATABASE_URL is set. */
  readonly database: DatabaseConfig;
  /**
   * The shared Redis (TICKETRUSH_REDIS_URL=redis://host:port/db): the inventory gate in front of the
   * database, the job queue, shared rate limits. Null: everything stays in this process.
   */
  readonly redis: RedisConfig | null;
  readonly demo: boolean;
  readonly logLevel: string;
  readonly publicUrl: string;
  readonly admin: { readonly username: string; readonly password: string } | null;
  readonly holdSecondsDefault: number;
  readonly holdSecondsMax: number;
  readonly holdExtensionsMax: number;
  readonly holdLifeSecondsMax: number;
  readonly maxSeatsPerUser: number;
  /** How long a waitlist offer's hold lasts, in seconds (the buyer's claim window). */
  readonly waitlistClaimSeconds: number;
  /**
   * How long an idempotency key stays IN_FLIGHT before a retry may take it over, in seconds
   * (TICKETRUSH_IDEMPOTENCY_IN_FLIGHT_SECONDS): longer than any live request can take, which the
   * provider call's bound (15 s) dominates; shorter frees a buyer sooner after a crash.
   */
  readonly idempotencyInFlightSeconds: number;
  /** ISO 4217 code of a new show's prices when its organizer chooses none (TICKETRUSH_CURRENCY). */
  readonly currency: string;
  /** Font of printed tickets (TICKETRUSH_TICKET_FONT); null: the PDF standard fonts (Latin-1 only). */
  readonly ticketFont: { readonly file: string; readonly name: string | null } | null;
  readonly bodyLimitBytes: number;
  /** A CSV code import's own size limit (TICKETRUSH_IMPORT_BYTES_MAX). */
  readonly importBytesMax: number;
  readonly requestTimeoutMs: number;
  readonly tokenTtlSeconds: number;
  /** scrypt's cost N for new password hashes (a power of two; TICKETRUSH_SCRYPT_COST). */
  readonly scryptCost: number;
  readonly paymentProvider: 'sandbox' | 'none' | 'stripe';
  /** TICKETRUSH_PAYMENT_PROVIDER=stripe: its API key, webhook signing secret and (stripe-mock, tests) API address. */
  readonly stripe: StripeConfig | null;
  readonly sandboxDuplicateRate: number;
  readonly sandboxDelayMsMax: number;
  /** Fault injection (drills, tests): every call to the sandbox provider answers only after this many ms. 0: at once. */
  readonly sandboxCallDelayMs: number;
  readonly expirySweepMs: number;
  readonly ticketSweepMs: number;
  readonly reconcileMs: number;
  readonly reconcileAfterMs: number;
  readonly liveConnectionsMax: number;
  /** When set, GET /metrics requires `Authorization: Bearer <token>` (TICKETRUSH_METRICS_TOKEN). */
  readonly metricsToken: string | null;
  /** How often each process reads what is stuck for the gauges (TICKETRUSH_OPS_FIGURES_MS). */
  readonly opsFiguresMs: number;
  /** How often the auditor job runs, one process at a time (TICKETRUSH_AUDIT_MS). */
  readonly auditMs: number;
  /** A PAID order not ticketed, or an ACTIVE hold not released, this long is a violation (TICKETRUSH_AUDIT_BOUND_SECONDS). */
  readonly auditBoundSeconds: number;
  /** Seats the seat-map read model keeps in memory, all shows together (least recently used dropped). */
  readonly readModelSeatsMax: number;
  /** Outbox rows every relay cursor has passed are deleted once they are this old (TICKETRUSH_OUTBOX_RETENTION_HOURS). */
  readonly outboxRetentionHours: number;
  /** How often each process reads other processes' changes from the outbox (PostgreSQL; TICKETRUSH_CHANGE_FEED_MS). */
  readonly changeFeedMs: number;
  /** Period of the waiting rooms' admitter pass (ms). */
  readonly admitSweepMs: number;
  /** Seat-map responses being sent at once; more are refused with 503 BUSY (their buffers are shared, so this bounds sockets, not copies). */
  readonly seatMapStreamsMax: number;
  /** Load shedding: buying requests in flight past which holds (then orders and payments) answer 503 BUSY. */
  readonly loadShedding: { readonly inflightMax: number; readonly moneyInflightMax: number };
  /** Fault injection for the drills (the TICKETRUSH_FAULT_PROVIDER_ERROR_RATE family of switches): off by default, refused in production mode. */
  readonly faults: Faults;
  /** Webhooks out: one attempt's bound, attempts at once, and how often due deliveries are looked for. */
  readonly webhooks: {
    readonly timeoutMs: number; readonly concurrency: number; readonly sweepMs: number;
    /** TICKETRUSH_WEBHOOK_ALLOW_HOSTS: the inward targets (loopback, private, ...) the operator allows; none by default. */
    readonly allowHosts: readonly string[];
  };
  /**
   * Notification emails: sent through SMTP only when TICKETRUSH_SMTP_URL is set (smtp:// or
   * smtps://, credentials in the URL); TICKETRUSH_SMTP_FROM is the sender; TICKETRUSH_SMTP_TIMEOUT_MS
   * bounds one attempt; TICKETRUSH_EMAIL_RETRY_BASE_MS is the first retry's delay (doubled per
   * attempt, up to an hour); TICKETRUSH_EMAIL_SWEEP_MS how often due emails are looked for.
   */
  readonly email: {
    readonly smtpUrl: string | null;
    readonly from: string;
    readonly timeoutMs: number;
    readonly retryBaseMs: number;
    readonly sweepMs: number;
  };
  /**
   * SQLite: final (given, else generated once into the data directory). PostgreSQL: the given ones
   * and freshly generated candidates for the others, which the start settles with the database
   * (src/app/shared-secrets.ts), so every process over it uses the same; Node.config has the result.
   */
  readonly secrets: Secrets;
  /** Which secrets the environment gave (the others were generated). */
  readonly secretsGiven: readonly SecretName[];
  /** Account throttling and the buying limits, or null when TICKETRUSH_RATE_LIMITS=off. */
  readonly rateLimits: RateLimits | null;
  /**
   * Proxies whose X-Forwarded-For is believed (TICKETRUSH_TRUST_PROXY: addresses or CIDRs, comma
   * separated). Empty by default: the client's address is the socket's, so a forged header dodges nothing.
   */
  readonly trustProxy: readonly string[];
  /** How often each process re-reads the blocklist if it changed (TICKETRUSH_BLOCKLIST_REFRESH_MS). */
  readonly blocklistRefreshMs: number;
  /** Things that do not stop the start but the operator should hear of; logged at start. */
  readonly warnings: readonly string[];
}

export interface Secrets { readonly jwt: string; readonly payment: string; readonly ticketSigningKeyPem: string; readonly admission: string }
export type SecretName = keyof Secrets;
/** The variable that gives each secret, for messages. */
export const secretVariables: Readonly<Record<SecretName, string>> = {
  jwt: 'TICKETRUSH_JWT_SECRET',
  payment: 'TICKETRUSH_PAYMENT_SECRET',
  ticketSigningKeyPem: 'TICKETRUSH_TICKET_SIGNING_KEY',
  admission: 'TICKETRUSH_ADMISSION_SECRET',
};

export type DatabaseConfig =
  | {
    readonly kind: 'sqlite';
    readonly filename: string;
    /** The store runs on a thread of its own (TICKETRUSH_SQLITE_THREAD=on), or on the event loop's. */
    readonly ownThread: boolean;
  }
  | {
    readonly kind: 'postgres';
    readonly url: string;
    readonly schema: string;
    /** Connections of the rush lane: claims, catalog and seat-map reads, accounts. */
    readonly poolMax: number;
    /** Connections of the checkout lane, a pool of its own: orders, payments, ticketing, expiry. */
    readonly checkoutPoolMax: number;
    readonly connectTimeoutMs: number;
    readonly idleTimeoutMs: number;
    readonly lockTimeoutMs: number;
    readonly statementTimeoutMs: number;
    readonly retriesMax: number;
    /**
     * Open every connection of both pools before listening and keep them (TICKETRUSH_DATABASE_WARM,
     * on by default: the first onsale after a deploy must not open them). Off: connections open on
     * demand and close when idle (many small processes sharing one PostgreSQL, e.g. a test run).
     */
    readonly warm: boolean;
  };

/** At most `events` per key in a fixed window of `windowSeconds`. */
export interface RateLimit {
  readonly events: number;
  readonly windowSeconds: number;
}

export interface RateLimits {
  readonly loginFailuresPerUserIp: RateLimit;
  /** Past this many failures for one username (any address), each attempt at it is slowed by loginSlowdownMs: a delay, never a lock. */
  readonly loginFailuresPerUser: RateLimit;
  readonly loginFailuresPerIp: RateLimit;
  readonly registrationsPerIp: RateLimit;
  readonly loginSlowdownMs: number;
  /** Each buying route's requests per minute, per user and per address. */
  readonly buying: Readonly<Record<BuyingLimitName, { readonly perUserPerMinute: number; readonly perIpPerMinute: number }>>;
}

/**
 * Defaults of the buying limits (requests per minute). Per user: a person clicks a few times a
 * second at most. Per address: generous, since a campus or a carrier's NAT puts many buyers
 * behind one address; the per-user limit is the one that bites a script.
 */
const buyingDefaults: Readonly<Record<BuyingLimitName, { readonly perUser: number; readonly perIp: number }>> = {
  hold: { perUser: 60, perIp: 1200 },
  order: { perUser: 60, perIp: 1200 },
  'campaign-order': { perUser: 60, perIp: 1200 },
  grab: { perUser: 60, perIp: 1200 },
  cut: { perUser: 30, perIp: 600 },
  'queue-join': { perUser: 20, perIp: 600 },
};

/** Each buying limit's two variables, spelled out so that a search (and the docs test) finds them. */
const buyingVariables: Readonly<Record<BuyingLimitName, { readonly USER: string; readonly IP: string }>> = {
  hold: { USER: 'TICKETRUSH_RATE_LIMIT_HOLD_PER_USER_PER_MINUTE', IP: 'TICKETRUSH_RATE_LIMIT_HOLD_PER_IP_PER_MINUTE' },
  order: { USER: 'TICKETRUSH_RATE_LIMIT_ORDER_PER_USER_PER_MINUTE', IP: 'TICKETRUSH_RATE_LIMIT_ORDER_PER_IP_PER_MINUTE' },
  'campaign-order': { USER: 'TICKETRUSH_RATE_LIMIT_CAMPAIGN_ORDER_PER_USER_PER_MINUTE', IP: 'TICKETRUSH_RATE_LIMIT_CAMPAIGN_ORDER_PER_IP_PER_MINUTE' },
  grab: { USER: 'TICKETRUSH_RATE_LIMIT_GRAB_PER_USER_PER_MINUTE', IP: 'TICKETRUSH_RATE_LIMIT_GRAB_PER_IP_PER_MINUTE' },
  cut: { USER: 'TICKETRUSH_RATE_LIMIT_CUT_PER_USER_PER_MINUTE', IP: 'TICKETRUSH_RATE_LIMIT_CUT_PER_IP_PER_MINUTE' },
  'queue-join': { USER: 'TICKETRUSH_RATE_LIMIT_QUEUE_JOIN_PER_USER_PER_MINUTE', IP: 'TICKETRUSH_RATE_LIMIT_QUEUE_JOIN_PER_IP_PER_MINUTE' },
};

/** The variable of a buying limit, per user or per address (requests per minute). */
export const buyingLimitVariable = (name: BuyingLimitName, per: 'USER' | 'IP'): string => buyingVariables[name][per];

type Env = Readonly<Record<string, string | undefined>>;

export class ConfigError extends Error {}

/** A configured dependency (PostgreSQL, Redis) that does not answer at start: the message names it and its address. */
export class DependencyUnreachableError extends Error {}

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) throw new ConfigError(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
  return value;
}

/** An integer setting that must be a power of two within [min, max] (scrypt's cost). */
function powerOfTwo(env: Env, name: string, fallback: number, min: number, max: number): number {
  const value = int(env, name, fallback, min, max);
  if ((value & (value - 1)) !== 0) throw new ConfigError(`${name} must be a power of two from ${min} to ${max} (got "${env[name] ?? ''}")`);
  return value;
}

function ratio(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0 || value > 1) throw new ConfigError(`${name} must be a number from 0 to 1 (got "${raw}")`);
  return value;
}

function oneOf<T extends string>(env: Env, name: string, fallback: T, allowed: readonly T[]): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!(allowed as readonly string[]).includes(raw)) throw new ConfigError(`${name} must be one of ${allowed.join(', ')} (got "${raw}")`);
  return raw as T;
}

/** An ISO 4217 code this runtime can format (the same check as a show's own currency). */
function currencyCode(env: Env, name: string, fallback: string): string {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!isCurrencyCode(raw)) throw new ConfigError(`${name} must be an ISO 4217 currency code such as CNY, EUR or USD (got "${raw}")`);
  return raw;
}

function flag(env: Env, name: string, fallback: boolean): boolean {
  return oneOf(env, name, fallback ? '1' : '0', ['0', '1', 'true', 'false']) === '1' || env[name] === 'true';
}

export function loadConfig(env: Env = process.env): Config {
  const dataDir = resolve(env.TICKETRUSH_DATA_DIR ?? './data');
  const host = env.HOST ?? '127.0.0.1';
  const port = int(env, 'PORT', 3000, 0, 65535);
  const holdSecondsMax = int(env, 'TICKETRUSH_HOLD_SECONDS_MAX', 900, limits.holdTtlSecondsMin, limits.holdTtlSecondsMax);
  const adminUser = env.TICKETRUSH_ADMIN_USER;
  const adminPassword = env.TICKETRUSH_ADMIN_PASSWORD;
  if (adminPassword !== undefined && adminPassword !== '' && adminPassword.length < limits.passwordLengthMin) {
    throw new ConfigError(`TICKETRUSH_ADMIN_PASSWORD must be at least ${limits.passwordLengthMin} characters`);
  }
  const warnings: string[] = [];
  if (Boolean(adminUser) !== Boolean(adminPassword)) {
    warnings.push(`only ${adminUser ? 'TICKETRUSH_ADMIN_USER' : 'TICKETRUSH_ADMIN_PASSWORD'} is set: no admin account is ensured until both TICKETRUSH_ADMIN_USER and TICKETRUSH_ADMIN_PASSWORD are`);
  }
  const rateLimits = loadRateLimits(env);
  mkdirSync(dataDir, { recursive: true });
  const database = loadDatabase(env, dataDir);
  return Object.freeze({
    host,
    port,
    dataDir,
    database,
    redis: loadRedis(env),
    demo: flag(env, 'TICKETRUSH_DEMO', true),
    logLevel: oneOf(env, 'TICKETRUSH_LOG_LEVEL', 'info', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    publicUrl: env.TICKETRUSH_PUBLIC_URL ?? '',
    admin: adminUser && adminPassword ? Object.freeze({ username: adminUser, password: adminPassword }) : null,
    holdSecondsDefault: Math.min(int(env, 'TICKETRUSH_HOLD_SECONDS_DEFAULT', limits.holdTtlSecondsDefault, limits.holdTtlSecondsMin, limits.holdTtlSecondsMax), holdSecondsMax),
    holdSecondsMax,
    holdExtensionsMax: int(env, 'TICKETRUSH_HOLD_EXTENSIONS_MAX', 1, 0, limits.holdExtensionsMax),
    // Never shorter than one full hold, so the cap only ever limits extensions.
    holdLifeSecondsMax: Math.max(int(env, 'TICKETRUSH_HOLD_LIFE_SECONDS_MAX', 1200, limits.holdTtlSecondsMin, limits.holdLifeSecondsMax), holdSecondsMax),
    // Per buyer and show, for shows whose organiser set no maxSeatsPerUser (never above a show's capacity).
    maxSeatsPerUser: int(env, 'TICKETRUSH_MAX_SEATS_PER_USER', limits.seatsPerUserDefault, 1, limits.seatsPerShowMax),
    idempotencyInFlightSeconds: int(env, 'TICKETRUSH_IDEMPOTENCY_IN_FLIGHT_SECONDS', limits.idempotencyInFlightMsMax / 1000, Math.ceil(limits.providerCallMsMax / 1000) + 5, 3_600),
    waitlistClaimSeconds: int(env, 'TICKETRUSH_WAITLIST_CLAIM_SECONDS', waitlistLimits.claimSecondsDefault, waitlistLimits.claimSecondsMin, waitlistLimits.claimSecondsMax),
    currency: currencyCode(env, 'TICKETRUSH_CURRENCY', 'CNY'),
    ticketFont: ticketFont(env),
    bodyLimitBytes: int(env, 'TICKETRUSH_BODY_LIMIT_BYTES', 64 * 1024, 1024, 1024 * 1024),
    importBytesMax: int(env, 'TICKETRUSH_IMPORT_BYTES_MAX', 50 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    requestTimeoutMs: int(env, 'TICKETRUSH_REQUEST_TIMEOUT_MS', 30_000, 1_000, 600_000),
    tokenTtlSeconds: int(env, 'TICKETRUSH_TOKEN_TTL_SECONDS', 12 * 3600, 60, 30 * 86400),
    scryptCost: powerOfTwo(env, 'TICKETRUSH_SCRYPT_COST', 16_384, 1_024, 1_048_576),
    paymentProvider: oneOf(env, 'TICKETRUSH_PAYMENT_PROVIDER', 'sandbox', ['sandbox', 'none', 'stripe'] as const),
    stripe: loadStripe(env),
    sandboxDuplicateRate: ratio(env, 'TICKETRUSH_SANDBOX_DUPLICATE_RATE', 0.2),
    sandboxDelayMsMax: int(env, 'TICKETRUSH_SANDBOX_DELAY_MS_MAX', 200, 0, 60_000),
    sandboxCallDelayMs: int(env, 'TICKETRUSH_SANDBOX_CALL_DELAY_MS', 0, 0, 10_000),
    expirySweepMs: int(env, 'TICKETRUSH_EXPIRY_SWEEP_MS', 500, 50, 60_000),
    ticketSweepMs: int(env, 'TICKETRUSH_TICKET_SWEEP_MS', 2_000, 100, 600_000),
    reconcileMs: int(env, 'TICKETRUSH_RECONCILE_MS', 15_000, 100, 3_600_000),
    reconcileAfterMs: int(env, 'TICKETRUSH_RECONCILE_AFTER_MS', 30_000, 0, 86_400_000),
    liveConnectionsMax: int(env, 'TICKETRUSH_LIVE_CONNECTIONS_MAX', 1000, 1, 100_000),
    metricsToken: env.TICKETRUSH_METRICS_TOKEN || null,
    opsFiguresMs: int(env, 'TICKETRUSH_OPS_FIGURES_MS', 15_000, 100, 600_000),
    auditMs: int(env, 'TICKETRUSH_AUDIT_MS', 60_000, 100, 86_400_000),
    auditBoundSeconds: int(env, 'TICKETRUSH_AUDIT_BOUND_SECONDS', 60, 1, 86_400),
    readModelSeatsMax: int(env, 'TICKETRUSH_READ_MODEL_SEATS_MAX', 1_000_000, limits.seatsPerShowMax, 20_000_000),
    seatMapStreamsMax: int(env, 'TICKETRUSH_SEAT_MAP_STREAMS_MAX', 1000, 1, 100_000),
    loadShedding: loadShedding(env),
    faults: loadFaults(env),
    outboxRetentionHours: int(env, 'TICKETRUSH_OUTBOX_RETENTION_HOURS', 72, 1, 24 * 365),
    changeFeedMs: int(env, 'TICKETRUSH_CHANGE_FEED_MS', 50, 10, 10_000),
    admitSweepMs: int(env, 'TICKETRUSH_ADMIT_SWEEP_MS', 1_000, 100, 10_000),
    webhooks: Object.freeze({
      timeoutMs: int(env, 'TICKETRUSH_WEBHOOK_TIMEOUT_MS', 10_000, 100, 120_000),
      concurrency: int(env, 'TICKETRUSH_WEBHOOK_CONCURRENCY', 16, 1, 1000),
      sweepMs: int(env, 'TICKETRUSH_WEBHOOK_SWEEP_MS', 5_000, 50, 600_000),
      allowHosts: Object.freeze((env.TICKETRUSH_WEBHOOK_ALLOW_HOSTS ?? '').split(',').map((h) => h.trim()).filter((h) => h !== '')),
    }),
    email: Object.freeze({
      smtpUrl: smtpUrl(env),
      from: env.TICKETRUSH_SMTP_FROM !== undefined && env.TICKETRUSH_SMTP_FROM !== '' ? env.TICKETRUSH_SMTP_FROM : 'TicketRush <no-reply@ticketrush.invalid>',
      timeoutMs: int(env, 'TICKETRUSH_SMTP_TIMEOUT_MS', 15_000, 100, 120_000),
      retryBaseMs: int(env, 'TICKETRUSH_EMAIL_RETRY_BASE_MS', 10_000, 10, 3_600_000),
      sweepMs: int(env, 'TICKETRUSH_EMAIL_SWEEP_MS', 5_000, 50, 600_000),
    }),
    secrets: Object.freeze(loadSecrets(env, dataDir, database.kind === 'sqlite')),
    secretsGiven: Object.freeze((Object.keys(secretVariables) as SecretName[]).filter((name) => Boolean(env[secretVariables[name]]))),
    rateLimits,
    trustProxy: trustProxy(env),
    blocklistRefreshMs: int(env, 'TICKETRUSH_BLOCKLIST_REFRESH_MS', 1_000, 50, 600_000),
    warnings: Object.freeze(warnings),
  });
}

/** TICKETRUSH_SMTP_URL: unset or empty for no email; otherwise an smtp:// or smtps:// URL. */
function smtpUrl(env: Env): string | null {
  const raw = env.TICKETRUSH_SMTP_URL;
  if (raw === undefined || raw === '') return null;
  if (!/^smtps?:\/\/[^/\s]+/.test(raw)) throw new ConfigError('TICKETRUSH_SMTP_URL must be an smtp:// or smtps:// URL, e.g. smtp://user:pass@mail.example:587');
  return raw;
}

/** Schema names go unquoted into DDL and a connection option: plain lower-case identifiers only. */
const schemaName = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * TICKETRUSH_DATABASE_URL=postgres://... selects PostgreSQL; otherwise SQLite in the data dir. The
 * pool and its waits are bounded so a rush answers 503 BUSY fast instead of queueing for ever.
 */
function loadDatabase(env: Env, dataDir: string): DatabaseConfig {
  const url = env.TICKETRUSH_DATABASE_URL;
  if (url === undefined || url === '') {
    return Object.freeze({ kind: 'sqlite', filename: join(dataDir, 'ticketrush.db'), ownThread: oneOf(env, 'TICKETRUSH_SQLITE_THREAD', 'on', ['on', 'off']) === 'on' });
  }
  if (!/^postgres(ql)?:\/\//.test(url)) throw new ConfigError('TICKETRUSH_DATABASE_URL must start with postgres:// or postgresql://');
  const schema = env.TICKETRUSH_DATABASE_SCHEMA || 'public';
  if (!schemaName.test(schema)) throw new ConfigError(`TICKETRUSH_DATABASE_SCHEMA must be a lower-case identifier ([a-z_][a-z0-9_]*, at most 63 characters) (got "${schema}")`);
  return Object.freeze({
    kind: 'postgres',
    url,
    schema,
    poolMax: int(env, 'TICKETRUSH_DATABASE_POOL_MAX', 10, 1, 1000),
    checkoutPoolMax: int(env, 'TICKETRUSH_DATABASE_CHECKOUT_POOL_MAX', 5, 1, 1000),
    connectTimeoutMs: int(env, 'TICKETRUSH_DATABASE_CONNECT_TIMEOUT_MS', 2_000, 100, 60_000),
    idleTimeoutMs: int(env, 'TICKETRUSH_DATABASE_IDLE_TIMEOUT_MS', 10_000, 1_000, 3_600_000),
    lockTimeoutMs: int(env, 'TICKETRUSH_DATABASE_LOCK_TIMEOUT_MS', 500, 10, 60_000),
    statementTimeoutMs: int(env, 'TICKETRUSH_DATABASE_STATEMENT_TIMEOUT_MS', 5_000, 100, 600_000),
    retriesMax: int(env, 'TICKETRUSH_DATABASE_RETRIES_MAX', 3, 0, 20),
    warm: oneOf(env, 'TICKETRUSH_DATABASE_WARM', 'on', ['on', 'off']) === 'on',
  });
}

export interface StripeConfig {
  readonly secretKey: string;
  readonly webhookSecret: string;
  /** STRIPE_API_URL: another API address (stripe-mock, the tests' local server); null: Stripe's own. */
  readonly apiUrl: string | null;
}

/** Stripe needs both its secrets; a half-configured Stripe stops the start rather than taking orders it cannot confirm. */
function loadStripe(env: Env): StripeConfig | null {
  if (env.TICKETRUSH_PAYMENT_PROVIDER !== 'stripe') return null;
  const secretKey = env.STRIPE_SECRET_KEY ?? '';
  const webhookSecret = env.STRIPE_WEBHOOK_SECRET ?? '';
  if (secretKey === '') throw new ConfigError('TICKETRUSH_PAYMENT_PROVIDER=stripe needs STRIPE_SECRET_KEY (sk_live_... or sk_test_...)');
  if (webhookSecret === '') throw new ConfigError('TICKETRUSH_PAYMENT_PROVIDER=stripe needs STRIPE_WEBHOOK_SECRET (whsec_..., the webhook endpoint\'s signing secret)');
  const apiUrl = env.STRIPE_API_URL || null;
  if (apiUrl !== null && !/^https?:\/\/[^/]+\/?$/.test(apiUrl)) throw new ConfigError(`STRIPE_API_URL must be http(s)://host[:port] (got "${apiUrl}")`);
  return Object.freeze({ secretKey, webhookSecret, apiUrl });
}

export interface RedisConfig {
  readonly url: string;
  /** Every key this deployment writes starts with it, so several deployments (or tests) share one Redis. */
  readonly prefix: string;
}

const redisPrefix = /^[A-Za-z0-9_:.-]{1,64}$/;

function loadRedis(env: Env): RedisConfig | null {
  const url = env.TICKETRUSH_REDIS_URL;
  if (url === undefined || url === '') return null;
  if (!/^rediss?:\/\//.test(url)) throw new ConfigError('TICKETRUSH_REDIS_URL must start with redis:// or rediss://');
  const prefix = env.TICKETRUSH_REDIS_PREFIX || 'ticketrush:';
  if (!redisPrefix.test(prefix)) throw new ConfigError(`TICKETRUSH_REDIS_PREFIX must be 1-64 characters of letters, digits and _ : . - (got "${prefix}")`);
  return Object.freeze({ url, prefix });
}

/**
 * Requests, per process. Orders, payments and callbacks get the higher bound (never below the
 * first): they turn holds already taken into money, so they are shed last.
 */
function loadShedding(env: Env): Config['loadShedding'] {
  const inflightMax = int(env, 'TICKETRUSH_INFLIGHT_MAX', 1024, 1, 100_000);
  const moneyInflightMax = int(env, 'TICKETRUSH_INFLIGHT_MONEY_MAX', 2 * inflightMax, 1, 200_000);
  if (moneyInflightMax < inflightMax) throw new ConfigError(`TICKETRUSH_INFLIGHT_MONEY_MAX (${moneyInflightMax}) must not be below TICKETRUSH_INFLIGHT_MAX (${inflightMax}): orders and payments are shed last`);
  return Object.freeze({ inflightMax, moneyInflightMax });
}

/**
 * The drills' fault switches. A server in production mode (NODE_ENV=production) refuses to start
 * with any of them, so a forgotten switch never reaches a real sale.
 */
function loadFaults(env: Env): Faults {
  const stopSeconds = int(env, 'TICKETRUSH_FAULT_EXPIRY_STOP_SECONDS', 0, 0, 3_600);
  const faults: Faults = Object.freeze({
    providerErrorRate: ratio(env, 'TICKETRUSH_FAULT_PROVIDER_ERROR_RATE', 0),
    providerDelayMs: int(env, 'TICKETRUSH_FAULT_PROVIDER_DELAY_MS', 0, 0, 10_000),
    expiryOutage: stopSeconds === 0 ? null : Object.freeze({
      afterMs: int(env, 'TICKETRUSH_FAULT_EXPIRY_STOP_AFTER_SECONDS', 0, 0, 3_600) * 1000,
      forMs: stopSeconds * 1000,
    }),
  });
  if (!anyFault(faults)) return noFaults;
  if (env.NODE_ENV === 'production') throw new ConfigError('the fault switches (TICKETRUSH_FAULT_PROVIDER_ERROR_RATE, TICKETRUSH_FAULT_PROVIDER_DELAY_MS, TICKETRUSH_FAULT_EXPIRY_STOP_SECONDS) are for drills and refused in production mode (NODE_ENV=production)');
  return faults;
}

const daySeconds = 86_400;

function rateLimit(env: Env, name: string, events: number, windowSeconds: number): RateLimit {
  return Object.freeze({ events: int(env, name, events, 1, 1_000_000), windowSeconds: int(env, `${name}_SECONDS`, windowSeconds, 1, daySeconds) });
}

/**
 * Failed logins are what is counted, so a crowd of real buyers signing in at once is never slowed.
 * Registration is generous: a load test may register a few hundred buyers from one address.
 */
function loadRateLimits(env: Env): RateLimits | null {
  if (oneOf(env, 'TICKETRUSH_RATE_LIMITS', 'on', ['on', 'off']) === 'off') return null;
  return Object.freeze({
    loginFailuresPerUserIp: rateLimit(env, 'TICKETRUSH_LOGIN_FAILURES_PER_USER_IP', 10, 900),
    loginFailuresPerUser: rateLimit(env, 'TICKETRUSH_LOGIN_FAILURES_PER_USER', 50, 3600),
    loginFailuresPerIp: rateLimit(env, 'TICKETRUSH_LOGIN_FAILURES_PER_IP', 100, 3600),
    registrationsPerIp: rateLimit(env, 'TICKETRUSH_REGISTRATIONS_PER_IP', 1000, 600),
    loginSlowdownMs: int(env, 'TICKETRUSH_LOGIN_SLOWDOWN_MS', 1_000, 0, 30_000),
    buying: Object.freeze(Object.fromEntries(buyingLimitNames.map((name) => [name, Object.freeze({
      perUserPerMinute: int(env, buyingLimitVariable(name, 'USER'), buyingDefaults[name].perUser, 1, 1_000_000),
      perIpPerMinute: int(env, buyingLimitVariable(name, 'IP'), buyingDefaults[name].perIp, 1, 1_000_000),
    })])) as RateLimits['buying']),
  });
}

/** An address (IPv4 or IPv6) or a CIDR block of one. */
function isAddressOrCidr(entry: string): boolean {
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  const bits = Number(prefix);
  return /^\d{1,3}$/.test(prefix) && bits >= 0 && bits <= (family === 4 ? 32 : 128);
}

/** TICKETRUSH_TRUST_PROXY: comma-separated addresses or CIDRs of the proxies in front; none by default. */
function trustProxy(env: Env): readonly string[] {
  const raw = env.TICKETRUSH_TRUST_PROXY ?? '';
  const entries = raw.split(',').map((e) => e.trim()).filter((e) => e !== '');
  const bad = entries.filter((e) => !isAddressOrCidr(e));
  if (bad.length > 0) throw new ConfigError(`TICKETRUSH_TRUST_PROXY must be a comma-separated list of IP addresses or CIDRs such as 10.0.0.0/8 (got "${bad.join('", "')}")`);
  return Object.freeze(entries);
}

/**
 * Given secrets win. The others are generated: on SQLite once into the data directory (one process
 * owns it); with a database URL only in memory, as candidates the start settles with the database
 * (every process must use the same, and data directories are per process).
 */
function loadSecrets(env: Env, dataDir: string, keepInDataDir: boolean): Secrets {
  const file = join(dataDir, 'secrets.json');
  const stored = keepInDataDir && existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Partial<Secrets>) : {};
  const generated: Secrets = {
    jwt: stored.jwt ?? randomBytes(32).toString('base64url'),
    payment: stored.payment ?? randomBytes(32).toString('base64url'),
    ticketSigningKeyPem: stored.ticketSigningKeyPem ?? generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    admission: stored.admission ?? randomBytes(32).toString('base64url'),
  };
  if (keepInDataDir && (stored.jwt === undefined || stored.payment === undefined || stored.ticketSigningKeyPem === undefined || stored.admission === undefined)) {
    writeFileSync(file, JSON.stringify(generated, null, 2), { mode: 0o600 });
  }
  const secrets = {
    jwt: env.TICKETRUSH_JWT_SECRET || generated.jwt,
    payment: env.TICKETRUSH_PAYMENT_SECRET || generated.payment,
    ticketSigningKeyPem: env.TICKETRUSH_TICKET_SIGNING_KEY || generated.ticketSigningKeyPem,
    admission: env.TICKETRUSH_ADMISSION_SECRET || generated.admission,
  };
  if (secrets.jwt.length < 32) throw new ConfigError('TICKETRUSH_JWT_SECRET must be at least 32 characters');
  if (secrets.payment.length < 16) throw new ConfigError('TICKETRUSH_PAYMENT_SECRET must be at least 16 characters');
  if (secrets.admission.length < 32) throw new ConfigError('TICKETRUSH_ADMISSION_SECRET must be at least 32 characters');
  return secrets;
}

/** Debian's Noto Sans CJK (package fonts-noto-cjk), Simplified Chinese face: covers Latin too. */
const defaultTicketFont = '/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc#NotoSansCJKsc-Regular';

/**
 * TICKETRUSH_TICKET_FONT: `path` of a TrueType/OpenType font, or `path#PostScriptName` for a face
 * of a collection (.ttc); `none` for the PDF standard fonts. Unset: Debian's Noto Sans CJK when it
 * is installed, else none. A path given that does not exist stops the start.
 */
function ticketFont(env: Env): Config['ticketFont'] {
  const raw = env.TICKETRUSH_TICKET_FONT;
  if (raw === 'none') return null;
  const value = raw === undefined || raw === '' ? defaultTicketFont : raw;
  const hash = value.lastIndexOf('#');
  const file = hash < 0 ? value : value.slice(0, hash);
  const name = hash < 0 ? null : value.slice(hash + 1);
  if (existsSync(file)) return { file, name: name === '' ? null : name };
  if (raw === undefined || raw === '') return null;
  throw new ConfigError(`TICKETRUSH_TICKET_FONT: no font file at ${file} (give a .ttf, .otf or .ttc path, path#PostScriptName for a collection, or none)`);
}
