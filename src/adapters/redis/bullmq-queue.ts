import { Queue, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { limits } from '../../domain/index.js';
import type { JobBackend, JobHandler, JobHandlers, JobName, JobOptions, JobPayloads } from '../../ports/jobs.js';

export interface BullmqQueueOptions {
  /** redis://host:port/db */
  readonly url: string;
  /** Every key starts with it (config.redis.prefix), so deployments and tests share one Redis. */
  readonly prefix: string;
  readonly now: () => number;
  /** Jobs one process runs at once. */
  readonly concurrency?: number;
  /** Enqueues waiting on Redis at most (default limits.jobEnqueuesInFlightMax). */
  readonly enqueuesInFlightMax?: number;
  readonly onError: (name: string, key: string, error: unknown) => void;
}

/** One queue for every named job: a job is routed to its handler by name. */
const queueName = 'jobs';
/** Finished jobs kept for inspection, bounded by age and count (and with them the de-duplication window of their keys). */
const removeOnComplete = { age: 3_600, count: 10_000 } as const;
const removeOnFail = { age: 7 * 86_400, count: 10_000 } as const;
const attempts = limits.jobAttemptsMax;
const backoff = { type: 'exponential', delay: 1_000 } as const;
const concurrencyDefault = limits.jobConcurrencyMax;
/**
 * Seconds an idle worker long-polls before it looks at the delayed jobs again. A delayed job
 * wakes one worker (BullMQ's marker); when that worker's process dies before the job is due, the
 * others find it at their next poll: this bounds how late a dead process's hold is released.
 */
const drainDelaySeconds = 1;
/** A worker's close waits this long for the jobs it runs; the queue's, for Redis. */
const closeWaitMs = 5_000;
const queueCloseWaitMs = 1_000;

/** Waits for `work` at most `ms` (its failure is not the caller's concern: it is closing). */
function within(ms: number, work: Promise<unknown>): Promise<unknown> {
  return Promise.race([work.catch(() => undefined), new Promise((resolve) => setTimeout(resolve, ms).unref())]);
}

/**
 * BullMQ's custom job ids may not contain ':' (its own key separator), and our keys do
 * (`expire-hold:{holdId}`): escaped one to one, so distinct keys stay distinct ids.
 */
export function jobIdOf(key: string): string {
  return key.replace(/%/g, '%25').replace(/:/g, '%3A');
}

/**
 * Named jobs on BullMQ (Redis): a job survives the process that enqueued it, and any worker runs
 * it. The de-duplication key is the job id: BullMQ adds nothing when a job with that id exists
 * (waiting, delayed, running, or finished and still kept). Delayed jobs carry `runAt`.
 */
export async function createBullmqQueue(options: BullmqQueueOptions): Promise<JobBackend> {
  const prefix = options.prefix.replace(/:+$/, '') || 'ticketrush';
  // The enqueuing connection fails fast when Redis is away (no unbounded offline queue on the hot
  // path): the enqueue rejects, the caller counts it, the sweeps free the hold.
  const producer = new Redis(options.url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: true });
  let lastError: Error | null = null;
  let started = false;
  // ioredis reports every failed (re)connection as an event: kept for the start's message, and
  // counted once running (enqueues fail fast meanwhile, the sweeps cover).
  producer.on('error', (error: Error) => {
    lastError = error;
    if (started) options.onError('queue', '', error);
  });
  try {
    await producer.connect();
    started = true;
  } catch (error) {
    // Unreachable at start: say so and stop, rather than retry for ever in the background.
    producer.disconnect();
    throw (lastError as Error | null) ?? error;
  }
  const queue = new Queue(queueName, { connection: producer, prefix });
  queue.on('error', (error) => options.onError('queue', '', error));
  let worker: Worker | null = null;
  let workerConnection: Redis | null = null;
  let inFlight = 0;

  return {
    async enqueue<N extends JobName>(name: N, data: JobPayloads[N], jobOptions: JobOptions): Promise<void> {
      if (inFlight >= (options.enqueuesInFlightMax ?? limits.jobEnqueuesInFlightMax)) throw new Error(`${inFlight} enqueues already wait on Redis: ${jobOptions.key} is left to the sweeps`);
      const delay = jobOptions.runAt === undefined ? 0 : Math.max(0, jobOptions.runAt - options.now());
      inFlight++;
      try {
        await queue.add(name, data, { jobId: jobIdOf(jobOptions.key), delay, attempts, backoff, removeOnComplete, removeOnFail });
      } finally {
        inFlight--;
      }
    },
    async backlog() {
      // 'wait' is due and not yet taken by a worker; 'delayed' is not due yet. BullMQ keeps no
      // cheap "oldest due" figure, so lateness is left to the expiry gauges (overdue holds).
      const counts = await queue.getJobCounts('wait', 'delayed', 'prioritized');
      return { waiting: (counts.wait ?? 0) + (counts.delayed ?? 0) + (counts.prioritized ?? 0), oldestOverdueMs: 0 };
    },
    async cancel(key) {
      // 0 when the job is unknown or running (locked): both are fine, a running release re-checks the hold.
      await queue.remove(jobIdOf(key));
    },
    start(handlers: JobHandlers) {
      if (worker !== null) return;
      // Workers block on Redis: ioredis must retry for ever on that connection (BullMQ's rule).
      workerConnection = new Redis(options.url, { maxRetriesPerRequest: null });
      worker = new Worker(queueName, async (job: Job) => {
        const handler = handlers[job.name as JobName] as JobHandler<JobName> | undefined;
        if (handler === undefined) throw new Error(`no handler for job ${job.name}`);
        await handler(job.data as JobPayloads[JobName]);
      }, {
        connection: workerConnection, prefix, concurrency: options.concurrency ?? concurrencyDefault, drainDelay: drainDelaySeconds,
      });
      worker.on('failed', (job, error) => options.onError(job?.name ?? 'job', job?.id ?? '', error));
      worker.on('error', (error) => options.onError('worker', '', error));
    },
    async close() {
      // Each step bounded: with Redis away, BullMQ's own close would wait on it for ever. Jobs
      // still running are let go: their locks run out and another worker runs them again.
      if (worker !== null) await within(closeWaitMs, worker.close());
      await within(queueCloseWaitMs, queue.close());
      workerConnection?.disconnect();
      producer.disconnect();
    },
  };
}
