import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { GateUnavailableError, gateKeys, openRedisGate } from '../../src/adapters/redis/redis-gate.js';
import { testRedisUrl } from '../support/backend.js';
import { deleteRedisKeys, redisReachable } from '../support/redis.js';

/**
 * The gate's Lua scripts against a real Redis (the shared one, under a key prefix of this file's
 * own): taking, refusing, giving back, the version and rebuild fences, and "not built refuses
 * nothing". Each case uses a show id of its own.
 */
const redisUp = await redisReachable(testRedisUrl);
const prefix = `test:gate:${randomBytes(4).toString('hex')}:`;
const gate = openRedisGate({ url: testRedisUrl, prefix, commandTimeoutMs: 1_000 });
let showId: string;

async function ready(): Promise<void> {
  for (let i = 0; i < 100 && gate.health() !== 'up'; i++) await new Promise((r) => setTimeout(r, 20));
}

/** Builds the show: `taken` seat indexes at version 1 among `seats`, and the given counted sections. */
async function build(seats: number, taken: number[] = [], units: { sectionId: string; left: number }[] = []): Promise<void> {
  const begun = await gate.beginRebuild(showId);
  if (begun.kind !== 'fence') throw new Error(`expected a fence, got ${begun.kind}`);
  const ok = await gate.rebuildStep(showId, {
    fence: begun.fence, from: 0,
    taken: Array.from({ length: seats }, (_, i) => taken.includes(i)),
    versions: Array.from({ length: seats }, (_, i) => (taken.includes(i) ? 1 : 0)),
    finish: { unitsLeft: units },
  });
  expect(ok).toBe(true);
}

beforeEach(async () => {
  if (redisUp) await ready();
  showId = `show-${randomBytes(4).toString('hex')}`;
});
afterAll(async () => {
  await gate.close();
  if (redisUp) await deleteRedisKeys(testRedisUrl, prefix);
});

