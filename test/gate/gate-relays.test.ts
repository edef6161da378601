import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gateKeys } from '../../src/adapters/redis/redis-gate.js';
import { auditConfiguredStore } from '../../src/audit-command.js';
import { relayOnce } from '../../src/app/outbox-relay.js';
import { composeNode } from '../../src/compose.js';
import { loadConfig } from '../../src/config.js';
import { adminClient, createShow } from '../support/api-client.js';
import { startTestNode, testRedisUrl, testStore, type TestNode } from '../support/backend.js';
import { crowd } from '../support/crowd.js';
import type { HttpBuyer } from '../support/http-buyer.js';
import { redisReachable } from '../support/redis.js';
import { sleep } from '../support/wait.js';

/**
 * Issue 33, Why 5: three processes over one PostgreSQL schema and one Redis prefix, each relaying
 * the outbox into the shared gate. A relay moves the shared cursor only after delivering, so when
 * two read the same page both deliver it; before each outbox position was applied once per show
 * (checked inside the gate's Lua script) every release's units were added once per delivering
 * relay, and a 60-place section's gate count grew round after round while PostgreSQL stayed at 60.
 * Here 60 buyers hold a place each and release it, 5 rounds; besides the processes' own periodic
 * relays, the three gate sinks are driven at once after each step (the race, made certain). After
 * every step the gate's count equals PostgreSQL's and `ticketrush audit` finds no `redis_gate`
 * violation.
 */
const capacity = 60;
const buyersCount = 60;
const rounds = 5;
const redisUp = testStore !== 'sqlite' && await redisReachable(testRedisUrl);

type Running = TestNode & { baseUrl: string };

