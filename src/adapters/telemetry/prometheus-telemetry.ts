import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
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
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30],
    registers: [registry],
  });
  const tickets = new Counter({ name: 'ticketrush_tickets_issued_total', help: 'Tickets issued', registers: [registry] });
  const jobFailures = new Counter({ name: 'ticketrush_job_failures_total', help: 'Background steps that failed, by task (a sweep retries them)', labelNames: ['task'], registers: [registry] });
  const checkIns = new Counter({ name: 'ticketrush_checkins_total', help: 'Check-in scans by outcome', labelNames: ['outcome'], registers: [registry] });
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
    },
  };
}
