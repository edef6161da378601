import { decideAttempt, type RetryPolicy } from '../domain/index.js';
import { signWebhook } from '../lib/webhook-signature.js';
import type { DueDelivery, WebhookStore } from '../ports/engine/index.js';
import type { JobPayloads, JobQueue } from '../ports/jobs.js';
import type { Clock } from '../ports/runtime.js';
import type { WebhookSender } from '../ports/webhook-sender.js';

export interface WebhookDeliveryPolicy {
  /** One attempt is cut after this long (TICKETRUSH_WEBHOOK_TIMEOUT_MS). */
  readonly timeoutMs: number;
  /** Attempts in flight at once in this process; more wait their turn (bounded by batchMax). */
  readonly concurrency: number;
  /** How long a leased delivery is this process's to send; longer than timeoutMs, so a slow attempt keeps its lease. */
  readonly leaseMs: number;
  /** Deliveries leased per pass of the due deliveries. */
  readonly batchMax: number;
  readonly retry: RetryPolicy;
}

export const defaultWebhookDeliveryPolicy: WebhookDeliveryPolicy = {
  timeoutMs: 10_000,
  concurrency: 16,
  leaseMs: 60_000,
  batchMax: 100,
  // 10 s, 20 s, 40 s, ... up to 1 h between tries, for three days.
  retry: { baseDelayMs: 10_000, maxDelayMs: 3_600_000, windowMs: 3 * 86_400_000 },
};

export interface WebhookDeliveryDeps {
  readonly store: WebhookStore;
  readonly clock: Clock;
  /** A number in [0, 1): the jitter of each backoff (injected so tests drive it). */
  readonly random: () => number;
  readonly sender: WebhookSender;
  /** The queue that runs deliver-webhook jobs, when there is one; null: the due pass alone. */
  readonly jobs: JobQueue | null;
  readonly policy: WebhookDeliveryPolicy;
  readonly onError: (what: string, error: unknown) => void;
  /** Each recorded attempt's outcome and duration (metrics). */
  readonly onAttempt?: (outcome: string, durationMs: number) => void;
}

export const deliverWebhookKey = (deliveryId: string, attempt: number): string => `deliver-webhook:${deliveryId}:${attempt}`;

/**
 * Sends webhook deliveries, off every request path: the sink only writes rows (and asks for a
 * job); attempts run here, at most `concurrency` at once, each bounded by `timeoutMs`, so a slow
 * or dead receiver costs a few sockets and never a sale. Two ways in, both taking a lease first
 * so no two processes send the same attempt at once:
 * - the deliver-webhook job ({deliveryId, attempt}) when a queue runs them;
 * - the due pass, which leases whatever is due, so nothing depends on a job surviving.
 */
export class WebhookDelivery {
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private leasing = false;
  private leaseAgain = false;
  /** More may be due than the last lease took: a finished attempt leases again. */
  private backlog = false;
  private stopped = false;

  constructor(private readonly deps: WebhookDeliveryDeps) {}

  /** The deliver-webhook job: attempt `attempt` of the delivery, if it is still due for that attempt. */
  async runJob(data: JobPayloads['deliver-webhook']): Promise<void> {
    const { store, clock, policy } = this.deps;
    const due = await store.leaseDelivery({ deliveryId: data.deliveryId, attempts: data.attempt - 1, now: clock.now(), leaseMs: policy.leaseMs });
    if (due !== null) await this.attempt(due);
  }

  /**
   * One pass of the due deliveries: leases as many as there are free attempt slots (at most
   * batchMax) and sends them. Resolves when this pass's attempts are recorded; answers how many
   * were leased. Passes may overlap: a receiver that hangs holds one slot until its timeout, never
   * the next pass, so other receivers keep getting theirs.
   */
  async deliverDue(): Promise<number> {
    const attempts = await this.leaseDue();
    await Promise.all(attempts);
    return attempts.length;
  }

