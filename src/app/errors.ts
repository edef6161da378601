import type { DomainErrorCode, Result } from '../domain/index.js';

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
] as const;

export type AppErrorCode = DomainErrorCode | (typeof appErrorCodes)[number];

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

export function unwrap<T>(result: Result<T>): T {
  if (!result.ok) throw new AppError(result.error.code, result.error.message, result.error.details);
  return result.value;
}

export function found<T>(value: T | null, code: AppErrorCode, message: string): T {
  if (value === null) throw new AppError(code, message);
  return value;
}
