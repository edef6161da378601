import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newBlock, type BlockEntry, type BlockTarget } from '../../src/domain/index.js';
import { storeFactories, type TestStoreHandle } from '../support/stores.js';
import { id, newUser, T0 } from './fixtures.js';

const entry = (target: BlockTarget, overrides: Partial<{ expiresAt: number | null; now: number }> = {}): BlockEntry => {
  const built = newBlock({ blockId: id('blk'), target, reason: 'contract', createdBy: 'admin', expiresAt: overrides.expiresAt ?? null, now: overrides.now ?? T0 });
  if (!built.ok) throw new Error(built.error.message);
  return built.value;
};

describe.each(storeFactories)('blocklist on $name', (factory) => {
  let h: TestStoreHandle;
  beforeAll(async () => {
    h = await factory.open();
  });
  afterAll(async () => h?.close());

  it('stores entries of both kinds and lists the active ones, oldest first', async () => {
    const userId = await newUser(h.store);
    const byUser = entry({ kind: 'USER', userId, username: 'someone' }, { now: T0 + 1 });
    const byIp = entry({ kind: 'IP', cidr: '203.0.113.0/24' }, { now: T0 + 2, expiresAt: T0 + 60_000 });
    await h.store.addBlock(byUser);
    await h.store.addBlock(byIp);
    expect(await h.store.getBlock(byUser.blockId)).toEqual(byUser);
    expect(await h.store.getBlock(byIp.blockId)).toEqual(byIp);
    const active = await h.store.listActiveBlocks(1000);
    expect(active.map((e) => e.blockId)).toEqual(expect.arrayContaining([byUser.blockId, byIp.blockId]));
    expect(active.findIndex((e) => e.blockId === byUser.blockId)).toBeLessThan(active.findIndex((e) => e.blockId === byIp.blockId));
    expect(await h.store.getBlock('blk_missing')).toBeNull();
  });

  it('lifts an ACTIVE entry once: a second lift is stale, an unknown one BLOCK_NOT_FOUND', async () => {
    const e = entry({ kind: 'IP', cidr: '198.51.100.7' });
    await h.store.addBlock(e);
    expect(await h.store.liftBlock({ blockId: e.blockId, liftedAt: T0 + 5 })).toEqual({ ok: true });
    expect(await h.store.getBlock(e.blockId)).toEqual({ ...e, status: 'LIFTED', liftedAt: T0 + 5 });
    expect(await h.store.liftBlock({ blockId: e.blockId, liftedAt: T0 + 6 })).toEqual({ ok: false, stale: 'block' });
    expect(await h.store.liftBlock({ blockId: 'blk_missing', liftedAt: T0 })).toEqual({ ok: false, code: 'BLOCK_NOT_FOUND' });
    expect((await h.store.listActiveBlocks(1000)).map((x) => x.blockId)).not.toContain(e.blockId);
  });

  it('lifts exactly once under concurrent lifts', async () => {
    const e = entry({ kind: 'IP', cidr: '198.51.100.8' });
    await h.store.addBlock(e);
    const outcomes = await Promise.all(Array.from({ length: 8 }, (_, i) => h.store.liftBlock({ blockId: e.blockId, liftedAt: T0 + i })));
    expect(outcomes.filter((o) => o.ok)).toHaveLength(1);
  });

  it('moves its stamp on every add and every lift, and only then', async () => {
    const s0 = await h.store.blocklistStamp();
    expect(await h.store.blocklistStamp()).toBe(s0);
    const e = entry({ kind: 'IP', cidr: '192.0.2.0/28' });
    await h.store.addBlock(e);
    const s1 = await h.store.blocklistStamp();
    expect(s1).not.toBe(s0);
    await h.store.liftBlock({ blockId: e.blockId, liftedAt: T0 + 1 });
    const s2 = await h.store.blocklistStamp();
    expect(new Set([s0, s1, s2]).size).toBe(3);
  });

  it('refuses a USER entry naming no user (foreign key), storing nothing', async () => {
    const before = await h.store.blocklistStamp();
    await expect(h.store.addBlock(entry({ kind: 'USER', userId: 'usr_missing', username: 'ghost' }))).rejects.toThrow();
    expect(await h.store.blocklistStamp()).toBe(before);
  });
});
