import type { EdgeErrorCode } from './error-registry.js';

/** An error raised by the edge itself (authentication, signatures, framework limits). */
export class HttpError extends Error {
  constructor(
    readonly code: EdgeErrorCode,
    message: string,
    readonly details?: Readonly<Record<string, unknown>>,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}
