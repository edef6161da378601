/**
 * Named background jobs with JSON data, so a queue (BullMQ on Redis) can store them and a job
 * survives the process that scheduled it. The embedded default runs the same names in-process.
 * Every job has a de-duplication key: enqueueing a key that is already waiting is a no-op.
 */
export interface JobPayloads {
  /** A hold's release at its expiry (key `expire-hold:{holdId}`). */
  'expire-hold': { readonly holdId: string };
  /** Issue tickets of a paid order (key `issue-tickets:{orderId}`). */
  'issue-tickets': { readonly orderId: string };
  /** One delivery attempt of one webhook event (key `deliver-webhook:{deliveryId}:{attempt}`). */
  'deliver-webhook': { readonly deliveryId: string; readonly attempt: number };
  /** One attempt at a notification's email (key `notification-email:{notificationId}:{attempt}`). */
  'notification-email': { readonly notificationId: string; readonly attempt: number };
  /** Ask the provider for one refund's money and settle it (key `process-refund:{refundId}`). */
  'process-refund': { readonly refundId: string };
  /** One pass of a show's cancellation: release holds, refund paid orders (key `cancel-show:{showId}`). */
  'cancel-show': { readonly showId: string };
}

export type JobName = keyof JobPayloads;

export interface JobOptions {
  /** De-duplication key, e.g. `expire-hold:{holdId}`. */
  readonly key: string;
  /** Epoch ms; absent: as soon as possible. */
  readonly runAt?: number;
}

/**
 * What an adapter that stores a job synchronously (in-process) answers from enqueue and cancel:
 * nothing to wait for and nothing that can fail, so callers need not attach a handler. Saves a
 * promise and a microtask on the hot path of every claim.
 */
export const jobStored: Promise<void> = Promise.resolve();

/** The queue's backlog for the gauges: jobs waiting (due or delayed), and how late the most overdue due one is. */
export interface JobBacklog {
  readonly waiting: number;
  readonly oldestOverdueMs: number;
}

export interface JobQueue {
  enqueue<N extends JobName>(name: N, data: JobPayloads[N], options: JobOptions): Promise<void>;
  /** The backlog, where the adapter can tell (read now and then for the gauges, never per job). */
  backlog?(): Promise<JobBacklog>;
  /** Drops a waiting job by its key (no-op when unknown or already running). */
  cancel(key: string): Promise<void>;
}

/** Runs one job; throws to report a failure (the queue may retry it, bounded). */
export type JobHandler<N extends JobName> = (data: JobPayloads[N]) => Promise<void>;

/**
 * The handlers a worker runs, by job name (src/app/job-handlers.ts). Partial so a job added to
 * JobPayloads by one change gets its handler in the same change; a job with no handler fails.
 */
export type JobHandlers = { readonly [N in JobName]?: JobHandler<N> };

/** The working half of a queue: a process that runs jobs (`ticketrush worker`, or `start` without `--no-jobs`). */
export interface JobRunner {
  /** Starts taking jobs and running them with these handlers, at a bounded concurrency. */
  start(handlers: JobHandlers): void;
  /** Stops taking jobs, waits (bounded) for those running, and lets go of the connection. */
  close(): Promise<void>;
}

/** A queue adapter offers both halves; a process that runs no jobs never calls `start`. */
export interface JobBackend extends JobQueue, JobRunner {}
