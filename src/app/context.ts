import type { Store } from '../ports/engine/index.js';
import type { JobQueue } from '../ports/jobs.js';
import type { Clock, IdSource } from '../ports/runtime.js';
import type { PaymentProvider } from '../ports/payment-provider.js';
import type { AccountThrottle } from '../ports/rate-limiter.js';
import type { AdmissionTokens, PasswordHasher, TicketSigner } from '../ports/security.js';
import type { BookingTelemetry } from '../ports/telemetry.js';
import type { GateService } from './inventory-gate.js';
import type { SeatMapCache } from './seat-map-cache.js';
import type { WaitingRoomCache } from './waiting-room-cache.js';

/** Policy the application needs from configuration (already validated and frozen). */
export interface BookingPolicy {
  readonly holdSecondsDefault: number;
  readonly holdSecondsMax: number;
  readonly holdExtensionsMax: number;
  readonly holdLifeSecondsMax: number;
  /** Seats one buyer may hold and buy per show, for shows that set no limit of their own. */
  readonly maxSeatsPerUserDefault: number;
  /** A waitlist offer's claim window in seconds (bounded by the domain's waitlistLimits); its default when absent. */
  readonly waitlistClaimSeconds?: number;
  /** How long a key stays IN_FLIGHT before a retry takes it over; limits.idempotencyInFlightMsMax when absent. */
  readonly idempotencyInFlightMs?: number;
  readonly currency: string;
}

/** Everything a use case may touch: ports, the seat-map read model, policy. No adapters. */
export interface AppContext {
  readonly store: Store;
  readonly clock: Clock;
  readonly ids: IdSource;
  /** Named background jobs (in-process, or BullMQ on Redis); the sweeps are their net. */
  readonly jobs: JobQueue;
  readonly payments: PaymentProvider;
  readonly passwords: PasswordHasher;
  readonly throttle: AccountThrottle;
  readonly signer: TicketSigner;
  readonly telemetry: BookingTelemetry;
  readonly seatMaps: SeatMapCache;
  readonly policy: BookingPolicy;
  /** Which activities have their waiting room on (issue 24), kept in memory across processes. */
  readonly rooms: WaitingRoomCache;
  /** Signs and checks admission tokens (no storage). */
  readonly admission: AdmissionTokens;
  /** The Redis gate in front of the store's claims (seed 003), when Redis is configured. */
  readonly gate?: GateService;
  /**
   * Uniform numbers in [0, 1) for the draws the rules make (a bargain's random cut). Injected like
   * the clock so tests can seed it; compose.ts gives a CSPRNG.
   */
  readonly random?: () => number;
}
