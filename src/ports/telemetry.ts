/** How a hold request ended, for the failure-rate alert: `refused` is the buyer's doing (a taken seat, sold out, a limit). */
export type HoldResult = 'ok' | 'refused' | 'failed';

/**
 * What is stuck right now, read by a bounded periodic query (src/app/ops-figures.ts), never per
 * scrape per row. Ages are seconds (0 when there is none); counts stop at the query's cap.
 */
export interface StuckFigures {
  readonly pendingPayOrders: number;
  readonly pendingPayOldestAgeSeconds: number;
  readonly paidNotTicketedOrders: number;
  readonly paidNotTicketedOldestAgeSeconds: number;
  /** ACTIVE holds whose expiresAt has passed (not yet released). */
  readonly overdueHolds: number;
  /** How long past its expiry the oldest of them is. */
  readonly overdueHoldOldestSeconds: number;
  readonly pendingPayments: number;
  readonly pendingPaymentOldestAgeSeconds: number;
}

/** Business events the application reports; the metrics adapter turns them into Prometheus series. */
export interface BookingTelemetry {
  holdAttempt(outcome: string, seconds: number): void;
  /** A hold request's answer at the HTTP edge, classed for alerting (see HoldResult). */
  holdResult(result: HoldResult): void;
  orderAttempt(outcome: string): void;
  paymentCallback(outcome: string): void;
  /**
   * A verified callback that was acknowledged but not applied as sent (kind AMOUNT_MISMATCH): an
   * operator must see it (a metric and a log line with `details`).
   */
  paymentAnomaly(kind: string, details: Readonly<Record<string, unknown>>): void;
  holdsExpired(count: number, delaysSeconds: readonly number[]): void;
  /** A hold given back before its expiry: RELEASED (by its buyer) or CANCELLED. */
  holdReleased(reason: string): void;
  ticketsIssued(count: number): void;
  checkIn(outcome: string): void;
  /** One webhook delivery attempt: DELIVERED, RETRY, FAILED or GONE, and how long it took. */
  webhookAttempt(outcome: string, seconds: number): void;
  /** A background step failed; a sweep will retry it, but an operator must be able to see it. */
  jobFailed(task: string, error: unknown): void;
  /** How far a durable outbox sink is behind: now - createdAt of its oldest undelivered row (0 when caught up). */
  outboxRelayLag(sink: string, seconds: number): void;
  /** The latest reading of what is stuck (orders by state, overdue holds, pending payments). */
  stuck(figures: StuckFigures): void;
  /**
   * The auditor's last pass: violations found per check (every check named, 0 when clean), and
   * when it finished (epoch seconds).
   */
  audited(violationsByCheck: Readonly<Record<string, number>>, finishedAtSeconds: number): void;
  /** The job queue: jobs waiting (due or delayed) and how late the most overdue one is. */
  jobBacklog(waiting: number, oldestOverdueSeconds: number): void;
  /**
   * Buyers waiting in the waiting room(s) of this process's view, in total (fed by the waiting
   * room; no per-show or per-user label), and one buyer's wait when admitted.
   */
  waitingRoom(length: number): void;
  waitingRoomAdmitted(waitedSeconds: number): void;
}

export const silentTelemetry: BookingTelemetry = {
  holdAttempt: () => undefined,
  holdResult: () => undefined,
  orderAttempt: () => undefined,
  paymentCallback: () => undefined,
  paymentAnomaly: () => undefined,
  holdsExpired: () => undefined,
  holdReleased: () => undefined,
  ticketsIssued: () => undefined,
  checkIn: () => undefined,
  webhookAttempt: () => undefined,
  jobFailed: () => undefined,
  outboxRelayLag: () => undefined,
  stuck: () => undefined,
  audited: () => undefined,
  jobBacklog: () => undefined,
  waitingRoom: () => undefined,
  waitingRoomAdmitted: () => undefined,
};
