import type { SwaggerOptions } from '@fastify/swagger';
import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifySchema } from 'fastify';
import { errorStatus, type ErrorCode } from './error-registry.js';

/**
 * What docs/openapi.json says beyond the route schemas: the document's head (servers, tags,
 * security schemes) and, per operation, its id, a description, `security: []` on public routes,
 * and the error statuses every route of its kind can answer. Redocly (recommended) and Spectral
 * (spectral:oas) lint the result in `npm test`.
 */

const tags = [
  { name: 'accounts', description: 'Register, log in, who am I' },
  { name: 'admin', description: 'Shows and roles (ADMIN only)' },
  { name: 'catalog', description: 'Shows and live seat maps (public)' },
  { name: 'booking', description: 'Holds and orders' },
  { name: 'payments', description: 'Provider callbacks and the sandbox card holder' },
  { name: 'tickets', description: 'E-tickets, their verification key, and door check-in' },
  { name: 'operations', description: 'Health, readiness and metrics' },
  { name: 'code pools', description: 'Campaigns that hand out pre-loaded codes, one per buyer (券码)' },
  { name: 'exports', description: 'Sale results as CSV for analysis (ADMIN only)' },
  { name: 'waiting room', description: 'A virtual waiting room per activity: places in line, admission at a set rate, signed admission tokens (issue 24)' },
] as const;

interface OperationDoc {
  readonly operationId: string;
  readonly description: string;
}

