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

/** Defaults of the other drills (src/drill/drills.ts); each finishes in under two minutes on 2 cores. */
export const hotSeatDefaults = Object.freeze({ crowd: 2_000, hotSeats: 4, concurrency: 64, conflictP99MaxMs: 250, answerMaxMs: 2_000, seats: 500, buyers: 32 });
export const paymentJitterDefaults = Object.freeze({ providerDelayMs: 100, providerErrorRate: 0.1, duplicateRate: 1, callbackDelayMsMax: 1_500, declineRate: 0.15, seats: 2_000, buyers: 32 });
export const expiryOutageDefaults = Object.freeze({ outageSeconds: 25, lapsingHolds: 50, lapseSeconds: 2, releaseBoundSeconds: 5, seats: 1_000, buyers: 32 });
export const rushDefaults = Object.freeze({ admitPerMinute: 1_200, admissionSeconds: 600, bots: 8, opensInSeconds: 5, queueDeadlineSeconds: 90, seats: 2_000, buyers: 100 });