describe.skipIf(!redisUp)('seats', () => {
  it('refuses nothing while not built', async () => {
    expect(await gate.takeSeats(showId, [0, 1])).toEqual({ kind: 'notBuilt' });
    expect(await gate.takeUnits(showId, 'GA', 5)).toEqual({ kind: 'notBuilt' });
  });

  it('takes free seats, refuses taken ones without changing anything, gives back', async () => {
    await build(10, [3]);
    expect(await gate.takeSeats(showId, [3, 4])).toEqual({ kind: 'refused', indexes: [3], versions: [1] });
    // The refusal took nothing: seat 4 is still free.
    expect(await gate.takeSeats(showId, [4, 5])).toEqual({ kind: 'taken', versions: [0, 0] });
    expect(await gate.takeSeats(showId, [5])).toEqual({ kind: 'refused', indexes: [5], versions: [0] });
    await gate.giveBackSeats(showId, [{ index: 4, version: 0 }, { index: 5, version: 0 }]);
    expect(await gate.takeSeats(showId, [4, 5])).toMatchObject({ kind: 'taken' });
    expect(await gate.redis.bitcount(gateKeys(prefix, showId)[1] as string)).toBe(3);
  });

  it('a give-back never frees a seat a newer change took meanwhile (version fence)', async () => {
    await build(4);
    expect(await gate.takeSeats(showId, [1])).toEqual({ kind: 'taken', versions: [0] });
    // The database says seat 1 is held at version 1 (someone else's commit, relayed).
    await gate.applyChanges(showId, { seats: [{ index: 1, taken: true, version: 1 }], unitsBack: [] });
    await gate.giveBackSeats(showId, [{ index: 1, version: 0 }]);
    expect(await gate.takeSeats(showId, [1])).toEqual({ kind: 'refused', indexes: [1], versions: [1] });
  });

  it('applies changes fenced by version: an old or repeated change never overwrites a newer one', async () => {
    await build(4);
    await gate.applyChanges(showId, { seats: [{ index: 2, taken: true, version: 5 }], unitsBack: [] });
    await gate.applyChanges(showId, { seats: [{ index: 2, taken: false, version: 4 }], unitsBack: [] });
    expect(await gate.takeSeats(showId, [2])).toEqual({ kind: 'refused', indexes: [2], versions: [5] });
    await gate.applyChanges(showId, { seats: [{ index: 2, taken: false, version: 6 }], unitsBack: [] });
    expect(await gate.takeSeats(showId, [2])).toEqual({ kind: 'taken', versions: [6] });
  });

  it('a slow rebuild does not overwrite newer seat state', async () => {
    const begun = await gate.beginRebuild(showId);
    if (begun.kind !== 'fence') throw new Error('expected a fence');
    // While the snapshot is read, seat 0 is released at version 3 and relayed.
    await gate.applyChanges(showId, { seats: [{ index: 0, taken: false, version: 3 }], unitsBack: [] });
    expect(await gate.rebuildStep(showId, { fence: begun.fence, from: 0, taken: [true, true], versions: [2, 2], finish: { unitsLeft: [] } })).toBe(true);
    expect(await gate.takeSeats(showId, [0])).toEqual({ kind: 'taken', versions: [3] });
    expect(await gate.takeSeats(showId, [1])).toEqual({ kind: 'refused', indexes: [1], versions: [2] });
  });

  it('one rebuild at a time per show across processes; a built show needs none', async () => {
    const first = await gate.beginRebuild(showId);
    expect(first.kind).toBe('fence');
    // Another process (its own owner id) finds the show busy; this one renews its own lease.
    const other = openRedisGate({ url: testRedisUrl, prefix, commandTimeoutMs: 1_000 });
    if (other.redis.status !== 'ready') await once(other.redis, 'ready');
    try {
      expect(await other.beginRebuild(showId)).toEqual({ kind: 'busy' });
    } finally {
      await other.close();
    }
    expect((await gate.beginRebuild(showId)).kind).toBe('fence');
    if (first.kind !== 'fence') return;
    expect(await gate.rebuildStep(showId, { fence: first.fence, from: 0, taken: [], versions: [], finish: { unitsLeft: [] } })).toBe(true);
    expect(await gate.beginRebuild(showId)).toEqual({ kind: 'built' });
  });

  it('a flush makes the show not built: it refuses nothing until rebuilt', async () => {
    await build(4, [0, 1, 2, 3]);
    expect(await gate.takeSeats(showId, [0])).toMatchObject({ kind: 'refused' });
    await gate.redis.del(...gateKeys(prefix, showId));
    expect(await gate.takeSeats(showId, [0])).toEqual({ kind: 'notBuilt' });
  });
});

