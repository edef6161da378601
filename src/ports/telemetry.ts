/** Business events the application reports; the metrics adapter turns them into Prometheus series. */
export interface BookingTelemetry {
  holdAttempt(outcome: string, seconds: number): void;
  orderAttempt(outcome: string): void;
  paymentCallback(outcome: string): void;
  holdsExpired(count: number, delaysSeconds: readonly number[]): void;
  ticketsIssued(count: number): void;
  checkIn(outcome: string): void;
}

export const silentTelemetry: BookingTelemetry = {
  holdAttempt: () => undefined,
  orderAttempt: () => undefined,
  paymentCallback: () => undefined,
  holdsExpired: () => undefined,
  ticketsIssued: () => undefined,
  checkIn: () => undefined,
};