  /**
   * Runs a pass now without waiting for its attempts (the sink's wake-up, the periodic timer):
   * the embedded default's way to send at once without a queue. Errors go to onError.
   */
  wake(): void {
    // A lease is running: it leases again once done. Only the call that leases may chain another
    // wake; a call that merely found the lease running chained one too, and with nothing awaited
    // in between those wakes spun on the microtask queue and starved the event loop for good (the
    // multi-process test's process stopped answering mid-rush).
    if (this.leasing) {
      this.leaseAgain = true;
      return;
    }
    void this.leaseDue().then(() => {
      if (!this.leaseAgain) return;
      this.leaseAgain = false;
      this.wake();
    }, (error: unknown) => this.deps.onError('webhook due pass', error));
  }

  /** Leases what the free slots can take and starts the attempts; one lease at a time per process. */
  private async leaseDue(): Promise<Promise<void>[]> {
    if (this.stopped) return [];
    if (this.leasing) {
      // Rows stored while a lease was running may have missed it: lease again right after.
      this.leaseAgain = true;
      return [];
    }
    this.leasing = true;
    try {
      const { store, clock, policy } = this.deps;
      const free = Math.min(policy.batchMax, policy.concurrency - this.running - this.waiting.length);
      if (free <= 0) {
        this.backlog = true;
        return [];
      }
      const leased = await store.leaseDueDeliveries({ now: clock.now(), leaseMs: policy.leaseMs, limit: free });
      // A full batch may have left more due: the next finished attempt leases again.
      if (leased.length === free) this.backlog = true;
      return leased.map((due) => this.attempt(due));
    } finally {
      this.leasing = false;
    }
  }

  /** No more passes start (shutdown); attempts in flight finish. */
  stop(): void {
    this.stopped = true;
  }

  /** Resolves once every attempt started so far is recorded (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }

  private attempt(due: DueDelivery): Promise<void> {
    const run = this.withSlot(() => this.send(due)).catch((error: unknown) => this.deps.onError('deliver-webhook', error));
    this.inFlight.add(run);
    void run.finally(() => {
      this.inFlight.delete(run);
      if (!this.backlog || this.stopped) return;
      this.backlog = false;
      this.wake();
    });
    return run;
  }

  private async send(due: DueDelivery): Promise<void> {
    const { store, clock, random, sender, jobs, policy } = this.deps;
    const { delivery } = due;
    const attempt = delivery.attempts + 1;
    const signature = signWebhook(due.secret, delivery.body, Math.floor(clock.now() / 1000));
    const response = await sender.send({
      url: due.url,
      body: delivery.body,
      headers: { 'x-ticketrush-signature': signature, 'x-ticketrush-event-id': delivery.eventId, 'x-ticketrush-event-type': delivery.type },
      timeoutMs: policy.timeoutMs,
    });
    const now = clock.now();
    const result = response.kind === 'response' ? { kind: 'response' as const, statusCode: response.statusCode } : { kind: 'error' as const, error: response.error };
    const decision = decideAttempt(result, attempt, delivery.createdAt, now, random(), policy.retry);
    const recorded = await store.recordAttempt({
      deliveryId: delivery.deliveryId,
      attempt,
      now,
      statusCode: response.kind === 'response' ? response.statusCode : null,
      durationMs: response.durationMs,
      error: response.kind === 'error' ? response.error : null,
      outcome: decision.outcome,
      nextAttemptAt: decision.outcome === 'RETRY' ? decision.nextAttemptAt : null,
    });
    if (recorded.ok) this.deps.onAttempt?.(decision.outcome, response.durationMs);
    if (!recorded.ok || decision.outcome !== 'RETRY' || jobs === null) return;
    // The next try as a job at its time; should it be lost, the due pass sends it anyway.
    await jobs.enqueue('deliver-webhook', { deliveryId: delivery.deliveryId, attempt: attempt + 1 }, { key: deliverWebhookKey(delivery.deliveryId, attempt + 1), runAt: decision.nextAttemptAt })
      .catch((error: unknown) => this.deps.onError('enqueue deliver-webhook', error));
  }

  private async withSlot<T>(work: () => Promise<T>): Promise<T> {
    // A finished attempt hands its slot straight to the next waiter, so the count never overshoots.
    if (this.running >= this.deps.policy.concurrency) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next === undefined) this.running--;
      else next();
    }
  }
}
