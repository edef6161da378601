/** Business events the application reports; the metrics adapter turns them into Prometheus series. */
export interface BookingTelemetry {
  holdAttempt(outcome: string, seconds: number): void;
  orderAttempt(outcome: string): void;
  paymentCallback(outcome: string): void;
  /**
   * A verified callback that was acknowledged but not applied as sent (kind AMOUNT_MISMATCH): an
   * operator must see it (a metric and a log line with `details`).
   */
  paymentAnomaly(kind: string, details: Readonly<Record<string, unknown>>): void;
  holdsExpired(count: number, delaysSeconds: readonly number[]): void;
  ticketsIssued(count: number): void;
  checkIn(outcome: string): void;
  /** One webhook delivery attempt: DELIVERED, RETRY, FAILED or GONE, and how long it took. */
  webhookAttempt(outcome: string, seconds: number): void;
  /** A background step failed; a sweep will retry it, but an operator must be able to see it. */
  jobFailed(task: string, error: unknown): void;
}

export const silentTelemetry: BookingTelemetry = {
  holdAttempt: () => undefined,
  orderAttempt: () => undefined,
  paymentCallback: () => undefined,
  paymentAnomaly: () => undefined,
  holdsExpired: () => undefined,
  ticketsIssued: () => undefined,
  checkIn: () => undefined,
  webhookAttempt: () => undefined,
  jobFailed: () => undefined,
};
