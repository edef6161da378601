import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openPgStore, type PgStore } from '../../src/adapters/postgres/pg-store.js';
import { createPgPool } from '../../src/adapters/postgres/pool.js';
import { inTransaction } from '../../src/adapters/postgres/transaction.js';
import { createShow } from '../../src/domain/index.js';
import { StoreBusyError, type Store } from '../../src/ports/engine/index.js';
import { dropSchema, postgresReachable, uniqueSchemaName } from '../support/postgres.js';

/** PostgreSQL-only behaviour of the adapter: bounded waits, retries, the LAST_ADMIN guard under real concurrency. */
const url = process.env.TICKETRUSH_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const reachable = await postgresReachable(url);
const T0 = Date.UTC(2030, 0, 1);

describe.skipIf(!reachable.ok)('PostgreSQL adapter', () => {
  const schemas: string[] = [];
  const closers: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const close of closers) await close();
    for (const schema of schemas) await dropSchema(url, schema);
  });

  async function open(overrides: { lockTimeoutMs?: number; statementTimeoutMs?: number; idleTimeoutMs?: number; warm?: boolean } = {}): Promise<{ store: PgStore; schema: string }> {
    const schema = uniqueSchemaName();
    schemas.push(schema);
    const store = await openPgStore({
      url, schema, poolMax: 4, checkoutPoolMax: 2, connectTimeoutMs: 5_000, idleTimeoutMs: overrides.idleTimeoutMs ?? 5_000, retriesMax: 3,
      lockTimeoutMs: overrides.lockTimeoutMs ?? 200, statementTimeoutMs: overrides.statementTimeoutMs ?? 5_000,
      ...(overrides.warm === undefined ? {} : { warm: overrides.warm }),
    });
    closers.push(() => store.close());
    return { store, schema };
  }

  async function client(schema: string): Promise<pg.Client> {
    const c = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` });
    await c.connect();
    closers.push(() => c.end());
    return c;
  }

  async function showWithHold(store: Store): Promise<string> {
    const made = createShow({
      showId: 'show-1', title: 't', venue: 'v', city: 'c', startsAt: T0 + 86_400_000 * 10, saleStartsAt: T0 - 1_000, saleEndsAt: T0 + 86_400_000, maxSeatsPerUser: null,
      seatMap: { sections: [{ id: 'A', name: 'A', kind: 'SEATED', rows: 1, seatsPerRow: 10, priceCents: 100, sellBy: 'SEAT', accessible: [] }] },
    }, T0);
    if (!made.ok) throw new Error('show');
    await store.createShow(made.value);
    await store.insertUser({ userId: 'u1', username: 'u1', passwordHash: 'x', role: 'BUYER', createdAt: T0 });
    const claim = await store.claimSeats({ holdId: 'h1', showId: 'show-1', userId: 'u1', now: T0, expiresAt: T0 + 60_000, userUnitsMax: 10, seatIds: ['A-1-1'] });
    if (!claim.ok) throw new Error('claim');
    return 'h1';
  }

  it('answers BUSY within about lock_timeout when a row it needs is locked, instead of waiting', async () => {
    const { store, schema } = await open({ lockTimeoutMs: 200 });
    const holdId = await showWithHold(store);
    const other = await client(schema);
    await other.query('BEGIN');
    await other.query('SELECT * FROM holds WHERE hold_id = $1 FOR UPDATE', [holdId]);
    const started = Date.now();
    await expect(store.lapseHold({ holdId, event: 'RELEASE', expectedExpiresAt: T0 + 60_000, now: T0 + 1 })).rejects.toBeInstanceOf(StoreBusyError);
    expect(Date.now() - started).toBeLessThan(1_500);
    await other.query('ROLLBACK');
    // Once the lock is gone the same operation goes through, exactly once.
    expect((await store.lapseHold({ holdId, event: 'RELEASE', expectedExpiresAt: T0 + 60_000, now: T0 + 1 })).ok).toBe(true);
  });

  it('answers BUSY when a statement runs past statement_timeout', async () => {
    const schema = uniqueSchemaName();
    const pool = createPgPool({ url, schema: 'public', poolMax: 1, connectTimeoutMs: 2_000, idleTimeoutMs: 2_000, lockTimeoutMs: 200, statementTimeoutMs: 150 });
    closers.push(() => pool.end());
    void schema;
    const started = Date.now();
    const result = await inTransaction(pool, (c) => c.query('SELECT pg_sleep(3)'));
    expect(result).toEqual({ kind: 'busy', reason: 'statement_timeout' });
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('retries a serialization failure or deadlock a bounded number of times, then answers BUSY', async () => {
    const pool = createPgPool({ url, schema: 'public', poolMax: 2, connectTimeoutMs: 2_000, idleTimeoutMs: 2_000, lockTimeoutMs: 200, statementTimeoutMs: 2_000 });
    closers.push(() => pool.end());
    const failing = (times: number, code: string) => {
      let calls = 0;
      return {
        calls: () => calls,
        work: async (c: pg.PoolClient) => {
          calls++;
          await c.query('SELECT 1');
          if (calls <= times) throw Object.assign(new Error('simulated'), { code });
          return 'done';
        },
      };
    };
    const twice = failing(2, '40001');
    expect(await inTransaction(pool, twice.work, { retriesMax: 3, retryBaseDelayMs: 1 })).toEqual({ kind: 'done', value: 'done' });
    expect(twice.calls()).toBe(3);
    const always = failing(100, '40P01');
    expect(await inTransaction(pool, always.work, { retriesMax: 3, retryBaseDelayMs: 1 })).toEqual({ kind: 'busy', reason: 'retries_exhausted' });
    expect(always.calls()).toBe(4);
  });

  it('retries a real deadlock: both transactions finish, one of them on its second attempt', async () => {
    const schema = uniqueSchemaName();
    schemas.push(schema);
    const setup = new pg.Client({ connectionString: url });
    await setup.connect();
    await setup.query(`CREATE SCHEMA ${schema}; CREATE TABLE ${schema}.pair (id int PRIMARY KEY, n int NOT NULL); INSERT INTO ${schema}.pair VALUES (1, 0), (2, 0)`);
    await setup.end();
    // lock_timeout above the deadlock detector's 1 s, so PostgreSQL reports the deadlock (40P01).
    const pool = createPgPool({ url, schema, poolMax: 2, connectTimeoutMs: 5_000, idleTimeoutMs: 2_000, lockTimeoutMs: 5_000, statementTimeoutMs: 10_000 });
    closers.push(() => pool.end());
    let attempts = 0;
    const crosswise = (first: number, second: number) => inTransaction(pool, async (c) => {
      attempts++;
      await c.query('UPDATE pair SET n = n + 1 WHERE id = $1', [first]);
      await new Promise((resolve) => setTimeout(resolve, 200));
      await c.query('UPDATE pair SET n = n + 1 WHERE id = $1', [second]);
    }, { retriesMax: 3, retryBaseDelayMs: 50 });
    const results = await Promise.all([crosswise(1, 2), crosswise(2, 1)]);
    expect(results.map((r) => r.kind)).toEqual(['done', 'done']);
    expect(attempts).toBeGreaterThanOrEqual(3);
    const { rows } = await pool.query<{ n: number }>('SELECT n FROM pair ORDER BY id');
    expect(rows.map((r) => r.n)).toEqual([2, 2]);
  });

  it('never leaves zero admins when two admins demote each other at the same moment (ADMIN rows locked before counting)', async () => {
    const { store, schema } = await open({ lockTimeoutMs: 2_000 });
    const sql = await client(schema);
    for (let round = 0; round < 20; round++) {
      // The two admins of this round are the only ones (earlier rounds' survivor demoted directly).
      await sql.query("UPDATE users SET role = 'BUYER' WHERE role = 'ADMIN'");
      const ids = [`a${round}x`, `a${round}y`];
      for (const id of ids) await store.insertUser({ userId: id, username: id, passwordHash: 'x', role: 'ADMIN', createdAt: T0 });
      const outcomes = await Promise.all(ids.map((userId) => store.setRole({ userId, expectedRole: 'ADMIN', role: 'BUYER' })));
      expect(outcomes.filter((o) => o.ok)).toHaveLength(1);
      expect(outcomes.find((o) => !o.ok)).toEqual({ ok: false, code: 'LAST_ADMIN' });
      const { rows } = await sql.query<{ n: number }>("SELECT count(*)::int AS n FROM users WHERE role = 'ADMIN'");
      expect(rows[0]?.n).toBe(1);
    }
  });

  it('opens a warm store with every connection open, kept open while idle, and the claims prepared on each (cold-start herd)', async () => {
    const { store } = await open({ warm: true, idleTimeoutMs: 100 });
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect([store.pools.rush.totalCount, store.pools.checkout.totalCount]).toEqual([4, 2]);
    const prepared = await Promise.all(Array.from({ length: 4 }, () => store.pools.rush.connect()));
    try {
      for (const c of prepared) {
        const { rows } = await c.query<{ name: string }>('SELECT name FROM pg_prepared_statements ORDER BY name');
        expect(rows.map((r) => r.name)).toEqual(['claim-seats', 'claim-units', 'free-rows']);
      }
    } finally {
      for (const c of prepared) c.release();
    }
    // A store opened for a tool or a test stays lazy: nothing open it did not use.
    const lazy = await open({ idleTimeoutMs: 100 });
    expect(lazy.store.pools.rush.totalCount).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect([lazy.store.pools.rush.totalCount, lazy.store.pools.checkout.totalCount]).toEqual([0, 0]);
  });

  it('warms a store over a show on sale without writing anything: the warm-up claims are rolled back', async () => {
    const { store, schema } = await open();
    await showWithHold(store);
    await store.close();
    const warm = await openPgStore({
      url, schema, poolMax: 4, checkoutPoolMax: 2, connectTimeoutMs: 5_000, idleTimeoutMs: 5_000, retriesMax: 3, lockTimeoutMs: 200, statementTimeoutMs: 5_000, warm: true,
    });
    closers.push(() => warm.close());
    const sql = await client(schema);
    const { rows } = await sql.query<{ users: number; holds: number; lines: number; units: number; moved: number }>(`SELECT
      (SELECT count(*)::int FROM users) AS users, (SELECT count(*)::int FROM holds) AS holds, (SELECT count(*)::int FROM hold_lines) AS lines,
      (SELECT count(*)::int FROM user_show_units) AS units, (SELECT count(*)::int FROM seats WHERE status <> 'AVAILABLE' OR version <> 0) AS moved`);
    // The show's one hold (h1 on A-1-1, by u1) and nothing else.
    expect(rows[0]).toEqual({ users: 1, holds: 1, lines: 1, units: 1, moved: 1 });
  });
});
