import type { ReadinessCheck } from '../app/readiness.js';
import type { FastifyServerOptions } from 'fastify';
import type { AppContext } from '../app/context.js';
import type { WebhookSettings } from '../app/webhooks.js';
import type { PaymentSimulator, PaymentWebhook } from '../ports/payment-provider.js';
import type { TokenService } from './auth.js';
import type { LoadSheddingLimits } from './load-shedding.js';
import type { BuyerGuards } from './buyer-gate.js';

/** What the HTTP edge is given by the composition root. */
export interface HttpDeps {
  readonly ctx: AppContext;
  readonly tokens: TokenService;
  readonly paymentSecret: string;
  /** Where this server answers (a webhook may not point at it) and the randomness of new webhooks. */
  readonly webhooks: WebhookSettings;
  /** Present only when the sandbox provider is on. */
  readonly sandbox: PaymentSimulator | null;
  /** Present only when Stripe is the provider: checks its signed webhook events. */
  readonly stripe?: PaymentWebhook | null;
  /** `token`: when set, /metrics answers only `Authorization: Bearer <token>` (TICKETRUSH_METRICS_TOKEN). */
  readonly metrics: { readonly contentType: string; render(): Promise<string>; readonly token?: string | null };
  readonly bodyLimitBytes: number;
  /** Size limit of a CSV code import (TICKETRUSH_IMPORT_BYTES_MAX), apart from the JSON body limit; default 50 MB. */
  readonly importBytesMax?: number;
  /** Bound on receiving one whole request, headers and body (TICKETRUSH_REQUEST_TIMEOUT_MS). */
  readonly requestTimeoutMs?: number;
  readonly logger: FastifyServerOptions['logger'];
  /** Live seat-map streams this process accepts at once (default in routes/live.ts). */
  readonly liveConnectionsMax?: number;
  /** Seat-map responses sent at once (default in routes/catalog.ts). */
  readonly seatMapStreamsMax?: number;
  /**
   * A font file for printed tickets (TICKETRUSH_TICKET_FONT), embedded as a subset so that any
   * show title, venue or section name prints, Chinese included; null: the PDF standard fonts.
   */
  readonly ticketFont?: { readonly file: string; readonly name: string | null } | null;
  /**
   * What /readyz names and checks besides the store, each bounded by its own timeout (the shared
   * Redis when configured). `store` names the store in /readyz's answer (describeStore).
   */
  readonly readiness?: { readonly store: string; readonly others: readonly ReadinessCheck[] };
  /** Bound on buying requests in flight, by priority class (default: defaultLoadShedding). */
  readonly loadShedding?: LoadSheddingLimits;
  /** The built web front end, served at `/`; null or absent serves the API only. */
  readonly webRoot?: string | null;
  /** The buying routes' rate limits and blocklist check (buyer-gate.ts), and the blocklist the admin routes edit; absent: none. */
  readonly buyers?: BuyerGuards;
  /** Proxies whose X-Forwarded-For is believed (TICKETRUSH_TRUST_PROXY); empty or absent: none. */
  readonly trustProxy?: readonly string[];
}

/** A dependency /readyz checks: `name` says which and where, never a password. */
export type { ReadinessCheck } from '../app/readiness.js';

export const defaultRequestTimeoutMs = 30_000;