/** Keyed by "METHOD /path" as registered. A route missing here still gets an id (from its method and path). */
const operations: Readonly<Record<string, OperationDoc>> = {
  'GET /healthz': { operationId: 'getHealth', description: 'Answers while the process is up; no dependency is checked.' },
  'GET /readyz': { operationId: 'getReadiness', description: 'Answers 200 when the store (and the shared Redis, when configured) answers, 503 STORAGE_UNAVAILABLE naming each dependency that does not otherwise.' },
  'GET /metrics': { operationId: 'getMetrics', description: 'Prometheus text exposition of the process and booking metrics. Open to anyone unless TICKETRUSH_METRICS_TOKEN is set; then only with `Authorization: Bearer <that token>` (401 UNAUTHORIZED otherwise).' },
  'POST /api/v1/auth/register': { operationId: 'register', description: 'Creates a BUYER account. Usernames are unique.' },
  'POST /api/v1/auth/login': { operationId: 'logIn', description: 'Exchanges a username and password for a bearer token to send as `Authorization: Bearer <token>`.' },
  'GET /api/v1/me': { operationId: 'getMe', description: 'The account the bearer token belongs to, with its current role.' },
  'PUT /api/v1/admin/users/:username/role': { operationId: 'setUserRole', description: 'Sets a user\'s role; STAFF scans tickets at the door. Privileged routes read the stored role on every request.' },
  'POST /api/v1/admin/shows': {
    operationId: 'createShow',
    description: 'Creates a show with its sale window and seat map: seated sections (sold by SEAT, or by QUANTITY with seats picked at ticketing; accessible seats marked) and general-admission sections with a capacity. Seat ids are `<section>-<row>-<number>`.',
  },
  'GET /api/v1/shows': { operationId: 'listShows', description: 'Shows on sale first, then upcoming, then ended, each with a server-computed countdown; paged with `limit` and `offset`.' },
  'GET /api/v1/shows/:showId': { operationId: 'getShow', description: 'One show with its sale status and seat counts by status.' },
  'GET /api/v1/shows/:showId/seats': {
    operationId: 'getSeatMap',
    description: 'The live seat map, served from memory. Send the `ETag` back in `If-None-Match` (weak comparison; a list or `*` is accepted) and an unchanged map answers 304 with no body.',
  },
  'GET /api/v1/shows/:showId/availability': {
    operationId: 'getAvailability',
    description: 'What is left of every section, served from memory: the stock of counted sections (general admission, or seated sold by QUANTITY) and the free seats of seated ones.',
  },
  'POST /api/v1/shows/:showId/holds': {
    operationId: 'holdSeats',
    description: 'Holds the listed seats, the N best-available ones (optionally in a section, near a seat, with k accessible seats), or N places of a counted section (`{"section":"GA","quantity":4}`), all or nothing, until `expiresAt`. The store chooses against its current state, so concurrent buyers get different seats. 503 BUSY (with Retry-After) when the store is saturated.',
  },
  'DELETE /api/v1/holds/:holdId': { operationId: 'releaseHold', description: 'Releases the seats of an active hold at once; an unpaid order on it is cancelled.' },
  'POST /api/v1/holds/:holdId/extend': { operationId: 'extendHold', description: 'Moves an active hold\'s expiry later, a bounded number of times and never past its total life cap.' },
  'POST /api/v1/orders': {
    operationId: 'createOrder',
    description: 'Turns an active hold into an order awaiting payment. Idempotent by `X-Idempotency-Key` per user: a retry with the same key and body gets the first answer again (201 with `idempotent-replayed: true`, or the same refusal).',
  },
  'GET /api/v1/orders/:orderId': { operationId: 'getOrder', description: 'An order with its tickets; only its owner (or an admin) sees it, anyone else gets 404.' },
  'GET /api/v1/me/orders': { operationId: 'listMyOrders', description: 'The caller\'s orders, newest first, paged with `limit` and `offset`.' },
  'POST /api/v1/payments/callback': { operationId: 'receivePaymentCallback', description: 'Called by the payment provider, signed with HMAC-SHA256 over the raw body. Idempotent by (paymentId, orderId).' },
  'POST /api/v1/payments/stripe/webhook': { operationId: 'receiveStripeWebhook', description: 'Stripe provider only: Stripe\'s checkout.session.* events, verified with the SDK\'s constructEvent on the raw body against STRIPE_WEBHOOK_SECRET. Idempotent by (paymentId, orderId).' },
  'POST /api/v1/admin/discounts': { operationId: 'createDiscount', description: 'Creates a discount code. Buyers give it as `discountCode` when creating an order; the server prices the order, never below zero, and counts the use in the order\'s own transaction.' },
  'GET /api/v1/admin/discounts': { operationId: 'listDiscounts', description: 'The discount codes, newest first, paged with `limit` and `offset`.' },
  'POST /api/v1/admin/discounts/:code/disable': { operationId: 'disableDiscount', description: 'Disables a discount code for new orders; disabling it again answers it as it is.' },
  'POST /api/v1/orders/:orderId/sandbox-pay': { operationId: 'sandboxPay', description: 'Sandbox provider only: plays the card holder for the caller\'s order; the sandbox then calls back, signed, like a real provider.' },
  'GET /api/v1/tickets/public-key': { operationId: 'getTicketPublicKey', description: 'The Ed25519 public key and QR format, so scanners verify ticket codes offline.' },
  'GET /api/v1/me/tickets': { operationId: 'listMyTickets', description: 'The caller\'s tickets, newest first, paged with `limit` and `offset`.' },
  'GET /api/v1/tickets/:ticketId': { operationId: 'getTicket', description: 'One of the caller\'s tickets with its signed QR payload; anyone else\'s is 404.' },
  'POST /api/v1/admin/code-pools': { operationId: 'createCodePool', description: 'Creates a code pool with its sale window; codes come in by the import route or `npx ticketrush import codes`.' },
  'POST /api/v1/admin/code-pools/:poolId/codes': { operationId: 'importCodes', description: 'Imports codes (CSV or JSON), idempotently, in committed batches.' },
  'POST /api/v1/code-pools/:poolId/grab': { operationId: 'grabCode', description: 'Pops one code for the caller atomically; a second grab answers 200 with the same code.' },
  'GET /api/v1/code-pools/:poolId': { operationId: 'getCodePool', description: 'A code pool with the codes left and, for a signed-in caller, whether they took part.' },
  'GET /api/v1/me/codes': { operationId: 'listMyCodes', description: 'The caller\'s codes with their pools\' titles, newest first.' },
  'GET /api/v1/admin/code-pools/:poolId/winners.csv': { operationId: 'exportCodePoolWinners', description: 'Who got which code, as CSV, streamed.' },
  'GET /api/v1/admin/shows/:showId/orders.csv': { operationId: 'exportShowOrders', description: "A show's orders as CSV, streamed." },
  'GET /api/v1/admin/shows/:showId/tickets.csv': { operationId: 'exportShowTickets', description: "A show's tickets as CSV, streamed." },
  'POST /api/v1/checkin': { operationId: 'checkIn', description: 'Admits a ticket exactly once (STAFF or ADMIN). A retried scan with the same nonce is recognised as the same admission.' },
};

