import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gateKeys } from '../../src/adapters/redis/redis-gate.js';
import { adminClient, createShow } from '../support/api-client.js';
import { startTestNode, testRedisUrl, testStore, type TestNode } from '../support/backend.js';
import { crowd } from '../support/crowd.js';
import { redisReachable } from '../support/redis.js';
import { eventually } from '../support/wait.js';

/**
 * Places granted while the gate could not be asked (Redis slow or away, the breaker open: seen on
 * a loaded machine in the three-process relay test, the gate 2 places above PostgreSQL after a
 * round of holds). No relay brings takes of units to the gate, only give-backs, so before the heal
 * the gate kept counting those places free until its built marker lapsed. Here the gate's take of
 * units fails for three holds (a fault on the real port: the command never reached Redis), the
 * database grants them, and the gate must come back to PostgreSQL's count once Redis answers.
 */
const redisUp = testStore !== 'sqlite' && await redisReachable(testRedisUrl);

describe.skipIf(!redisUp)('the gate after grants it could not be asked about', () => {
  let t: TestNode & { baseUrl: string };
  let redis: Redis;

  beforeAll(async () => {
    t = await startTestNode({ store: 'postgres+redis', env: { TICKETRUSH_RATE_LIMITS: 'off' } });
    redis = new Redis(testRedisUrl);
  }, 60_000);
  afterAll(async () => {
    redis?.disconnect();
    await t?.close();
  });

  it('three places granted with the gate failing: once Redis answers, the gate is rebuilt to PostgreSQL\'s count', async () => {
    const gate = t.node.ctx.gate;
    if (gate === undefined) throw new Error('no gate configured');
    const showId = await createShow(await adminClient(t.node.app), { sections: [{ id: 'GA', name: 'Standing', kind: 'GENERAL_ADMISSION', capacity: 20, priceCents: 1000 }] });
    // Built before the faults (the node's connection to Redis may still be coming up).
    await eventually(() => gate.rebuild(showId).then((built) => (built ? true : undefined), () => undefined), 10_000, 'the gate built');
    const unitsKey = gateKeys(t.database.env.TICKETRUSH_REDIS_PREFIX as string, showId)[3] as string;
    const [buyer] = await crowd(t, 1, `missed${randomUUID().slice(0, 6)}-`);
    if (buyer === undefined) throw new Error('no buyer');
    const takeUnits = gate.port.takeUnits.bind(gate.port);
    gate.port.takeUnits = () => Promise.reject(new Error('redis gate failed: Command timed out'));
    try {
      for (let i = 0; i < 3; i++) expect((await buyer.call('POST', `/api/v1/shows/${showId}/holds`, { section: 'GA', quantity: 1 })).status).toBe(201);
    } finally {
      gate.port.takeUnits = takeUnits;
    }
    const store = (await t.node.ctx.store.availability(showId))?.find((s) => s.sectionId === 'GA')?.available;
    expect(store).toBe(17);
    // Redis answers again (here it never went away): the gate is forgotten and rebuilt from the database.
    await eventually(async () => {
      await gate.settled(showId);
      return Number(await redis.hget(unitsKey, 'GA')) === 17 ? true : undefined;
    }, 15_000, 'the gate counts what PostgreSQL counts');
    expect(gate.heals).toBeGreaterThanOrEqual(1);
  }, 60_000);
});
