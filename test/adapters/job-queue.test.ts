import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createInProcessQueue } from '../../src/adapters/runtime/in-process-queue.js';
import { createBullmqQueue, jobIdOf } from '../../src/adapters/redis/bullmq-queue.js';
import type { JobBackend, JobHandlers } from '../../src/ports/jobs.js';
import { testRedisUrl, uniqueRedisPrefix } from '../support/redis.js';
import { eventually, sleep } from '../support/wait.js';

/**
 * Both queue adapters behave alike: a job never runs before its time, runs once per key however
 * often the key is enqueued while it waits, and a cancelled key does not run. BullMQ's jobs also
 * outlive the process (queue) that enqueued them.
 */
interface Run { readonly atMs: number; readonly ranAt: number; times: number }

const prefixes: string[] = [];
const adapters: { name: string; open(prefix?: string): Promise<JobBackend> }[] = [
  { name: 'in-process', open: async () => createInProcessQueue(Date.now, (_n, _k, error) => { throw error; }) },
  {
    name: 'bullmq',
    async open(prefix = uniqueRedisPrefix('jobs')) {
      prefixes.push(prefix);
      return createBullmqQueue({ url: testRedisUrl, prefix, now: Date.now, concurrency: 32, onError: () => undefined });
    },
  },
];

afterAll(async () => {
  // Our keys only: each test's prefix is its own.
  for (const prefix of prefixes) {
    // An ioredis client, not options: BullMQ cannot load ioredis itself under native ESM.
    const connection = new Redis(testRedisUrl, { maxRetriesPerRequest: null });
    const queue = new Queue('jobs', { connection, prefix: prefix.replace(/:+$/, '') });
    await queue.obliterate({ force: true });
    await queue.close();
    connection.disconnect();
  }
});

function recorder(): { handlers: JobHandlers; ran: Map<string, Run>; due: Map<string, number> } {
  const ran = new Map<string, Run>();
  const due = new Map<string, number>();
  const handlers: JobHandlers = {
    'expire-hold': async ({ holdId }) => {
      const seen = ran.get(holdId);
      if (seen !== undefined) seen.times++;
      else ran.set(holdId, { atMs: due.get(holdId) ?? 0, ranAt: Date.now(), times: 1 });
    },
  };
  return { handlers, ran, due };
}

describe.each(adapters)('job queue: $name', (adapter) => {
  it('never runs a job before its time, runs each once, and honours cancel and a move (cancel, then enqueue)', async () => {
    const queue = await adapter.open();
    const { handlers, ran, due } = recorder();
    queue.start(handlers);
    try {
      const base = Math.ceil((Date.now() + 300) / 100) * 100;
      const enqueues: Promise<void>[] = [];
      for (let i = 0; i < 200; i++) {
        // Many on a slot boundary exactly, where an early timer would bite.
        const atMs = base + (i % 6) * 100 + (i % 3 === 0 ? 0 : i % 97);
        due.set(`h${i}`, atMs);
        enqueues.push(queue.enqueue('expire-hold', { holdId: `h${i}` }, { key: `expire-hold:h${i}`, runAt: atMs }));
      }
      await Promise.all(enqueues);
      await queue.cancel('expire-hold:h1');
      await queue.cancel('expire-hold:h2');
      due.set('h2', base + 900);
      await queue.enqueue('expire-hold', { holdId: 'h2' }, { key: 'expire-hold:h2', runAt: base + 900 });
      await eventually(async () => (ran.size >= 199 ? true : undefined), 10_000, '199 jobs run');
      await sleep(300);
      expect(ran.has('h1')).toBe(false);
      expect(ran.size).toBe(199);
      for (const [key, r] of ran) {
        expect(r.times, key).toBe(1);
        expect(r.ranAt, key).toBeGreaterThanOrEqual(r.atMs);
        expect(r.ranAt - r.atMs, key).toBeLessThan(1_000);
      }
      expect(ran.get('h2')?.ranAt).toBeGreaterThanOrEqual(base + 900);
    } finally {
      await queue.close();
    }
  }, 30_000);

  it('runs a key once however often it is enqueued while it waits (the de-duplication key)', async () => {
    const queue = await adapter.open();
    const { handlers, ran } = recorder();
    queue.start(handlers);
    try {
      const runAt = Date.now() + 300;
      await queue.enqueue('expire-hold', { holdId: 'dup' }, { key: 'expire-hold:dup', runAt });
      await Promise.all([1, 2, 3].map(() => queue.enqueue('expire-hold', { holdId: 'dup' }, { key: 'expire-hold:dup', runAt: runAt + 50 })));
      // A no-op while the first waits: not a second run, and not a move to an earlier time either.
      await queue.enqueue('expire-hold', { holdId: 'dup' }, { key: 'expire-hold:dup', runAt: runAt - 250 });
      // Due at once, twice in a row: once too.
      await queue.enqueue('expire-hold', { holdId: 'now' }, { key: 'expire-hold:now' });
      await queue.enqueue('expire-hold', { holdId: 'now' }, { key: 'expire-hold:now' });
      await eventually(async () => (ran.has('dup') && ran.has('now') ? true : undefined), 5_000, 'both run');
      await sleep(500);
      expect(ran.get('dup')?.times).toBe(1);
      expect(ran.get('dup')?.ranAt).toBeGreaterThanOrEqual(runAt);
      expect(ran.get('now')?.times).toBe(1);
    } finally {
      await queue.close();
    }
  }, 15_000);
});

describe('job queue: bullmq across processes', () => {
  it('runs a delayed job enqueued by a process that is gone on another process\'s worker', async () => {
    const prefix = uniqueRedisPrefix('jobs-handover');
    const a = await adapters[1]!.open(prefix);
    const runAt = Date.now() + 400;
    await a.enqueue('expire-hold', { holdId: 'orphan' }, { key: 'expire-hold:orphan', runAt });
    await a.close();
    const b = await adapters[1]!.open(prefix);
    const { handlers, ran } = recorder();
    b.start(handlers);
    try {
      await eventually(async () => (ran.has('orphan') ? true : undefined), 5_000, 'the orphan job');
      expect(ran.get('orphan')!.ranAt).toBeGreaterThanOrEqual(runAt);
    } finally {
      await b.close();
    }
  }, 15_000);

  it('refuses an enqueue at once past its bound of enqueues waiting on Redis (the sweeps do that job)', async () => {
    const prefix = uniqueRedisPrefix('jobs-bound');
    prefixes.push(prefix);
    const queue = await createBullmqQueue({ url: testRedisUrl, prefix, now: Date.now, enqueuesInFlightMax: 2, onError: () => undefined });
    try {
      const answers = await Promise.allSettled([1, 2, 3, 4].map((i) => queue.enqueue('expire-hold', { holdId: `b${i}` }, { key: `expire-hold:b${i}`, runAt: Date.now() + 60_000 })));
      expect(answers.map((a) => a.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'rejected']);
      // Once they are stored, there is room again.
      await queue.enqueue('expire-hold', { holdId: 'b5' }, { key: 'expire-hold:b5', runAt: Date.now() + 60_000 });
    } finally {
      await queue.close();
    }
  });

  it('escapes keys into job ids one to one (BullMQ refuses ":" in a custom id)', () => {
    expect(jobIdOf('expire-hold:hld_1')).toBe('expire-hold%3Ahld_1');
    expect(jobIdOf('a%3Ab')).not.toBe(jobIdOf('a:b'));
  });
});
