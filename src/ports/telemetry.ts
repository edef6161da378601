/** Business events the application reports; the metrics adapter turns them into Prometheus series. */
export interface BookingTelemetry {
  holdAttempt(outcome: string, seconds: number): void;
  orderAttempt(outcome: string): void;
  paymentCallback(outcome: string): void;
  holdsExpired(count: number, delaysSeconds: readonly number[]): void;
  ticketsIssued(count: number): void;
  checkIn(outcome: string): void;
  /** A background step failed; a sweep will retry it, but an operator must be able to see it. */
  jobFailed(job: string, error: unknown): void;
}

export const silentTelemetry: BookingTelemetry = {
  holdAttempt: () => undefined,
  orderAttempt: () => undefined,
  paymentCallback: () => undefined,
  holdsExpired: () => undefined,
  ticketsIssued: () => undefined,
  checkIn: () => undefined,
  jobFailed: () => undefined,
};
