import type { DomainError, DomainErrorCode, Result } from '../domain/index.js';

/** The store's busy answer, as the edge sees it (503 BUSY): through the application, not the store port. */
export { StoreBusyError } from '../ports/engine/index.js';

/** Codes the application adds to the domain's: lookups, accounts, idempotency, edges of the world. */
export const appErrorCodes = [
  'SHOW_NOT_FOUND',
  'HOLD_NOT_FOUND',
  'ORDER_NOT_FOUND',
  'PAYMENT_NOT_FOUND',
  'TICKET_NOT_FOUND',
  'TICKET_INVALID',
  'USER_NOT_FOUND',
  'USERNAME_TAKEN',
  'INVALID_CREDENTIALS',
  'IDEMPOTENCY_KEY_REUSED',
  'IDEMPOTENCY_REQUEST_IN_FLIGHT',
  'PAYMENT_PROVIDER_UNAVAILABLE',
  'CONCURRENT_UPDATE',
  'LAST_ADMIN',
  'RATE_LIMITED',
  'BUSY',
  'SECTION_NOT_FOUND',
  /** The bearer token is missing, invalid, expired, or names an account the store no longer has. */
  'UNAUTHORIZED',
  'CODE_POOL_NOT_FOUND',
  'WEBHOOK_NOT_FOUND',
  'WEBHOOK_LIMIT_REACHED',
  /** No show or campaign with that id (issue 23). */
  'ACTIVITY_NOT_FOUND',
  /** The flash sale has no item with that id. */
  'ITEM_NOT_FOUND',
  /** No bargain order with that id (or, for its order, not the caller's). */
  'BARGAIN_ORDER_NOT_FOUND',
  /** An organizer's discount code that does not exist (admin routes; a buyer's unknown code is DISCOUNT_UNKNOWN). */
  'DISCOUNT_NOT_FOUND',
  /** A discount code with that name exists already. */
  'DISCOUNT_CODE_TAKEN',
  /** A notification address that is not an email address. */
  'EMAIL_INVALID',
  /** The buyer (or the address) is on the blocklist: buying routes refuse, reads still work. */
  'BLOCKED',
  /** No blocklist entry with that id. */
  'BLOCK_NOT_FOUND',
  /** The activity's waiting room is on and the request carries no X-Admission-Token. */
  'ADMISSION_REQUIRED',
  /** The admission token is forged, expired, too large, or another user's or another activity's. */
  'ADMISSION_INVALID',
  /** No queue place with that id (or not the caller's). */
  'QUEUE_ENTRY_NOT_FOUND',
  /** The activity has no waiting room on: there is no line to join. */
  'WAITING_ROOM_OFF',
] as const;

/**
 * ILLEGAL_TRANSITION is the state machines' own guard, not an answer: the rules check a record's
 * state first and refuse in state-specific words (HOLD_EXPIRED, HOLD_NOT_ACTIVE, ...), so the
 * type leaves it out and no client can ever be sent it.
 */
export type AppErrorCode = Exclude<DomainErrorCode, 'ILLEGAL_TRANSITION'> | (typeof appErrorCodes)[number];

let stackTraceLimit = Error.stackTraceLimit;

/** Runs inside super()'s argument list: the only place a subclass can act before Error captures its stack. */
function withoutStackTrace(message: string): string {
  stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  return message;
}

/**
 * A failed operation on its way to the edge, where one registry turns its code into a status.
 * These are expected refusals (a taken seat, an expired hold), thrown by the thousand in a rush,
 * so they skip the stack trace, which is most of the cost of an Error and says nothing here.
 */
export class AppError extends Error {
  constructor(
    readonly code: AppErrorCode,
    message: string,
    readonly details?: Readonly<Record<string, unknown>>,
  ) {
    super(withoutStackTrace(message));
    Error.stackTraceLimit = stackTraceLimit;
    this.name = 'AppError';
  }
}

export interface AppFailure {
  readonly code: AppErrorCode;
  readonly message: string;
  readonly details?: Readonly<Record<string, unknown>>;
}

/** A domain refusal as the application reports it. */
export function appFailure(error: DomainError): AppFailure {
  // A transition the rules' own state checks let through is a bug, reported as one.
  const code = error.code === 'ILLEGAL_TRANSITION' ? 'INVARIANT_VIOLATED' : error.code;
  return error.details === undefined ? { code, message: error.message } : { code, message: error.message, details: error.details };
}

export function unwrap<T>(result: Result<T>): T {
  if (result.ok) return result.value;
  const { code, message, details } = appFailure(result.error);
  throw new AppError(code, message, details);
}

export function found<T>(value: T | null, code: AppErrorCode, message: string): T {
  if (value === null) throw new AppError(code, message);
  return value;
}