describe.skipIf(!redisUp)('units', () => {
  it('takes, refuses short with what is left, gives back capped by the database', async () => {
    await build(0, [], [{ sectionId: 'GA', left: 5 }]);
    expect(await gate.takeUnits(showId, 'GA', 4)).toEqual({ kind: 'taken' });
    expect(await gate.takeUnits(showId, 'GA', 2)).toEqual({ kind: 'short', left: 1 });
    await gate.giveBackUnits(showId, 'GA', 4);
    expect(await gate.takeUnits(showId, 'GA', 5)).toEqual({ kind: 'taken' });
    await gate.giveBackUnits(showId, 'GA', 5, 2);
    expect(await gate.takeUnits(showId, 'GA', 3)).toEqual({ kind: 'short', left: 2 });
    // A section the gate does not know: the database decides.
    expect(await gate.takeUnits(showId, 'NOPE', 1)).toEqual({ kind: 'notBuilt' });
  });

  it('units given back (release, expiry) are added; a claim\'s units are not counted twice', async () => {
    await build(0, [], [{ sectionId: 'GA', left: 0 }]);
    await gate.applyChanges(showId, { seats: [], unitsBack: [{ sectionId: 'GA', units: 3 }] });
    expect(await gate.takeUnits(showId, 'GA', 4)).toEqual({ kind: 'short', left: 3 });
  });

  it('each outbox position is applied once per show: a relay that lost the race for a page adds nothing (issue 33)', async () => {
    await build(0, [], [{ sectionId: 'GA', left: 0 }]);
    const back = (position: string, units = 2) => gate.applyChanges(showId, { position, seats: [], unitsBack: [{ sectionId: 'GA', units }] });
    expect(await back('7:41')).toBe(true);
    // The same page delivered by a second and a third process's relay.
    expect(await back('7:41')).toBe(false);
    expect(await back('7:41')).toBe(false);
    // An older position (a relay still behind) is dropped; a later one, compared number by number
    // (10 after 9, an xid8 beyond 2^53 digit by digit), applies.
    expect(await back('7:40')).toBe(false);
    expect(await back('10:1')).toBe(true);
    expect(await back('9:99')).toBe(false);
    expect(await back('18446744073709551614:1')).toBe(true);
    expect(await back('18446744073709551613:2')).toBe(false);
    expect(await gate.takeUnits(showId, 'GA', 7)).toEqual({ kind: 'short', left: 6 });
    // Seats of an applied position are dropped too (they are versioned anyway).
    expect(await gate.applyChanges(showId, { position: '5', seats: [{ index: 0, taken: true, version: 9 }], unitsBack: [] })).toBe(false);
    await expect(gate.applyChanges(showId, { position: 'x:1', seats: [], unitsBack: [{ sectionId: 'GA', units: 1 }] })).rejects.toBeInstanceOf(RangeError);
  });

  it('a rebuild marks the changes in its snapshot applied: a relay behind it adds them no second time', async () => {
    await gate.applyChanges(showId, { position: '3', seats: [], unitsBack: [{ sectionId: 'GA', units: 1 }] });
    const begun = await gate.beginRebuild(showId);
    if (begun.kind !== 'fence') throw new Error('expected a fence');
    // Read before the snapshot: changes up to 20 are in its count of 10.
    expect(await gate.rebuildStep(showId, { fence: begun.fence, from: 0, taken: [], versions: [], finish: { unitsLeft: [{ sectionId: 'GA', left: 10 }], appliedThrough: '20' } })).toBe(true);
    expect(await gate.applyChanges(showId, { position: '12', seats: [], unitsBack: [{ sectionId: 'GA', units: 4 }] })).toBe(false);
    expect(await gate.applyChanges(showId, { position: '21', seats: [], unitsBack: [{ sectionId: 'GA', units: 1 }] })).toBe(true);
    expect(await gate.takeUnits(showId, 'GA', 12)).toEqual({ kind: 'short', left: 11 });
  });

  it('units given back while a rebuild reads the database break its fence', async () => {
    const begun = await gate.beginRebuild(showId);
    if (begun.kind !== 'fence') throw new Error('expected a fence');
    await gate.applyChanges(showId, { seats: [], unitsBack: [{ sectionId: 'GA', units: 2 }] });
    expect(await gate.rebuildStep(showId, { fence: begun.fence, from: 0, taken: [], versions: [], finish: { unitsLeft: [{ sectionId: 'GA', left: 0 }] } })).toBe(false);
    expect(await gate.takeUnits(showId, 'GA', 1)).toEqual({ kind: 'notBuilt' });
  });
});

describe('Redis unreachable', () => {
  it('fails fast, then the breaker skips Redis without waiting', async () => {
    const away = openRedisGate({ url: 'redis://127.0.0.1:1', prefix, commandTimeoutMs: 50, breakerFailures: 2, breakerOpenMs: 60_000 });
    try {
      for (let i = 0; i < 3; i++) await expect(away.takeSeats('s', [0])).rejects.toBeInstanceOf(GateUnavailableError);
      const started = performance.now();
      await expect(away.takeUnits('s', 'GA', 1)).rejects.toThrow(/circuit open/);
      expect(performance.now() - started).toBeLessThan(5);
      expect(away.health()).toBe('down');
    } finally {
      await away.close();
    }
  });
});
