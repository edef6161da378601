import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditConfiguredStore, type StoreAuditReport } from '../../src/audit-command.js';
import { auditCheckNames, type AuditCheckName } from '../../src/app/inventory-audit.js';
import { rawSql, type RawSql, type SqlFor } from '../contract/raw-sql.js';
import { adminClient, ApiClient, createShow } from '../support/api-client.js';
import { startTestNode, testStore, type TestNode } from '../support/backend.js';
import type { TestStoreHandle } from '../support/stores.js';
import { eventually } from '../support/wait.js';

/**
 * The auditor (issue 26 item 3) on a real sale: clean beside the live server (SQLite read-only,
 * without its lock), its periodic job feeding ticketrush_inventory_inconsistencies, then each
 * check seeing its own kind of corruption, made with raw SQL behind the adapters' backs.
 */
let t: TestNode & { baseUrl: string };
let sql: RawSql;
let showId: string;
let paid: { orderId: string; paymentId: string };
let bobHold: string;
const boundSeconds = 60;

const audit = (): Promise<StoreAuditReport> => auditConfiguredStore({ database: t.node.config.database, redis: t.node.config.redis, auditBoundSeconds: boundSeconds });
const run = async (statement: SqlFor): Promise<void> => {
  expect(await sql.run(statement)).toBe('ok');
};
const only = (report: StoreAuditReport, check: AuditCheckName): void => {
  expect(report.passed).toBe(false);
  expect(report.counts[check], `${check}: ${JSON.stringify(report.violations)}`).toBeGreaterThan(0);
  expect(report.violations.some((v) => v.check === check && v.showId === showId)).toBe(true);
};

beforeAll(async () => {
  t = await startTestNode({ env: { TICKETRUSH_AUDIT_MS: '200', TICKETRUSH_OPS_FIGURES_MS: '200' } });
  const admin = await adminClient(t.node.app);
  showId = await createShow(admin, { sections: [
    { id: 'A', name: 'Stalls', rows: 2, seatsPerRow: 5, priceCents: 5000 },
    { id: 'B', name: 'Box', rows: 1, seatsPerRow: 1, priceCents: 9000 },
    { id: 'GA', name: 'Standing', kind: 'GENERAL_ADMISSION', capacity: 10, priceCents: 3000 },
  ] } as Parameters<typeof createShow>[1]);
  const alice = await new ApiClient(t.node.app).signUp('audit-alice');
  const bob = await new ApiClient(t.node.app).signUp('audit-bob');
  const buy = async (body: object, key: string) => {
    const hold = await alice.request('POST', `/api/v1/shows/${showId}/holds`, body);
    expect(hold.status, JSON.stringify(hold.body)).toBe(201);
    const order = await alice.request('POST', '/api/v1/orders', { holdId: hold.body.holdId }, { 'x-idempotency-key': key });
    expect((await alice.request('POST', `/api/v1/orders/${order.body.orderId}/sandbox-pay`, { outcome: 'SUCCEEDED' })).status).toBe(202);
    await eventually(async () => ((await alice.request('GET', `/api/v1/orders/${order.body.orderId}`)).body.status === 'TICKETED' ? true : undefined), 10_000, 'ticketed');
    return order.body as { orderId: string; paymentId: string };
  };
  paid = await buy({ seatIds: ['A-1-1', 'A-1-2'] }, 'audit-1');
  await buy({ seatIds: ['B-1-1'] }, 'audit-2');
  await buy({ quantity: 2, section: 'GA' }, 'audit-3');
  const held = await bob.request('POST', `/api/v1/shows/${showId}/holds`, { quantity: 1, section: 'GA', holdSeconds: 600 });
  expect(held.status).toBe(201);
  bobHold = held.body.holdId as string;
  sql = await rawSql({ database: t.database } as TestStoreHandle);
}, 60_000);
let stopped = false;
afterAll(async () => {
  await sql?.close();
  if (stopped) await t.database.drop();
  else await t?.close();
});

