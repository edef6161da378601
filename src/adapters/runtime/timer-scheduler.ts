import type { JobScheduler } from '../../ports/runtime.js';

/** setTimeout's own ceiling (about 24.8 days); longer delays are re-armed. */
const timerDelayMsMax = 2_147_483_647;
/** Jobs are grouped into slots this wide; a job runs at most this long after its time. */
const slotMs = 100;

interface Job {
  readonly slot: number;
  readonly task: () => Promise<void>;
}

/**
 * In-process delayed jobs. Timers die with the process, which is why every scheduled job here has
 * a sweep behind it; a shared queue (BullMQ) takes this port's place when nodes scale out.
 *
 * One timer for all jobs: jobs are bucketed into 100 ms slots (rounded up, so none runs early) and
 * a single timer is armed for the earliest slot. In a rush every hold schedules its release, and a
 * Map insert beats a Timeout object (and its list bookkeeping) per hold.
 */
export function createTimerScheduler(now: () => number, onError: (key: string, error: unknown) => void): JobScheduler {
  const jobs = new Map<string, Job>();
  /** Keys due in each slot; a key may linger in an old slot after a reschedule (checked on run). */
  const slots = new Map<number, string[]>();
  /** Slot numbers with keys, ascending. New holds land in the last slot, so this is mostly a push. */
  const order: number[] = [];
  let timer: NodeJS.Timeout | null = null;
  let armedSlot = Infinity;

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
        job.task().catch((error: unknown) => onError(key, error));
      }
    }
    arm();
  };

  return {
    schedule(key, atMs, task) {
      const slot = Math.ceil(atMs / slotMs);
      jobs.set(key, { slot, task });
      addSlot(slot, key);
      if (slot < armedSlot) arm();
    },
    cancel(key) {
      // The key stays in its slot's list and is skipped when the slot runs.
      jobs.delete(key);
    },
    stop() {
      if (timer !== null) clearTimeout(timer);
      timer = null;
      armedSlot = Infinity;
      jobs.clear();
      slots.clear();
      order.length = 0;
    },
  };
}
