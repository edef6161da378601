import { jobStored, type JobBackend, type JobHandler, type JobHandlers, type JobName, type JobOptions, type JobPayloads } from '../../ports/jobs.js';

/** setTimeout's own ceiling (about 24.8 days); longer delays are re-armed. */
const timerDelayMsMax = 2_147_483_647;
/** Jobs are grouped into slots this wide; a job runs at most this long after its time. */
const slotMs = 100;

interface Job {
  readonly slot: number;
  readonly name: JobName;
  readonly data: unknown;
}

/** The slot of jobs enqueued without a time (never a real slot number). */
const dueNow = -1;

/** Storing a job here cannot fail: every enqueue and cancel answers the port's settled promise. */
const stored = jobStored;

/**
 * In-process named jobs: the embedded default, and a process on PostgreSQL without Redis. Jobs
 * die with the process, which is why every job here has a sweep behind it (the expiry sweep, the
 * ticket sweep); BullMQ takes this adapter's place when Redis is configured.
 *
 * One timer for all jobs: jobs are bucketed into 100 ms slots (rounded up, so none runs early) and
 * a single timer is armed for the earliest slot. In a rush every hold enqueues its release, and a
 * Map insert beats a Timeout object (and its list bookkeeping) per hold. A key already waiting is
 * not enqueued again (de-duplication); cancel it first to move it.
 *
 * Before `start` (a process started with --no-jobs) jobs that fall due are dropped: that process
 * runs no jobs, and the sweeps of the one that does are the net.
 */
export function createInProcessQueue(now: () => number, onError: (name: JobName, key: string, error: unknown) => void): JobBackend {
  const jobs = new Map<string, Job>();
  /** Keys due in each slot; a key may linger in an old slot after a cancel (checked on run). */
  const slots = new Map<number, string[]>();
  /** Slot numbers with keys, ascending. New holds land in the last slot, so this is mostly a push. */
  const order: number[] = [];
  let timer: NodeJS.Timeout | null = null;
  let armedSlot = Infinity;
  let handlers: JobHandlers | null = null;
  /** Keys of jobs due at once (no runAt): run on the next turn, not a slot later. */
  let soon: string[] = [];
  const running = new Set<Promise<void>>();

  const addSlot = (slot: number, key: string): void => {
    const keys = slots.get(slot);
    if (keys !== undefined) {
      keys.push(key);
      return;
    }
    slots.set(slot, [key]);
    let i = order.length;
    while (i > 0 && (order[i - 1] as number) > slot) i--;
    order.splice(i, 0, slot);
  };

  const arm = (): void => {
    const first = order[0];
    if (first === undefined) {
      if (timer !== null) clearTimeout(timer);
      timer = null;
      armedSlot = Infinity;
      return;
    }
    if (timer !== null && armedSlot === first) return;
    if (timer !== null) clearTimeout(timer);
    armedSlot = first;
    const delay = Math.max(0, first * slotMs - now());
    timer = setTimeout(() => {
      timer = null;
      armedSlot = Infinity;
      // Too early: a delay beyond setTimeout's ceiling, or a timer that fired a millisecond ahead
      // of the clock (Node allows that). A hold's release must never run before it is due.
      if (now() < first * slotMs) return arm();
      fire(first);
    }, Math.min(delay, timerDelayMsMax));
    timer.unref();
  };

  const run = (key: string, job: Job): void => {
    const handler = handlers?.[job.name] as JobHandler<JobName> | undefined;
    if (handlers === null) return;
    const done = (handler === undefined ? Promise.reject(new Error(`no handler for job ${job.name}`)) : handler(job.data as JobPayloads[JobName]))
      .catch((error: unknown) => onError(job.name, key, error))
      .finally(() => running.delete(done));
    running.add(done);
  };

  const runSoon = (): void => {
    const keys = soon;
    soon = [];
    for (const key of keys) {
      const job = jobs.get(key);
      if (job === undefined || job.slot !== dueNow) continue;
      jobs.delete(key);
      run(key, job);
    }
  };

  /** Runs every job in the slots up to `upTo`, then arms the timer for what is left. */
  const fire = (upTo: number): void => {
    while (order.length > 0 && (order[0] as number) <= upTo) {
      const slot = order.shift() as number;
      const keys = slots.get(slot) ?? [];
      slots.delete(slot);
      for (const key of keys) {
        const job = jobs.get(key);
        if (job === undefined || job.slot !== slot) continue;
        jobs.delete(key);
        run(key, job);
      }
    }
    arm();
  };

  return {
    enqueue<N extends JobName>(name: N, data: JobPayloads[N], options: JobOptions): Promise<void> {
      if (jobs.has(options.key)) return stored;
      if (options.runAt === undefined) {
        jobs.set(options.key, { slot: dueNow, name, data });
        if (soon.length === 0) setImmediate(runSoon);
        soon.push(options.key);
        return stored;
      }
      const slot = Math.ceil((options.runAt ?? now()) / slotMs);
      jobs.set(options.key, { slot, name, data });
      addSlot(slot, options.key);
      if (slot < armedSlot) arm();
      return stored;
    },
    async backlog() {
      // The earliest slot still listed is due at slot × slotMs; past now it is running late.
      const first = order[0];
      const overdue = soon.length > 0 ? 0 : first === undefined ? 0 : Math.max(0, now() - first * slotMs);
      return { waiting: jobs.size, oldestOverdueMs: overdue };
    },
    cancel(key) {
      // The key stays in its slot's list and is skipped when the slot runs.
      jobs.delete(key);
      return stored;
    },
    start(given) {
      handlers = given;
    },
    async close() {
      if (timer !== null) clearTimeout(timer);
      timer = null;
      armedSlot = Infinity;
      handlers = null;
      jobs.clear();
      slots.clear();
      order.length = 0;
      soon = [];
      await Promise.allSettled([...running]);
    },
  };
}