describe('the auditor (ticketrush audit, and the job in the server)', () => {
  it('finds a real sale clean, reading beside the live server', async () => {
    const report = await audit();
    expect(report.violations).toEqual([]);
    expect(report.passed).toBe(true);
    expect(report.shows).toBeGreaterThanOrEqual(1);
    expect(report.ledger).toBe(true);
    expect(Object.keys(report.counts).sort()).toEqual([...auditCheckNames].sort());
  });

  it('the periodic job reports an inconsistency on /metrics at once, and clears it once repaired', async () => {
    const gauge = async () => /ticketrush_inventory_inconsistencies\{check="counted_stock"\} (\d+)/.exec((await t.node.app.inject('/metrics')).body)?.[1];
    await eventually(async () => ((await gauge()) === '0' ? true : undefined), 10_000, 'a first clean pass');
    await run({ sqlite: `UPDATE sections SET available = available - 1 WHERE show_id = '${showId}' AND section_id = 'GA'`, postgres: `UPDATE stock_buckets SET available = available - 1 WHERE show_id = '${showId}' AND section_id = 'GA' AND available > 0 AND bucket = (SELECT min(bucket) FROM stock_buckets WHERE show_id = '${showId}' AND section_id = 'GA' AND available > 0)` });
    await eventually(async () => ((await gauge()) === '1' ? true : undefined), 10_000, 'the job to see the corrupted stock');
    await run({ sqlite: `UPDATE sections SET available = available + 1 WHERE show_id = '${showId}' AND section_id = 'GA'`, postgres: `UPDATE stock_buckets SET available = available + 1 WHERE show_id = '${showId}' AND section_id = 'GA' AND available < capacity AND bucket = (SELECT min(bucket) FROM stock_buckets WHERE show_id = '${showId}' AND section_id = 'GA' AND available < capacity)` });
    await eventually(async () => ((await gauge()) === '0' ? true : undefined), 10_000, 'the job to see the stock repaired');
    expect((await t.node.app.inject('/metrics')).body).toMatch(/ticketrush_audit_last_run_timestamp_seconds [1-9]\d+/);
  });

  describe('each check sees its own corruption (the server stopped, so nothing repairs it)', () => {
    beforeAll(async () => {
      await t.node.stop();
      stopped = true;
      expect((await audit()).passed).toBe(true);
    });

    it('sold_over_capacity: more admitting tickets than a section holds', async () => {
      await run(`INSERT INTO tickets (ticket_id, order_id, user_id, show_id, section_id, seat_id, seq, code, status, issued_at)
        SELECT 'tkt_extra', order_id, user_id, show_id, section_id, 'B-1-9', seq + 100, 'code-extra', status, issued_at FROM tickets WHERE show_id = '${showId}' AND section_id = 'B'`);
      only(await audit(), 'sold_over_capacity');
      await run("DELETE FROM tickets WHERE ticket_id = 'tkt_extra'");
    });

    it('seat_in_two_tickets: a seat named by two admitting tickets (its unique index dropped)', async () => {
      await run('DROP INDEX tickets_one_per_seat');
      await run(`INSERT INTO tickets (ticket_id, order_id, user_id, show_id, section_id, seat_id, seq, code, status, issued_at)
        SELECT 'tkt_twin', order_id, user_id, show_id, section_id, seat_id, seq + 100, 'code-twin', status, issued_at FROM tickets WHERE show_id = '${showId}' AND seat_id = 'A-1-1'`);
      only(await audit(), 'seat_in_two_tickets');
      await run("DELETE FROM tickets WHERE ticket_id = 'tkt_twin'");
      await run("CREATE UNIQUE INDEX tickets_one_per_seat ON tickets (show_id, seat_id) WHERE status <> 'INVALID' AND seat_id IS NOT NULL");
    });

    it('counted_stock: stock that is not capacity − held − sold', async () => {
      await run({ sqlite: `UPDATE sections SET available = available - 1 WHERE show_id = '${showId}' AND section_id = 'GA'`, postgres: `UPDATE stock_buckets SET available = available - 1 WHERE show_id = '${showId}' AND section_id = 'GA' AND available > 0 AND bucket = (SELECT min(bucket) FROM stock_buckets WHERE show_id = '${showId}' AND section_id = 'GA' AND available > 0)` });
      only(await audit(), 'counted_stock');
      await run({ sqlite: `UPDATE sections SET available = available + 1 WHERE show_id = '${showId}' AND section_id = 'GA'`, postgres: `UPDATE stock_buckets SET available = available + 1 WHERE show_id = '${showId}' AND section_id = 'GA' AND available < capacity AND bucket = (SELECT min(bucket) FROM stock_buckets WHERE show_id = '${showId}' AND section_id = 'GA' AND available < capacity)` });
      expect((await audit()).passed).toBe(true);
    });

    it('paid_not_ticketed: an order PAID longer than the bound without tickets', async () => {
      await run(`UPDATE orders SET status = 'PAID', updated_at = ${Date.now() - (boundSeconds + 5) * 1000} WHERE order_id = '${paid.orderId}'`);
      only(await audit(), 'paid_not_ticketed');
      await run(`UPDATE orders SET status = 'PAID', updated_at = ${Date.now() - 1000} WHERE order_id = '${paid.orderId}'`);
      expect((await audit()).counts.paid_not_ticketed, 'within the bound').toBe(0);
      await run(`UPDATE orders SET status = 'TICKETED' WHERE order_id = '${paid.orderId}'`);
    });

    it('overdue_hold: an ACTIVE hold past its expiry by more than the bound', async () => {
      await run(`UPDATE holds SET expires_at = ${Date.now() - (boundSeconds + 5) * 1000} WHERE hold_id = '${bobHold}'`);
      only(await audit(), 'overdue_hold');
      await run(`UPDATE holds SET expires_at = ${Date.now() + 600_000} WHERE hold_id = '${bobHold}'`);
    });

    it('payment_ledger: a successful payment whose order is not sold', async () => {
      await run(`UPDATE orders SET status = 'CANCELLED' WHERE order_id = '${paid.orderId}'`);
      only(await audit(), 'payment_ledger');
      await run(`UPDATE orders SET status = 'TICKETED' WHERE order_id = '${paid.orderId}'`);
    });

    it("payment_ledger: a sale the provider's own ledger never charged", async () => {
      const ledger = async (statement: string): Promise<void> => {
        if (testStore === 'sqlite') {
          const db = new Database(join(t.database.dataDir, 'sandbox-provider.db'));
          try {
            db.prepare(statement).run();
          } finally {
            db.close();
          }
        } else {
          await run(statement);
        }
      };
      await ledger(`UPDATE sandbox_payments SET status = 'FAILED' WHERE payment_id = '${paid.paymentId}'`);
      only(await audit(), 'payment_ledger');
      await ledger(`UPDATE sandbox_payments SET status = 'SUCCEEDED' WHERE payment_id = '${paid.paymentId}'`);
      expect((await audit()).passed).toBe(true);
    });

    it.runIf(testStore === 'postgres+redis')('redis_gate: a seat the Redis gate holds taken that the store has free, lasting past the relay lag', async () => {
      const { Redis } = await import('ioredis');
      const { gateKeys } = await import('../../src/adapters/redis/redis-gate.js');
      const redis = t.node.config.redis as { url: string; prefix: string };
      const [builtKey, takenKey] = gateKeys(redis.prefix, showId) as [string, string];
      const client = new Redis(redis.url, { maxRetriesPerRequest: 1 });
      try {
        await eventually(async () => ((await client.exists(builtKey)) === 1 ? true : undefined), 10_000, 'the gate of the show built');
        expect((await audit()).counts.redis_gate).toBe(0);
        // Seat A-2-5 is seat 9 of the canonical layout (A: 2 rows of 5), free in the store.
        await client.setbit(takenKey, 9, 1);
        only(await audit(), 'redis_gate');
        await client.setbit(takenKey, 9, 0);
        expect((await audit()).passed).toBe(true);
      } finally {
        client.disconnect();
      }
    });
  });
});
