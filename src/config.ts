import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { limits } from './domain/index.js';

/**
 * Configuration: read once from the environment, checked, frozen. A bad value stops the start with
 * a message that names the variable. Secrets not given are generated once into the data
 * directory (fine for one embedded node; set them explicitly when several nodes share a sale).
 */
export interface Config {
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  readonly demo: boolean;
  readonly logLevel: string;
  readonly publicUrl: string;
  readonly admin: { readonly username: string; readonly password: string } | null;
  readonly holdSecondsDefault: number;
  readonly holdSecondsMax: number;
  readonly holdExtensionsMax: number;
  readonly holdLifeSecondsMax: number;
  readonly currency: string;
  readonly bodyLimitBytes: number;
  readonly tokenTtlSeconds: number;
  readonly paymentProvider: 'sandbox' | 'none';
  readonly sandboxDuplicateRate: number;
  readonly sandboxDelayMsMax: number;
  readonly expirySweepMs: number;
  readonly ticketSweepMs: number;
  readonly reconcileMs: number;
  readonly reconcileAfterMs: number;
  readonly secrets: { readonly jwt: string; readonly payment: string; readonly ticketSigningKeyPem: string };
}

type Env = Readonly<Record<string, string | undefined>>;

export class ConfigError extends Error {}

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) throw new ConfigError(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
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
  mkdirSync(dataDir, { recursive: true });
  return Object.freeze({
    host,
    port,
    dataDir,
    demo: flag(env, 'TICKETRUSH_DEMO', true),
    logLevel: oneOf(env, 'TICKETRUSH_LOG_LEVEL', 'info', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    publicUrl: env.TICKETRUSH_PUBLIC_URL ?? '',
    admin: adminUser && adminPassword ? Object.freeze({ username: adminUser, password: adminPassword }) : null,
    holdSecondsDefault: Math.min(int(env, 'TICKETRUSH_HOLD_SECONDS_DEFAULT', limits.holdTtlSecondsDefault, limits.holdTtlSecondsMin, limits.holdTtlSecondsMax), holdSecondsMax),
    holdSecondsMax,
    holdExtensionsMax: int(env, 'TICKETRUSH_HOLD_EXTENSIONS_MAX', 1, 0, limits.holdExtensionsMax),
    // Never shorter than one full hold, so the cap only ever limits extensions.
    holdLifeSecondsMax: Math.max(int(env, 'TICKETRUSH_HOLD_LIFE_SECONDS_MAX', 1200, limits.holdTtlSecondsMin, limits.holdLifeSecondsMax), holdSecondsMax),
    currency: oneOf(env, 'TICKETRUSH_CURRENCY', 'CNY', ['CNY', 'USD', 'EUR', 'GBP', 'JPY', 'HKD']),
    bodyLimitBytes: int(env, 'TICKETRUSH_BODY_LIMIT_BYTES', 64 * 1024, 1024, 1024 * 1024),
    tokenTtlSeconds: int(env, 'TICKETRUSH_TOKEN_TTL_SECONDS', 12 * 3600, 60, 30 * 86400),
    paymentProvider: oneOf(env, 'TICKETRUSH_PAYMENT_PROVIDER', 'sandbox', ['sandbox', 'none'] as const),
    sandboxDuplicateRate: ratio(env, 'TICKETRUSH_SANDBOX_DUPLICATE_RATE', 0.2),
    sandboxDelayMsMax: int(env, 'TICKETRUSH_SANDBOX_DELAY_MS_MAX', 200, 0, 60_000),
    expirySweepMs: int(env, 'TICKETRUSH_EXPIRY_SWEEP_MS', 500, 50, 60_000),
    ticketSweepMs: int(env, 'TICKETRUSH_TICKET_SWEEP_MS', 2_000, 100, 600_000),
    reconcileMs: int(env, 'TICKETRUSH_RECONCILE_MS', 15_000, 100, 3_600_000),
    reconcileAfterMs: int(env, 'TICKETRUSH_RECONCILE_AFTER_MS', 30_000, 0, 86_400_000),
    secrets: Object.freeze(loadSecrets(env, dataDir)),
  });
}

function loadSecrets(env: Env, dataDir: string): Config['secrets'] {
  const file = join(dataDir, 'secrets.json');
  const stored = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Partial<Config['secrets']>) : {};
  const generated: Config['secrets'] = {
    jwt: stored.jwt ?? randomBytes(32).toString('base64url'),
    payment: stored.payment ?? randomBytes(32).toString('base64url'),
    ticketSigningKeyPem: stored.ticketSigningKeyPem ?? generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
  };
  if (stored.jwt === undefined || stored.payment === undefined || stored.ticketSigningKeyPem === undefined) {
    writeFileSync(file, JSON.stringify(generated, null, 2), { mode: 0o600 });
  }
  const secrets = {
    jwt: env.TICKETRUSH_JWT_SECRET || generated.jwt,
    payment: env.TICKETRUSH_PAYMENT_SECRET || generated.payment,
    ticketSigningKeyPem: env.TICKETRUSH_TICKET_SIGNING_KEY || generated.ticketSigningKeyPem,
  };
  if (secrets.jwt.length < 32) throw new ConfigError('TICKETRUSH_JWT_SECRET must be at least 32 characters');
  if (secrets.payment.length < 16) throw new ConfigError('TICKETRUSH_PAYMENT_SECRET must be at least 16 characters');
  return secrets;
}
