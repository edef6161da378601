import type { LeasedEmail, Store } from '../ports/engine/index.js';
import type { EmailSender } from '../ports/email-sender.js';
import type { JobPayloads, JobQueue } from '../ports/jobs.js';
import type { Clock } from '../ports/runtime.js';
import { notificationEmailKey } from './notification-sink.js';
import { renderNotification } from './notification-text.js';

export interface EmailPolicy {
  /** How long a leased email is this sender's: far longer than one SMTP attempt can take (the sender's own timeouts). */
  readonly leaseMs: number;
  /** Emails leased per due pass. */
  readonly batchMax: number;
  /** Backoff: base doubled per attempt, up to max; then FAILED after attemptsMax. */
  readonly retryBaseMs: number;
  readonly retryMaxMs: number;
  readonly attemptsMax: number;
}

export const defaultEmailPolicy: EmailPolicy = { leaseMs: 10 * 60_000, batchMax: 20, retryBaseMs: 10_000, retryMaxMs: 3_600_000, attemptsMax: 12 };

/** When the next attempt is due after `attempt` failed (jittered to [½, 1] of the delay); null: no more. */
export function emailRetryAt(policy: EmailPolicy, attempt: number, now: number, random: number): number | null {
  if (attempt >= policy.attemptsMax) return null;
  const delay = Math.min(policy.retryMaxMs, policy.retryBaseMs * 2 ** Math.min(attempt - 1, 30));
  return now + Math.ceil(delay / 2 + random * (delay / 2));
}

export interface NotificationMailerDeps {
  readonly store: Pick<Store, 'leaseNotificationEmail' | 'leaseDueEmails' | 'recordEmailAttempt' | 'getShow'>;
  readonly clock: Clock;
  readonly random: () => number;
  readonly sender: EmailSender;
  readonly jobs: JobQueue | null;
  readonly policy: EmailPolicy;
  /** The web front end's address for links in the emails. */
  readonly baseUrl: () => string;
  readonly onError: (what: string, error: unknown) => void;
  readonly onAttempt?: (outcome: string) => void;
}

/**
 * Sends notification emails, off every request path. Never two emails for one notification: each
 * attempt first takes the notification's lease (PENDING → SENDING, one conditional update, so of
 * two processes or a job and its retry exactly one gets it), and the attempt is recorded only on
 * the lease it took (SENDING with attempts = n - 1). A sender that dies mid-attempt leaves the row
 * SENDING until the lease (10 minutes, against SMTP timeouts of seconds) runs out; only then can
 * it be sent again, and the stable Message-ID lets a mail system tell the repeat.
 */
export class NotificationMailer {
  private running: Promise<number> | null = null;
  private again = false;
  private stopped = false;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly deps: NotificationMailerDeps) {}

  /** The notification-email job: attempt `attempt`, if it is still due for that attempt. */
  async runJob(data: JobPayloads['notification-email']): Promise<void> {
    const { store, clock, policy } = this.deps;
    const leased = await store.leaseNotificationEmail({ notificationId: data.notificationId, attempts: data.attempt - 1, now: clock.now(), leaseMs: policy.leaseMs });
    if (leased !== null) await this.track(this.send(leased));
  }

  /** One pass over the due emails (retries, and any whose job was lost); answers how many were leased. */
  async deliverDue(): Promise<number> {
    if (this.stopped) return 0;
    const { store, clock, policy } = this.deps;
    const leased = await store.leaseDueEmails({ now: clock.now(), leaseMs: policy.leaseMs, limit: policy.batchMax });
    await Promise.all(leased.map((l) => this.track(this.send(l))));
    return leased.length;
  }

  /** Runs due passes now until one finds nothing (one at a time); errors go to onError. */
  wake(): void {
    if (this.running !== null) {
      this.again = true;
      return;
    }
    this.running = this.deliverDue();
    void this.running.then((n) => {
      this.running = null;
      if (this.stopped) return;
      if (this.again || n === this.deps.policy.batchMax) {
        this.again = false;
        this.wake();
      }
    }, (error: unknown) => {
      this.running = null;
      this.deps.onError('notification email due pass', error);
    });
  }

  stop(): void {
    this.stopped = true;
  }

  /** Resolves once every attempt started so far is recorded (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0 || this.running !== null) {
      await Promise.all([...this.inFlight, this.running?.catch(() => 0)]);
    }
  }

  private track(work: Promise<void>): Promise<void> {
    const run = work.catch((error: unknown) => this.deps.onError('notification-email', error));
    this.inFlight.add(run);
    void run.finally(() => this.inFlight.delete(run));
    return run;
  }

  private async send(leased: LeasedEmail): Promise<void> {
    const { store, clock, sender, policy } = this.deps;
    const n = leased.notification;
    const attempt = n.emailAttempts + 1;
    if (leased.email === null) {
      await store.recordEmailAttempt({ notificationId: n.notificationId, attempt, outcome: 'NO_ADDRESS', nextAttemptAt: null, error: null, now: clock.now() });
      this.deps.onAttempt?.('NO_ADDRESS');
      return;
    }
    const show = n.showId === null ? null : await store.getShow(n.showId);
    const email = renderNotification({ notification: n, language: leased.language ?? 'en', show, baseUrl: this.deps.baseUrl() });
    const result = await sender.send({ to: leased.email, ...email, messageId: `<${n.notificationId}@ticketrush>` });
    const now = clock.now();
    const retryAt = result.ok || result.permanent ? null : emailRetryAt(policy, attempt, now, this.deps.random());
    const outcome = result.ok ? 'SENT' : retryAt === null ? 'FAILED' : 'RETRY';
    const recorded = await store.recordEmailAttempt({ notificationId: n.notificationId, attempt, outcome, nextAttemptAt: retryAt, error: result.ok ? null : result.error.slice(0, 500), now });
    if (recorded.ok) this.deps.onAttempt?.(outcome);
    if (!recorded.ok || outcome !== 'RETRY' || retryAt === null || this.deps.jobs === null) return;
    // The next try as a job at its time; should it be lost, the due pass sends it anyway.
    await this.deps.jobs.enqueue('notification-email', { notificationId: n.notificationId, attempt: attempt + 1 }, { key: notificationEmailKey(n.notificationId, attempt + 1), runAt: retryAt })
      .catch((error: unknown) => this.deps.onError('enqueue notification-email', error));
  }
}
