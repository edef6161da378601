import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CodePool, Store } from '../../src/ports/engine/index.js';
import { storeFactories, type TestStoreHandle } from '../support/stores.js';
import { id, newUser, T0 } from './fixtures.js';

export async function newPool(store: Store, overrides: Partial<CodePool> = {}): Promise<CodePool> {
  const pool: CodePool = {
    poolId: id('cpl'), title: 'Codes', description: '', imageUrl: null,
    saleStartsAt: T0 - 86_400_000, saleEndsAt: T0 + 86_400_000, createdAt: T0 - 2 * 86_400_000, ...overrides,
  };
  await store.createCodePool(pool);
  return pool;
}

/**
 * Code pools (issue 23 item 3): imports are idempotent, a grab pops one free code, a buyer gets one
 * code per pool however many times or how concurrently they ask, and an empty pool is SOLD_OUT.
 */
describe.each(storeFactories)('code pools on $name', (factory) => {
  let h: TestStoreHandle;
  beforeAll(async () => {
    h = await factory.open();
  });
  afterAll(async () => h?.close());

  it('imports codes once: repeats within a batch and across imports are duplicates', async () => {
    const pool = await newPool(h.store);
    expect(await h.store.importCodes({ poolId: pool.poolId, codes: ['A1', 'A2', 'A1', 'A3'] })).toEqual({ ok: true, imported: 3, duplicates: 1 });
    expect(await h.store.importCodes({ poolId: pool.poolId, codes: ['A1', 'A2', 'A3'] })).toEqual({ ok: true, imported: 0, duplicates: 3 });
    expect(await h.store.importCodes({ poolId: pool.poolId, codes: ['A4', 'A3'] })).toEqual({ ok: true, imported: 1, duplicates: 1 });
    expect(await h.store.getCodePool(pool.poolId)).toMatchObject({ ...pool, imported: 4, remaining: 4 });
    // The same code in another pool is another code.
    const other = await newPool(h.store);
    expect(await h.store.importCodes({ poolId: other.poolId, codes: ['A1'] })).toEqual({ ok: true, imported: 1, duplicates: 0 });
    expect(await h.store.importCodes({ poolId: 'cpl_none', codes: ['A1'] })).toEqual({ ok: false, code: 'CODE_POOL_NOT_FOUND' });
    expect(await h.store.getCodePool('cpl_none')).toBeNull();
  });

  it('hands out codes in import order, one per buyer, then SOLD_OUT', async () => {
    const pool = await newPool(h.store, { title: '券码 pool' });
    await h.store.importCodes({ poolId: pool.poolId, codes: ['C1', 'C2'] });
    const [alice, bob, carol] = [await newUser(h.store), await newUser(h.store), await newUser(h.store)];
    const first = await h.store.grabCode({ poolId: pool.poolId, userId: alice, now: T0 + 1 });
    expect(first).toEqual({ ok: true, fresh: true, grabbed: { poolId: pool.poolId, code: 'C1', grabbedAt: T0 + 1 } });
    // The same buyer again: the same code, not a second one (the unique index on (pool, user)).
    expect(await h.store.grabCode({ poolId: pool.poolId, userId: alice, now: T0 + 2 })).toEqual({ ok: true, fresh: false, grabbed: { poolId: pool.poolId, code: 'C1', grabbedAt: T0 + 1 } });
    expect(await h.store.getCodePool(pool.poolId)).toMatchObject({ remaining: 1, imported: 2 });
    expect(await h.store.grabCode({ poolId: pool.poolId, userId: bob, now: T0 + 3 })).toMatchObject({ ok: true, fresh: true, grabbed: { code: 'C2' } });
    expect(await h.store.grabCode({ poolId: pool.poolId, userId: carol, now: T0 + 4 })).toEqual({ ok: false, code: 'SOLD_OUT' });
    expect(await h.store.grabCode({ poolId: 'cpl_none', userId: carol, now: T0 + 4 })).toEqual({ ok: false, code: 'CODE_POOL_NOT_FOUND' });
    expect(await h.store.codeOfUser(pool.poolId, alice)).toEqual({ poolId: pool.poolId, code: 'C1', grabbedAt: T0 + 1 });
    expect(await h.store.codeOfUser(pool.poolId, carol)).toBeNull();
    expect(await h.store.getCodePool(pool.poolId)).toMatchObject({ remaining: 0 });
    // A buyer's codes across pools, newest first, with each pool's title.
    const later = await newPool(h.store, { title: 'Later' });
    await h.store.importCodes({ poolId: later.poolId, codes: ['L1'] });
    await h.store.grabCode({ poolId: later.poolId, userId: alice, now: T0 + 10 });
    expect(await h.store.codesOfUser(alice, { limit: 10, offset: 0 })).toEqual([
      { poolId: later.poolId, code: 'L1', grabbedAt: T0 + 10, poolTitle: 'Later' },
      { poolId: pool.poolId, code: 'C1', grabbedAt: T0 + 1, poolTitle: '券码 pool' },
    ]);
    expect(await h.store.codesOfUser(alice, { limit: 1, offset: 1 })).toHaveLength(1);
  });

  it('one buyer grabbing 50 times at once gets one code; the others stay free', async () => {
    const pool = await newPool(h.store);
    await h.store.importCodes({ poolId: pool.poolId, codes: Array.from({ length: 60 }, (_, i) => `P${i}`) });
    const dave = await newUser(h.store);
    const outcomes = await Promise.all(Array.from({ length: 50 }, (_, i) => h.store.grabCode({ poolId: pool.poolId, userId: dave, now: T0 + i })));
    const codes = new Set(outcomes.map((o) => (o.ok ? o.grabbed.code : o.code)));
    expect(codes.size).toBe(1);
    expect(outcomes.filter((o) => o.ok && o.fresh)).toHaveLength(1);
    expect(await h.store.getCodePool(pool.poolId)).toMatchObject({ remaining: 59 });
  });

  it('many buyers at once on few codes: each code to one buyer, the rest SOLD_OUT', async () => {
    const pool = await newPool(h.store);
    await h.store.importCodes({ poolId: pool.poolId, codes: Array.from({ length: 30 }, (_, i) => `R${i}`) });
    const users = await Promise.all(Array.from({ length: 80 }, () => newUser(h.store)));
    const outcomes = await Promise.all(users.map((userId, i) => h.store.grabCode({ poolId: pool.poolId, userId, now: T0 + i })));
    const won = outcomes.flatMap((o) => (o.ok ? [o.grabbed.code] : []));
    expect(won).toHaveLength(30);
    expect(new Set(won).size).toBe(30);
    expect(outcomes.filter((o) => !o.ok && o.code === 'SOLD_OUT')).toHaveLength(50);
  });

  it('refuses what the application should never send: an over-long code, a window that ends before it starts', async () => {
    const pool = await newPool(h.store);
    await expect(h.store.importCodes({ poolId: pool.poolId, codes: ['x'.repeat(129)] })).rejects.toThrow();
    expect(await h.store.getCodePool(pool.poolId)).toMatchObject({ imported: 0, remaining: 0 });
    await expect(newPool(h.store, { saleEndsAt: T0 - 86_400_000 })).rejects.toThrow();
  });

  it('pages winners by (grabbedAt, code) with a keyset', async () => {
    const pool = await newPool(h.store);
    await h.store.importCodes({ poolId: pool.poolId, codes: ['W1', 'W2', 'W3', 'W4', 'W5'] });
    const users: string[] = [];
    for (let i = 0; i < 5; i++) {
      const userId = await newUser(h.store);
      users.push(userId);
      // Two grabs share a time: the code breaks the tie.
      await h.store.grabCode({ poolId: pool.poolId, userId, now: T0 + Math.floor(i / 2) });
    }
    const first = await h.store.winnersPage(pool.poolId, null, 2);
    expect(first).toEqual([{ username: users[0], code: 'W1', grabbedAt: T0 }, { username: users[1], code: 'W2', grabbedAt: T0 }]);
    const last = first[1]!;
    const second = await h.store.winnersPage(pool.poolId, { at: last.grabbedAt, id: last.code }, 2);
    expect(second.map((w) => w.code)).toEqual(['W3', 'W4']);
    const third = await h.store.winnersPage(pool.poolId, { at: T0 + 1, id: 'W4' }, 2);
    expect(third.map((w) => w.code)).toEqual(['W5']);
    expect(await h.store.winnersPage(pool.poolId, { at: T0 + 2, id: 'W5' }, 2)).toEqual([]);
  });
});