describe.skipIf(!redisUp)('three processes relaying the outbox into one Redis gate', () => {
  let first: Running;
  const others: { node: Running['node']; baseUrl: string; dataDir: string }[] = [];
  let redis: Redis;

  beforeAll(async () => {
    // No per-minute limits: 60 buyers share one address, and each holds 5 times.
    const env = { TICKETRUSH_RATE_LIMITS: 'off' };
    first = await startTestNode({ store: 'postgres+redis', env });
    for (let i = 0; i < 2; i++) {
      const dataDir = mkdtempSync(join(tmpdir(), `ticketrush-relay-${i}-`));
      const node = await composeNode(loadConfig({ PORT: '0', HOST: '127.0.0.1', TICKETRUSH_DEMO: '0', TICKETRUSH_SCRYPT_COST: '1024', ...first.database.env, ...env, TICKETRUSH_DATA_DIR: dataDir }), { logger: false, warmStore: false });
      others.push({ node, dataDir, baseUrl: await node.listen() });
    }
    redis = new Redis(testRedisUrl);
  }, 60_000);

  afterAll(async () => {
    redis?.disconnect();
    for (const o of others) {
      await o.node.stop().catch(() => undefined);
      rmSync(o.dataDir, { recursive: true, force: true });
    }
    await first?.close();
  });

  it('60 buyers × 5 rounds of hold then release: the gate\'s count equals PostgreSQL\'s after every step, audit finds no redis_gate', async () => {
    const nodes = [first, ...others.map((o) => ({ ...first, node: o.node, baseUrl: o.baseUrl }))];
    const showId = await createShow(await adminClient(first.node.app), {
      sections: [{ id: 'GA', name: 'Standing', kind: 'GENERAL_ADMISSION', capacity, priceCents: 1000 }], maxSeatsPerUser: 4,
    });
    const gate = first.node.ctx.gate;
    if (gate === undefined) throw new Error('no gate configured');
    expect(await gate.rebuild(showId)).toBe(true);
    const tag = randomUUID().slice(0, 6);
    // Buyer i holds on process i % 3 and releases on the next one, so every process writes releases.
    const buyers: HttpBuyer[][] = [];
    for (const [k, n] of nodes.entries()) buyers.push(await crowd(n, buyersCount / 3, `rl${tag}${k}-`));
    const unitsKey = gateKeys(first.database.env.TICKETRUSH_REDIS_PREFIX as string, showId)[3] as string;
    const sinks = nodes.map((n) => {
      if (n.node.gateSink === null) throw new Error('no gate sink');
      return { ctx: n.node.ctx, sink: n.node.gateSink };
    });

    /** Every process's relay delivers at once until the cursor is caught up (they race for the same pages). */
    async function relayRace(): Promise<void> {
      for (let pass = 0; pass < 250; pass++) {
        const done = await Promise.all(sinks.map(({ ctx, sink }) => relayOnce(ctx, [sink])));
        if (done.every((d) => d[0]?.state === 'caught-up' && d[0].delivered === 0)) return;
        // PostgreSQL's feed shows a row once every older transaction on the cluster has ended.
        await sleep(20);
      }
      throw new Error('the relays did not catch up');
    }

    /** The gate against PostgreSQL, after the relays caught up; and the auditor's verdict. */
    async function expectAgree(step: string, expected: number): Promise<string> {
      await relayRace();
      const store = (await first.node.ctx.store.availability(showId))?.find((s) => s.sectionId === 'GA')?.available;
      // A place granted while Redis could not answer in time (a loaded machine: three servers in
      // this process) is healed by a rebuild once it answers: the gate is exact again a moment later.
      let inGate = Number(await redis.hget(unitsKey, 'GA'));
      for (let i = 0; i < 200 && inGate !== expected; i++) {
        await sleep(50);
        await Promise.all(nodes.map((n) => n.node.ctx.gate?.settled(showId)));
        inGate = Number(await redis.hget(unitsKey, 'GA'));
      }
      if (inGate !== expected) {
        const keys = gateKeys(first.database.env.TICKETRUSH_REDIS_PREFIX as string, showId);
        console.log('gate disagrees', step, { built: await redis.exists(keys[0] as string), gen: await redis.get(keys[4] as string), applied: await redis.get(keys[6] as string), lease: await redis.get(keys[5] as string) },
          nodes.map((n) => ({ rebuilds: n.node.ctx.gate?.rebuilds, misses: n.node.ctx.gate?.rebuildMisses, heals: n.node.ctx.gate?.heals, claims: n.node.ctx.gate?.claims, lost: n.node.ctx.gate?.writesLost })));
      }
      expect({ step, store, gate: inGate }).toEqual({ step, store: expected, gate: expected });
      const audit = await auditConfiguredStore(first.node.config);
      expect({ step, redis_gate: audit.counts.redis_gate, violations: audit.violations.filter((v) => v.check === 'redis_gate') }).toEqual({ step, redis_gate: 0, violations: [] });
      return `${step}: gate ${inGate}, store ${store ?? 'none'}, audit ${audit.passed ? 'passed' : JSON.stringify(audit.counts)}`;
    }

    /** Each process's read model has caught up with the others' releases (else it refuses in front). */
    async function readModelsSee(available: number): Promise<void> {
      for (const n of nodes) {
        for (let i = 0; ; i++) {
          const body = (await (await fetch(`${n.baseUrl}/api/v1/shows/${showId}/availability`)).json()) as { sections: { id: string; available: number }[] };
          if (body.sections.find((s) => s.id === 'GA')?.available === available) break;
          if (i > 200) throw new Error(`a read model still shows ${JSON.stringify(body.sections)}`);
          await sleep(25);
        }
      }
    }

    const figures: string[] = [await expectAgree('start', capacity)];
    for (let round = 1; round <= rounds; round++) {
      const holds = await Promise.all(buyers.flatMap((group) => group.map(async (buyer) => {
        const reply = await buyer.call('POST', `/api/v1/shows/${showId}/holds`, { section: 'GA', quantity: 1 });
        expect({ status: reply.status, code: reply.body?.code }).toEqual({ status: 201, code: undefined });
        return reply.body.holdId as string;
      })));
      figures.push(await expectAgree(`round ${round} held`, 0));
      await Promise.all(buyers.flatMap((group, k) => group.map(async (buyer, i) => {
        const other = nodes[(k + 1) % nodes.length] as Running;
        buyer.reconnect(other.baseUrl);
        const released = await buyer.call('DELETE', `/api/v1/holds/${holds[k * group.length + i] as string}`);
        buyer.reconnect((nodes[k] as Running).baseUrl);
        expect(released.status).toBe(200);
      })));
      figures.push(await expectAgree(`round ${round} released`, capacity));
      await readModelsSee(capacity);
    }
    console.log(`gate over 3 relaying processes, ${buyersCount} buyers x ${rounds} rounds on ${capacity} places:\n  ${figures.join('\n  ')}`);
  }, 180_000);
});
