import type { DomainErrorCode } from './error-codes.js';

/** An operation's failure, as a value: a stable code plus a human message and optional details. */
export interface DomainError {
  readonly code: DomainErrorCode;
  readonly message: string;
  readonly details?: Readonly<Record<string, unknown>>;
}

export type Result<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: DomainError };

export function ok<T>(value: T): Result<T> {
  return { ok: true, value };
}

export function fail<T = never>(code: DomainErrorCode, message: string, details?: Record<string, unknown>): Result<T> {
  return { ok: false, error: details === undefined ? { code, message } : { code, message, details } };
}
