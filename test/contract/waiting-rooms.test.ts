import { settledOutbox } from './settled-outbox.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QueueEntry } from '../../src/domain/index.js';
import { compareQueueOrder } from '../../src/domain/index.js';
import { storeFactories, type TestStoreHandle } from '../support/stores.js';
import { T0, id, newUser } from './fixtures.js';

describe.each(storeFactories)('waiting rooms on $name', (factory) => {
  let h: TestStoreHandle;
  beforeAll(async () => {
    h = await factory.open();
  });
  afterAll(async () => h?.close());

  const settings = { enabled: true, admitPerMinute: 60, admissionSeconds: 600 };
  const join = (activityId: string, userId: string, overrides: Partial<{ band: 0 | 1; draw: number; now: number; queueId: string }> = {}) =>
    h.store.joinQueue({ queueId: overrides.queueId ?? id('que'), activityId, userId, band: overrides.band ?? 1, draw: overrides.draw ?? 0, now: overrides.now ?? T0 });
  const admit = async (activityId: string, limit: number, now: number) => {
    const room = await h.store.getWaitingRoom(activityId);
    return h.store.admitQueue({ activityId, limit, now, admissionMs: 600_000, expectedClock: room?.admitClock ?? 0, carry: 0 });
  };

  it('upserts a room with its version raised by every change, lists the rooms that are on, and writes waiting-room.changed', async () => {
    const activityId = id('act');
    const head = await h.store.outboxHead();
    const first = await h.store.setWaitingRoom({ activityId, settings, now: T0 });
    expect(first).toMatchObject({ activityId, enabled: true, admitPerMinute: 60, admissionSeconds: 600, version: 1, updatedAt: T0, admitClock: 0 });
    const second = await h.store.setWaitingRoom({ activityId, settings: { ...settings, admitPerMinute: 0 }, now: T0 + 1 });
    expect(second).toMatchObject({ version: 2, admitPerMinute: 0 });
    expect(await h.store.getWaitingRoom(activityId)).toEqual(second);
    expect((await h.store.listEnabledWaitingRooms(10_000)).some((r) => r.activityId === activityId)).toBe(true);
    await h.store.setWaitingRoom({ activityId, settings: { ...settings, enabled: false }, now: T0 + 2 });
    expect((await h.store.listEnabledWaitingRooms(10_000)).some((r) => r.activityId === activityId)).toBe(false);
    expect(await h.store.getWaitingRoom(id('none'))).toBeNull();
    const rows = await settledOutbox(h.store, head, 3, (e) => e.type === 'waiting-room.changed' && e.data.activityId === activityId);
    expect(rows.map((e) => [e.data.enabled, e.data.version])).toEqual([[true, 1], [true, 2], [false, 3]]);
  });

  it('writes queue.left with the admission given up when an ADMITTED place leaves, in the move itself; a stale move writes nothing (issue 33)', async () => {
    const activityId = id('act');
    const userId = await newUser(h.store);
    await h.store.setWaitingRoom({ activityId, settings, now: T0 });
    const { entry } = await join(activityId, userId);
    await admit(activityId, 5, T0 + 1_000);
    const admittedEntry = (await h.store.getQueueEntry(entry.queueId))?.entry;
    expect(admittedEntry?.state).toBe('ADMITTED');
    const until = admittedEntry?.admittedUntil as number;
    const head = await h.store.outboxHead();
    const leftAdmission = { userId, activityId, admittedUntil: until };
    expect((await h.store.moveQueueEntry({ queueId: entry.queueId, from: 'ADMITTED', to: 'LEFT', now: T0 + 2_000, leftAdmission })).ok).toBe(true);
    // Already LEFT: stale, and no second row.
    expect((await h.store.moveQueueEntry({ queueId: entry.queueId, from: 'ADMITTED', to: 'LEFT', now: T0 + 3_000, leftAdmission })).ok).toBe(false);
    const rows = await settledOutbox(h.store, head, 1, (e) => e.type === 'queue.left' && (e.data as { userId?: string }).userId === userId);
    expect(rows.map((e) => e.data)).toEqual([{ userId, activityId, admittedUntil: until }]);
  });

  it('gives one place per user and activity, however many joins race, and a new place in another activity', async () => {
    const activityId = id('act');
    const userId = await newUser(h.store);
    const joins = await Promise.all(Array.from({ length: 12 }, () => join(activityId, userId)));
    expect(joins.filter((j) => j.created)).toHaveLength(1);
    expect(new Set(joins.map((j) => j.entry.queueId)).size).toBe(1);
    const other = await join(id('act'), userId);
    expect(other.created).toBe(true);
    expect(other.entry.queueId).not.toBe(joins[0]?.entry.queueId);
  });

  it('counts positions in admission order (band, draw, arrival) and admits in that order, never one place twice', async () => {
    const activityId = id('act');
    const users = await Promise.all(Array.from({ length: 6 }, () => newUser(h.store)));
    // Early joiners (band 0) with draws 30, 10, 20; later arrivals (band 1) at T0+1..3.
    const early = await Promise.all([30, 10, 20].map((draw, i) => join(activityId, users[i] as string, { band: 0, draw, now: T0 - 10 + i })));
    const late = [];
    for (let i = 0; i < 3; i++) late.push(await join(activityId, users[3 + i] as string, { now: T0 + 1 + i }));
    const expected = [...early, ...late].map((j) => j.entry).sort(compareQueueOrder).map((e) => e.queueId);
    const positions = await Promise.all(expected.map(async (q) => (await h.store.getQueueEntry(q))?.position));
    expect(positions).toEqual([1, 2, 3, 4, 5, 6]);
    expect(expected.slice(0, 3)).toEqual([early[1], early[2], early[0]].map((j) => j?.entry.queueId));

    await h.store.setWaitingRoom({ activityId, settings, now: T0 });
    expect(await admit(activityId, 2, T0 + 100)).toEqual({ ok: true, admitted: 2 });
    const states = async () => Promise.all(expected.map(async (q) => (await h.store.getQueueEntry(q))?.entry.state));
    expect(await states()).toEqual(['ADMITTED', 'ADMITTED', 'WAITING', 'WAITING', 'WAITING', 'WAITING']);
    const third = await h.store.getQueueEntry(expected[2] as string);
    expect(third?.position).toBe(1);
    const admitted = (await h.store.getQueueEntry(expected[0] as string))?.entry as QueueEntry;
    expect({ at: admitted.admittedAt, until: admitted.admittedUntil, position: 0 }).toEqual({ at: T0 + 100, until: T0 + 100 + 600_000, position: 0 });
    // A pass with a stale clock (another process ran one meanwhile) admits nothing.
    expect(await h.store.admitQueue({ activityId, limit: 5, now: T0 + 200, admissionMs: 1, expectedClock: 12345, carry: 0 })).toEqual({ ok: false, stale: 'waiting-room' });
    // Racing passes read the same clock: one wins, the others are stale; nobody is admitted twice.
    const room = await h.store.getWaitingRoom(activityId);
    const racing = await Promise.all(Array.from({ length: 4 }, (_, i) =>
      h.store.admitQueue({ activityId, limit: 3, now: T0 + 300 + i, admissionMs: 600_000, expectedClock: room?.admitClock ?? -1, carry: 0.5 })));
    expect(racing.filter((r) => r.ok)).toEqual([{ ok: true, admitted: 3 }]);
    expect((await h.store.getWaitingRoom(activityId))?.admitCarry).toBe(0.5);
    expect(await states()).toEqual(['ADMITTED', 'ADMITTED', 'ADMITTED', 'ADMITTED', 'ADMITTED', 'WAITING']);
    expect(await h.store.queueStats({ activityId, now: T0 + 400 })).toEqual({ waiting: 1, admitted: 5, admittedLastMinute: 5 });
  });

  it('moves a place only from the state it was read in; REJOIN puts it at the back with a new arrival time', async () => {
    const activityId = id('act');
    const [a, b] = await Promise.all([newUser(h.store), newUser(h.store)]);
    const pa = (await join(activityId, a as string, { now: T0 })).entry;
    await join(activityId, b as string, { now: T0 + 1 });
    const left = await h.store.moveQueueEntry({ queueId: pa.queueId, from: 'WAITING', to: 'LEFT', now: T0 + 2 });
    expect(left).toMatchObject({ ok: true, entry: { state: 'LEFT' } });
    expect(await h.store.moveQueueEntry({ queueId: pa.queueId, from: 'WAITING', to: 'LEFT', now: T0 + 3 })).toEqual({ ok: false, stale: 'queue-entry' });
    const back = await h.store.moveQueueEntry({ queueId: pa.queueId, from: 'LEFT', to: 'WAITING', now: T0 + 4, band: 1, draw: 0 });
    expect(back).toMatchObject({ ok: true, entry: { state: 'WAITING', joinedAt: T0 + 4, admittedAt: null, admittedUntil: null } });
    expect((await h.store.getQueueEntry(pa.queueId))?.position).toBe(2);
    // The same user joining again answers the same place, not a new one.
    expect(await join(activityId, a as string)).toMatchObject({ created: false, entry: { queueId: pa.queueId } });
  });

  it('expires lapsed admissions, sells out a line, and blocks one user\'s live places in every activity', async () => {
    const act1 = id('act');
    const act2 = id('act');
    const [u, v] = await Promise.all([newUser(h.store), newUser(h.store)]);
    const u1 = (await join(act1, u as string)).entry;
    const u2 = (await join(act2, u as string)).entry;
    const v1 = (await join(act1, v as string, { now: T0 + 1 })).entry;
    await h.store.setWaitingRoom({ activityId: act1, settings, now: T0 });
    await admit(act1, 1, T0);
    expect((await h.store.getQueueEntry(u1.queueId))?.entry.state).toBe('ADMITTED');
    // The admission (600 s) lapses.
    expect(await h.store.expireAdmissions({ now: T0 + 600_000, limit: 1_000 })).toBeGreaterThanOrEqual(1);
    expect((await h.store.getQueueEntry(u1.queueId))?.entry).toMatchObject({ state: 'EXPIRED', admittedUntil: null });
    expect(await h.store.sellOutQueue({ activityId: act1, now: T0 + 1, limit: 1_000 })).toBe(1);
    expect((await h.store.getQueueEntry(v1.queueId))?.entry.state).toBe('SOLD_OUT');
    // Blocking: the WAITING place in act2 (the EXPIRED one in act1 stays as it is).
    expect(await h.store.blockQueuePlaces({ userId: u as string, now: T0 + 2 })).toBe(1);
    expect((await h.store.getQueueEntry(u2.queueId))?.entry.state).toBe('BLOCKED');
    expect((await h.store.getQueueEntry(u1.queueId))?.entry.state).toBe('EXPIRED');
    expect(await h.store.blockQueuePlaces({ userId: u as string, now: T0 + 3 })).toBe(0);
  });
});
