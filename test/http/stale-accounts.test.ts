import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openConfiguredStore } from '../../src/compose.js';
import { loadConfig } from '../../src/config.js';
import { createTokenService } from '../../src/http/auth.js';
import { adminClient, ApiClient, createShow } from '../support/api-client.js';
import { startTestNode, testDatabaseUrl, type TestNode } from '../support/backend.js';
import { queryInSchema } from '../support/postgres.js';

/**
 * What a server meets after its data moved under it: a correctly signed token of an account the
 * store does not have (a database reset under the same signing secret), a sandbox payment its
 * own sandbox never opened (another process's, or a reset ledger). Each is a 4xx with a code.
 */
let t: TestNode & { baseUrl: string };
let showId: string;

beforeAll(async () => {
  t = await startTestNode();
  showId = await createShow(await adminClient(t.node.app));
});
afterAll(async () => t.close());

describe('an account the store no longer has', () => {
  const ghost = () => createTokenService(t.node.config.secrets.jwt, 3600).issue({ userId: 'usr_gone0000000000000000', username: 'ghost', role: 'BUYER', passwordHash: 'none', createdAt: 0 });

  it('cannot hold seats, places or best-available seats: 401, nothing held', async () => {
    const api = new ApiClient(t.node.app, ghost());
    for (const body of [{ seatIds: ['A-1-1'] }, { quantity: 2 }]) {
      const reply = await api.request('POST', `/api/v1/shows/${showId}/holds`, body);
      expect({ status: reply.status, code: reply.body.code }).toEqual({ status: 401, code: 'UNAUTHORIZED' });
    }
    const seats = (await api.request('GET', `/api/v1/shows/${showId}/seats`)).body.seats as { status: string }[];
    expect(seats.every((s) => s.status === 'AVAILABLE')).toBe(true);
  });
});

describe('a sandbox payment this server does not know', () => {
  it('answers 404 PAYMENT_NOT_FOUND, not a 500', async () => {
    const buyer = await new ApiClient(t.node.app).signUp('pays-elsewhere');
    const hold = await buyer.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-5-5'] });
    const order = await buyer.request('POST', '/api/v1/orders', { holdId: hold.body.holdId }, { 'x-idempotency-key': 'elsewhere-1' });
    expect(order.status).toBe(201);
    // The sandbox's ledger loses the payment (a reset ledger): a file of the data directory on
    // SQLite, a table of the shared database on PostgreSQL.
    if (t.database.store === 'postgres') {
      const deleted = await queryInSchema(testDatabaseUrl, t.database.env.TICKETRUSH_DATABASE_SCHEMA ?? '', 'DELETE FROM sandbox_payments WHERE payment_id = $1', [order.body.paymentId]);
      expect(deleted.rowCount).toBe(1);
    } else {
      const ledger = new Database(join(t.dataDir, 'sandbox-provider.db'));
      try {
        expect(ledger.prepare('DELETE FROM sandbox_payments WHERE payment_id = ?').run(order.body.paymentId).changes).toBe(1);
      } finally {
        ledger.close();
      }
    }
    const pay = await buyer.request('POST', `/api/v1/orders/${order.body.orderId}/sandbox-pay`, { outcome: 'SUCCEEDED' });
    expect({ status: pay.status, code: pay.body.code }).toEqual({ status: 404, code: 'PAYMENT_NOT_FOUND' });
  });
});

describe('stopping (SIGTERM) with verdicts not yet delivered', () => {
  it('delivers the decided payments to the callback before the listener closes', async () => {
    // Callbacks would take up to a minute: only the drain on stop can deliver them in time.
    const slow = await startTestNode({ env: { TICKETRUSH_SANDBOX_DELAY_MS_MAX: '60000', TICKETRUSH_SANDBOX_DUPLICATE_RATE: '0' } });
    let stopped = false;
    try {
      const admin = await adminClient(slow.node.app);
      const show = await createShow(admin);
      const orders: string[] = [];
      for (let i = 1; i <= 3; i++) {
        const buyer = await new ApiClient(slow.node.app).signUp(`drained-${i}`);
        const hold = await buyer.request('POST', `/api/v1/shows/${show}/holds`, { seatIds: [`A-1-${i}`] });
        const order = await buyer.request('POST', '/api/v1/orders', { holdId: hold.body.holdId }, { 'x-idempotency-key': `drain-${i}` });
        expect((await buyer.request('POST', `/api/v1/orders/${order.body.orderId}/sandbox-pay`, { outcome: 'SUCCEEDED' })).status).toBe(202);
        orders.push(order.body.orderId);
      }
      // The sandbox draws each callback's delay up to a minute, so one may land early: at least one
      // verdict must still be undelivered for the drain on stop to have work to do.
      const before = await Promise.all(orders.map((id) => slow.node.ctx.store.getOrder(id)));
      expect(before.filter((o) => o?.status === 'PENDING_PAY').length).toBeGreaterThan(0);
      const started = performance.now();
      await slow.node.stop();
      stopped = true;
      expect(performance.now() - started).toBeLessThan(6_000);
      const store = await openConfiguredStore(loadConfig({ ...slow.database.env, TICKETRUSH_DEMO: '0' }));
      try {
        const after = await Promise.all(orders.map((id) => store.getOrder(id)));
        expect(after.map((o) => o?.status === 'PAID' || o?.status === 'TICKETED')).toEqual([true, true, true]);
      } finally {
        await store.close();
      }
    } finally {
      if (!stopped) await slow.node.stop();
      await slow.database.drop();
    }
  }, 60_000);
});
