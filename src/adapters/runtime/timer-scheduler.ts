import type { JobScheduler } from '../../ports/runtime.js';

/** setTimeout's own ceiling (about 24.8 days); longer delays are re-armed. */
const timerDelayMsMax = 2_147_483_647;

/**
 * In-process delayed jobs. Timers die with the process, which is why every scheduled job here has
 * a sweep behind it; a shared queue (BullMQ) takes this port's place when nodes scale out.
 */
export function createTimerScheduler(now: () => number, onError: (key: string, error: unknown) => void): JobScheduler {
  const timers = new Map<string, NodeJS.Timeout>();
  const arm = (key: string, atMs: number, task: () => Promise<void>): void => {
    const delay = Math.max(0, atMs - now());
    const timer = setTimeout(() => {
      if (delay > timerDelayMsMax) return arm(key, atMs, task);
      timers.delete(key);
      task().catch((error: unknown) => onError(key, error));
    }, Math.min(delay, timerDelayMsMax));
    timer.unref();
    timers.set(key, timer);
  };
  return {
    schedule(key, atMs, task) {
      clearTimeout(timers.get(key));
      arm(key, atMs, task);
    },
    cancel(key) {
      clearTimeout(timers.get(key));
      timers.delete(key);
    },
    stop() {
      for (const timer of timers.values()) clearTimeout(timer);
      timers.clear();
    },
  };
}
