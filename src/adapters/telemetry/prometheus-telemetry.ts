import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { BookingTelemetry } from '../../ports/telemetry.js';

/**
 * prom-client's default gauges that end in `_total`, a suffix Prometheus keeps for counters
 * (`promtool check metrics` refuses them). Each has a twin without the suffix that stays.
 */
const misnamedDefaults = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'] as const;

/**
 * Prometheus series for the booking loop; names follow the `ticketrush_<thing>_<unit>` form. No
 * label is called `job` or `instance`: Prometheus sets those on every target it scrapes.
 */
export function createPrometheusTelemetry(
  onJobFailure: (task: string, error: unknown) => void,
  onPaymentAnomaly: (kind: string, details: Readonly<Record<string, unknown>>) => void = () => undefined,
): { telemetry: BookingTelemetry; registry: Registry } {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  for (const name of misnamedDefaults) registry.removeSingleMetric(name);
  const holds = new Counter({ name: 'ticketrush_holds_total', help: 'Hold attempts by outcome', labelNames: ['outcome'], registers: [registry] });
  const holdLatency = new Histogram({
    name: 'ticketrush_hold_latency_seconds',
    help: 'Time to place or refuse a hold, by outcome',
    labelNames: ['outcome'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.2, 0.5, 1],
    registers: [registry],
  });
  const orders = new Counter({ name: 'ticketrush_orders_total', help: 'Order attempts by outcome: PENDING_PAY, REPLAYED, or the code of the refusal', labelNames: ['outcome'], registers: [registry] });
  const payments = new Counter({
    name: 'ticketrush_payment_callbacks_total',
    help: 'Payment callbacks by outcome (DUPLICATE counts replays; SIGNATURE_* and other codes count refusals)',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const anomalies = new Counter({ name: 'ticketrush_payment_anomalies_total', help: 'Payment callbacks acknowledged but not applied, by kind', labelNames: ['kind'], registers: [registry] });
  const expired = new Counter({ name: 'ticketrush_holds_expired_total', help: 'Holds freed by expiry', registers: [registry] });
  const expiryDelay = new Histogram({
    name: 'ticketrush_hold_expiry_delay_seconds',
    help: 'How late after expiresAt a hold was actually freed',
    // Past 60 s: the release-delay alert's threshold must fall inside the buckets.
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 900],
    registers: [registry],
  });
  const holdResults = new Counter({
    name: 'ticketrush_hold_requests_total',
    help: 'Hold requests by result at the HTTP edge: ok, refused (the buyer\'s doing: taken, sold out, a limit, bad input) or failed (5xx, BUSY, timeout)',
    labelNames: ['result'],
    registers: [registry],
  });
  const released = new Counter({ name: 'ticketrush_holds_released_total', help: 'Holds given back before their expiry, by reason', labelNames: ['reason'], registers: [registry] });
  const stuckGauge = (name: string, help: string): Gauge => new Gauge({ name, help, registers: [registry] });
  const stuck = {
    pendingPayOrders: stuckGauge('ticketrush_orders_pending_pay', 'Orders in PENDING_PAY (read every TICKETRUSH_OPS_FIGURES_MS, capped)'),
    pendingPayOldestAgeSeconds: stuckGauge('ticketrush_orders_pending_pay_oldest_age_seconds', 'Seconds since the oldest PENDING_PAY order entered that state (0 when none)'),
    paidNotTicketedOrders: stuckGauge('ticketrush_orders_paid_not_ticketed', 'Orders PAID but not yet TICKETED'),
    paidNotTicketedOldestAgeSeconds: stuckGauge('ticketrush_orders_paid_not_ticketed_oldest_age_seconds', 'Seconds since the oldest PAID, not yet TICKETED order was paid (0 when none)'),
    overdueHolds: stuckGauge('ticketrush_holds_overdue', 'ACTIVE holds past their expiry, not yet released'),
    overdueHoldOldestSeconds: stuckGauge('ticketrush_holds_overdue_oldest_seconds', 'How far past its expiry the oldest unreleased hold is, in seconds (0 when none)'),
    pendingPayments: stuckGauge('ticketrush_payments_pending', 'Payments PENDING (awaiting the provider\'s answer)'),
    pendingPaymentOldestAgeSeconds: stuckGauge('ticketrush_payments_pending_oldest_age_seconds', 'Seconds since the oldest PENDING payment last changed (0 when none)'),
  };
  const inconsistencies = new Gauge({
    name: 'ticketrush_inventory_inconsistencies',
    help: 'Violations the auditor found in its last pass, by check (a bounded set of names; any non-zero is a P0)',
    labelNames: ['check'],
    registers: [registry],
  });
  const auditedAt = new Gauge({ name: 'ticketrush_audit_last_run_timestamp_seconds', help: 'When this process last finished an audit pass (epoch seconds; 0 before the first)', registers: [registry] });
  const jobsWaiting = new Gauge({ name: 'ticketrush_jobs_waiting', help: 'Background jobs waiting in the queue (due or delayed)', registers: [registry] });
  const jobsOverdue = new Gauge({ name: 'ticketrush_jobs_oldest_overdue_seconds', help: 'How late the most overdue waiting job is, in seconds (0 when none is due)', registers: [registry] });
  const roomLength = new Gauge({ name: 'ticketrush_waiting_room_length', help: 'Buyers waiting in the waiting room (0 without one)', registers: [registry] });
  const roomWait = new Histogram({
    name: 'ticketrush_waiting_room_wait_seconds',
    help: 'How long a buyer waited in the waiting room before being admitted',
    buckets: [1, 5, 15, 30, 60, 120, 300, 600, 1800],
    registers: [registry],
  });
  const tickets = new Counter({ name: 'ticketrush_tickets_issued_total', help: 'Tickets issued', registers: [registry] });
  const jobFailures = new Counter({ name: 'ticketrush_job_failures_total', help: 'Background steps that failed, by task (a sweep retries them)', labelNames: ['task'], registers: [registry] });
  const checkIns = new Counter({ name: 'ticketrush_checkins_total', help: 'Check-in scans by outcome', labelNames: ['outcome'], registers: [registry] });
  const relayLag = new Gauge({
    name: 'ticketrush_outbox_relay_lag_seconds',
    help: 'Age of the oldest outbox row a durable sink has not yet taken (0 when caught up), by sink',
    labelNames: ['sink'],
    registers: [registry],
  });
  const webhookAttempts = new Counter({ name: 'ticketrush_webhook_attempts_total', help: 'Webhook delivery attempts by outcome (DELIVERED, RETRY, FAILED, GONE)', labelNames: ['outcome'], registers: [registry] });
  const webhookDuration = new Histogram({
    name: 'ticketrush_webhook_attempt_duration_seconds',
    help: 'Time of one webhook delivery attempt, answer or timeout',
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  return {
    registry,
    telemetry: {
      holdAttempt(outcome, seconds) {
        holds.inc({ outcome });
        holdLatency.observe({ outcome }, seconds);
      },
      holdResult: (result) => holdResults.inc({ result }),
      holdReleased: (reason) => released.inc({ reason }),
      stuck(figures) {
        for (const key of Object.keys(stuck) as (keyof typeof stuck)[]) stuck[key].set(figures[key]);
      },
      audited(byCheck, finishedAtSeconds) {
        for (const [check, n] of Object.entries(byCheck)) inconsistencies.set({ check }, n);
        auditedAt.set(finishedAtSeconds);
      },
      jobBacklog(waiting, oldestOverdueSeconds) {
        jobsWaiting.set(waiting);
        jobsOverdue.set(oldestOverdueSeconds);
      },
      waitingRoom: (length) => roomLength.set(length),
      waitingRoomAdmitted: (seconds) => roomWait.observe(seconds),
      orderAttempt: (outcome) => orders.inc({ outcome }),
      paymentCallback: (outcome) => payments.inc({ outcome }),
      paymentAnomaly(kind, details) {
        anomalies.inc({ kind });
        onPaymentAnomaly(kind, details);
      },
      holdsExpired(count, delays) {
        expired.inc(count);
        for (const d of delays) expiryDelay.observe(d);
      },
      ticketsIssued: (count) => tickets.inc(count),
      checkIn: (outcome) => checkIns.inc({ outcome }),
      webhookAttempt(outcome, seconds) {
        webhookAttempts.inc({ outcome });
        webhookDuration.observe(seconds);
      },
      jobFailed(task, error) {
        jobFailures.inc({ task });
        onJobFailure(task, error);
      },
      outboxRelayLag: (sink, seconds) => relayLag.set({ sink }, seconds),
    },
  };
}