/** Codes by status, from the one registry, so a response's description names what it can carry. */
function codesWithStatus(status: number): string {
  return (Object.entries(errorStatus) as [ErrorCode, number][]).filter(([, s]) => s === status).map(([code]) => code).join(', ');
}

const statusTitles: Readonly<Record<number, string>> = {
  400: 'Bad request', 401: 'Not authenticated', 403: 'Forbidden', 404: 'Not found', 405: 'Method not allowed', 408: 'Request timeout',
  409: 'Conflict with the current state', 413: 'Body too large', 415: 'Not JSON', 422: 'Refused by a business rule', 429: 'Too many requests',
  431: 'Headers too large', 500: 'Server fault', 502: 'Upstream provider unavailable', 503: 'Unavailable',
};

/** An error response: the shared Error body, described by its status and the codes it may carry. */
export function errorResponse(status: number): TSchema {
  const codes = codesWithStatus(status);
  return Type.Ref('Error', { description: `${statusTitles[status] ?? 'Error'}${codes === '' ? '' : `; the codes with this status are ${codes}`}` });
}

type Responses = Record<string, unknown>;

function withDefaults(schema: FastifySchema, key: string): FastifySchema {
  const doc = operations[key];
  const responses: Responses = { ...((schema.response as Responses | undefined) ?? {}) };
  const add = (status: number): void => {
    if (responses[status] === undefined) responses[status] = errorResponse(status);
  };
  // Every request can be malformed (a bad URL, bad HTTP, or input that breaks the schema).
  add(400);
  if (Array.isArray(schema.security) && schema.security.length > 0) add(401);
  if (schema.body !== undefined) {
    add(413);
    add(415);
  }
  const summary = typeof schema.summary === 'string' ? schema.summary : '';
  return {
    ...schema,
    operationId: doc?.operationId ?? fallbackOperationId(key),
    description: schema.description ?? doc?.description ?? summary,
    // Public routes say so: no security requirement rather than none stated.
    security: schema.security ?? [],
    response: responses,
  } as FastifySchema;
}

function fallbackOperationId(key: string): string {
  const words = key.toLowerCase().split(/[^a-z0-9]+/).filter((w) => w !== '' && w !== 'api' && w !== 'v1');
  return words.map((w, i) => (i === 0 ? w : w[0]?.toUpperCase() + w.slice(1))).join('');
}

export const swaggerOptions: SwaggerOptions = {
  openapi: {
    openapi: '3.0.3',
    info: {
      title: 'TicketRush API',
      version: '1',
      description: 'Seats, holds, orders, payments and tickets. Every error is `{code, message, details?}` with a stable code (docs/api.md lists them) and every response carries `x-request-id`.',
      license: { name: 'MIT', url: 'https://opensource.org/licenses/MIT' },
      contact: { name: 'TicketRush maintainers' },
    },
    servers: [{ url: 'http://127.0.0.1:3000', description: 'A local server started with `npm start` (PORT and HOST move it)' }],
    tags: tags.map((t) => ({ ...t })),
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'The token from POST /api/v1/auth/login' } } },
  },
  transform: ({ schema, url, route }) => {
    if (schema === undefined || schema === null || (schema as { hide?: boolean }).hide === true) return { schema, url };
    const methods = typeof route.method === 'string' ? [route.method] : route.method;
    return { schema: withDefaults(schema, `${methods[0] ?? 'GET'} ${url}`), url };
  },
};
