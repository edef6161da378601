import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBackgroundJobs, type PeriodicSweep } from '../../src/app/background-jobs.js';
import type { Store } from '../../src/ports/engine/index.js';
import { openThroughConfiguration, storeFactories, type TestStoreHandle } from '../support/stores.js';
import { sleep } from '../support/wait.js';

/**
 * A periodic sweep runs in one process at a time: two processes (two stores on one database, each
 * with its own runner and holder) tick the same sweep every few milliseconds, and its runs never
 * overlap, while both processes get to run it.
 */
describe.each(storeFactories)('singleton sweeps on $name', (factory) => {
  let h: TestStoreHandle;
  let other: Store;
  beforeAll(async () => {
    h = await factory.open();
    other = await openThroughConfiguration(h.database);
  });
  afterAll(async () => {
    await other?.close();
    await h?.close();
  });

  it('never runs one sweep in two processes at once', async () => {
    let inside = 0;
    let most = 0;
    const runsBy = new Map<string, number>();
    const sweep = (holder: string): PeriodicSweep => ({
      name: `singleton-${Date.now()}`,
      everyMs: 3,
      async run() {
        inside++;
        most = Math.max(most, inside);
        runsBy.set(holder, (runsBy.get(holder) ?? 0) + 1);
        await sleep(15);
        inside--;
      },
    });
    const errors: unknown[] = [];
    const clock = { now: () => Date.now() };
    const name = sweep('').name;
    const a = startBackgroundJobs({ store: h.store, clock }, [{ ...sweep('A'), name }], 'A', (_job, error) => errors.push(error));
    const b = startBackgroundJobs({ store: other, clock }, [{ ...sweep('B'), name }], 'B', (_job, error) => errors.push(error));
    await sleep(2_000);
    await Promise.all([a.stop(), b.stop()]);
    expect(errors).toEqual([]);
    expect(most).toBe(1);
    expect((runsBy.get('A') ?? 0) + (runsBy.get('B') ?? 0)).toBeGreaterThan(20);
    // Let go after every run, so either process may run the next one.
    expect(runsBy.get('A') ?? 0).toBeGreaterThan(0);
    expect(runsBy.get('B') ?? 0).toBeGreaterThan(0);
  }, 20_000);
});
