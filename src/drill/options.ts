import { join, resolve } from 'node:path';

/** How a buyer asks for seats: named seats read from the map, or N best-available picked by the server. */
export type PickMode = 'seats' | 'best';

/** Everything one `drill sellout` run is told; every field has a default that finishes on a 2-core machine. */
export interface DrillOptions {
  readonly seats: number;
  /** Simulated buyers, each one hold → order → pay at a time: the drill's concurrency. */
  readonly buyers: number;
  readonly seatsPerHold: number;
  readonly holdSeconds: number;
  readonly pick: PickMode;
  /** Keep-alive connections the client keeps open to the server (an undici Pool). */
  readonly connections: number;
  /** Orders a buyer may leave waiting for their tickets while it goes on buying. */
  readonly ticketsInFlightPerBuyer: number;
  readonly ticketTimeoutSeconds: number;
  /** The whole sale gives up after this long (the audit then says it did not sell out). */
  readonly deadlineSeconds: number;
  /** null: start an embedded server on a fresh temporary data directory. */
  readonly url: string | null;
  readonly outDir: string;
  readonly admin: { readonly username: string; readonly password: string } | null;
}

export const drillDefaults = Object.freeze({
  seats: 100_000,
  buyers: 32,
  seatsPerHold: 10,
  holdSeconds: 300,
  pick: 'seats' as PickMode,
  ticketsInFlightPerBuyer: 8,
  ticketTimeoutSeconds: 60,
  deadlineSeconds: 600,
});

/** What commander hands over: strings already parsed by the option parsers below. */
export interface RawDrillOptions {
  readonly seats: number;
  readonly buyers: number;
  readonly seatsPerHold: number;
  readonly holdSeconds: number;
  readonly pick: PickMode;
  readonly connections?: number;
  readonly ticketsInFlight: number;
  readonly ticketTimeout: number;
  readonly deadline: number;
  readonly url?: string;
  readonly out?: string;
  readonly adminUser?: string;
  readonly adminPassword?: string;
}

export class DrillOptionError extends Error {}

/** Fills in what depends on other options, and refuses combinations that cannot run. */
export function resolveDrillOptions(raw: RawDrillOptions, env: NodeJS.ProcessEnv = process.env, now = new Date()): DrillOptions {
  const url = raw.url === undefined ? null : normaliseUrl(raw.url);
  const username = raw.adminUser ?? env.TICKETRUSH_ADMIN_USER;
  const password = raw.adminPassword ?? env.TICKETRUSH_ADMIN_PASSWORD;
  if (url !== null && (!username || !password)) {
    throw new DrillOptionError('--url needs an admin account to create the show: --admin-user and --admin-password (or TICKETRUSH_ADMIN_USER and TICKETRUSH_ADMIN_PASSWORD)');
  }
  const stamp = now.toISOString().replace(/[:.]/g, '-');
  return Object.freeze({
    seats: raw.seats,
    buyers: raw.buyers,
    seatsPerHold: raw.seatsPerHold,
    holdSeconds: raw.holdSeconds,
    pick: raw.pick,
    // One connection per buyer for its hold → order → pay, plus a share for the ticket polls.
    connections: raw.connections ?? Math.max(4, Math.ceil(raw.buyers * 1.5)),
    ticketsInFlightPerBuyer: raw.ticketsInFlight,
    ticketTimeoutSeconds: raw.ticketTimeout,
    deadlineSeconds: raw.deadline,
    url,
    outDir: resolve(raw.out ?? join('drill-results', stamp)),
    admin: username && password ? Object.freeze({ username, password }) : null,
  });
}

function normaliseUrl(raw: string): string {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new DrillOptionError(`--url must be an http(s) URL (got "${raw}")`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new DrillOptionError(`--url must be an http(s) URL (got "${raw}")`);
  return parsed.href.replace(/\/$/, '');
}
