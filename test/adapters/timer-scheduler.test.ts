import { expect, it } from 'vitest';
import { createTimerScheduler } from '../../src/adapters/runtime/timer-scheduler.js';
import { sleep } from '../support/wait.js';

/** The scheduled half of hold expiry: a release that ran early would find the hold not yet due and be lost. */
it('never runs a job before its time, runs each once, and honours cancel and reschedule', async () => {
  const failures: unknown[] = [];
  const scheduler = createTimerScheduler(Date.now, (_key, error) => failures.push(error));
  const ran = new Map<string, { atMs: number; ranAt: number; times: number }>();
  const base = Math.ceil((Date.now() + 150) / 100) * 100;
  for (let i = 0; i < 300; i++) {
    // Many on a slot boundary exactly, where an early timer would bite.
    const atMs = base + (i % 6) * 100 + (i % 3 === 0 ? 0 : i % 97);
    const key = `job:${i}`;
    scheduler.schedule(key, atMs, async () => {
      const seen = ran.get(key);
      ran.set(key, { atMs, ranAt: Date.now(), times: (seen?.times ?? 0) + 1 });
    });
  }
  scheduler.cancel('job:1');
  scheduler.schedule('job:2', base + 900, async () => {
    ran.set('job:2', { atMs: base + 900, ranAt: Date.now(), times: (ran.get('job:2')?.times ?? 0) + 1 });
  });
  await sleep(base + 1_200 - Date.now());
  scheduler.stop();

  expect(failures).toEqual([]);
  expect(ran.has('job:1')).toBe(false);
  expect(ran.size).toBe(299);
  for (const [key, r] of ran) {
    expect(r.times, key).toBe(1);
    expect(r.ranAt, key).toBeGreaterThanOrEqual(r.atMs);
    expect(r.ranAt - r.atMs, key).toBeLessThan(400);
  }
  expect(ran.get('job:2')?.atMs).toBe(base + 900);
});
