import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/ports/engine/index.js';
import { openThroughConfiguration, storeFactories, type TestStoreHandle } from '../support/stores.js';
import { id, T0 } from './fixtures.js';

/**
 * Sweep leases and cursors: a periodic sweep runs in one process at a time. The lease is a
 * compare-and-set on one row; a second store on the same database stands for a second process.
 */
describe.each(storeFactories)('sweep leases on $name', (factory) => {
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

  it('gives a lease to one holder until it runs out, renews it for that holder only, and lets it go', async () => {
    const name = id('sweep');
    const a = h.store;
    expect(await a.acquireLease({ name, holder: 'A', now: T0, ttlMs: 1_000 })).toEqual({ ok: true, until: T0 + 1_000 });
    expect(await other.acquireLease({ name, holder: 'B', now: T0 + 10, ttlMs: 1_000 })).toEqual({ ok: false, holder: 'A', until: T0 + 1_000 });
    expect(await a.acquireLease({ name, holder: 'A', now: T0 + 500, ttlMs: 1_000 })).toEqual({ ok: true, until: T0 + 1_500 });
    expect(await other.acquireLease({ name, holder: 'B', now: T0 + 1_499, ttlMs: 1_000 })).toMatchObject({ ok: false, holder: 'A' });
    // Ran out: B takes it, and A's renewal is refused from then on.
    expect(await other.acquireLease({ name, holder: 'B', now: T0 + 1_500, ttlMs: 1_000 })).toEqual({ ok: true, until: T0 + 2_500 });
    expect(await a.acquireLease({ name, holder: 'A', now: T0 + 1_600, ttlMs: 1_000 })).toEqual({ ok: false, holder: 'B', until: T0 + 2_500 });
    expect(await a.releaseLease({ name, holder: 'A' })).toBe(false);
    expect(await other.releaseLease({ name, holder: 'B' })).toBe(true);
    expect(await a.acquireLease({ name, holder: 'A', now: T0 + 1_700, ttlMs: 1_000 })).toEqual({ ok: true, until: T0 + 2_700 });
  });

  it('of two processes asking at the same moment, exactly one gets the lease', async () => {
    for (let round = 0; round < 20; round++) {
      const name = id('sweep');
      const answers = await Promise.all([
        h.store.acquireLease({ name, holder: 'A', now: T0, ttlMs: 60_000 }),
        other.acquireLease({ name, holder: 'B', now: T0, ttlMs: 60_000 }),
      ]);
      expect(answers.filter((x) => x.ok)).toHaveLength(1);
      // And again while it is held: still one, the same one.
      const again = await Promise.all([
        h.store.acquireLease({ name, holder: 'A', now: T0 + 1, ttlMs: 60_000 }),
        other.acquireLease({ name, holder: 'B', now: T0 + 1, ttlMs: 60_000 }),
      ]);
      expect(again.map((x) => x.ok)).toEqual(answers.map((x) => x.ok));
    }
  });

  it('keeps a sweep cursor in the database, apart from the lease', async () => {
    const name = id('sweep');
    expect(await h.store.sweepCursor(name)).toBeNull();
    await h.store.saveSweepCursor(name, { at: T0 + 5, id: 'hld_b' });
    expect(await other.sweepCursor(name)).toEqual({ at: T0 + 5, id: 'hld_b' });
    expect(await other.acquireLease({ name, holder: 'B', now: T0, ttlMs: 1_000 })).toEqual({ ok: true, until: T0 + 1_000 });
    await other.saveSweepCursor(name, { at: T0 + 9, id: 'hld_c' });
    expect(await h.store.acquireLease({ name, holder: 'A', now: T0 + 1, ttlMs: 1_000 })).toMatchObject({ ok: false, holder: 'B' });
    expect(await h.store.sweepCursor(name)).toEqual({ at: T0 + 9, id: 'hld_c' });
    await h.store.saveSweepCursor(name, null);
    expect(await other.sweepCursor(name)).toBeNull();
  });
});
