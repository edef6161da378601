import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawSql } from '../contract/raw-sql.js';
import { adminClient, ApiClient, createShow } from '../support/api-client.js';
import { startTestNode, type TestNode } from '../support/backend.js';
import type { TestStoreHandle } from '../support/stores.js';
import { eventually } from '../support/wait.js';

/**
 * What is stuck, on /metrics (issue 26 item 1): orders PENDING_PAY and PAID-not-ticketed, holds
 * past their expiry not yet released, the job backlog, each with the age of the oldest, read by a
 * bounded periodic query (TICKETRUSH_OPS_FIGURES_MS), not per scrape. The node runs no jobs, so
 * nothing settles behind the test's back; TICKETRUSH_METRICS_TOKEN guards /metrics.
 */
let t: TestNode & { baseUrl: string };
beforeAll(async () => {
  t = await startTestNode({ jobs: false, listen: false, env: { TICKETRUSH_OPS_FIGURES_MS: '100', TICKETRUSH_METRICS_TOKEN: 'metrics-token-1' } });
});
afterAll(async () => t?.close());

const scrape = async (): Promise<string> => (await t.node.app.inject({ url: '/metrics', headers: { authorization: 'Bearer metrics-token-1' } })).body;
const gauge = (text: string, name: string): number | undefined => {
  const value = new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1];
  return value === undefined ? undefined : Number(value);
};

describe('stuck work on /metrics', () => {
  it('answers /metrics only with the metrics bearer token when TICKETRUSH_METRICS_TOKEN is set', async () => {
    const none = await t.node.app.inject('/metrics');
    expect(none.statusCode).toBe(401);
    expect(none.json()).toMatchObject({ code: 'UNAUTHORIZED' });
    expect((await t.node.app.inject({ url: '/metrics', headers: { authorization: 'Bearer metrics-token-2' } })).statusCode).toBe(401);
    expect((await t.node.app.inject({ url: '/metrics', headers: { authorization: 'metrics-token-1' } })).statusCode).toBe(401);
    const ok = await t.node.app.inject({ url: '/metrics', headers: { authorization: 'Bearer metrics-token-1' } });
    expect(ok.statusCode).toBe(200);
    expect(ok.body).toContain('ticketrush_orders_pending_pay');
  });

  it('counts PENDING_PAY, PAID-not-ticketed and overdue holds with the age of the oldest, and the job backlog', async () => {
    const admin = await adminClient(t.node.app);
    const showId = await createShow(admin);
    const buyer = await new ApiClient(t.node.app).signUp('ops-metrics-buyer');
    const holdOf = async (seatId: string) => {
      const hold = await buyer.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: [seatId], holdSeconds: 600 });
      expect(hold.status).toBe(201);
      return hold.body.holdId as string;
    };
    const pendingHold = await holdOf('A-1-1');
    const order = await buyer.request('POST', '/api/v1/orders', { holdId: pendingHold }, { 'x-idempotency-key': 'ops-1' });
    expect(order.status).toBe(201);
    const paidHold = await holdOf('A-1-2');
    const paid = await buyer.request('POST', '/api/v1/orders', { holdId: paidHold }, { 'x-idempotency-key': 'ops-2' });
    const overdueHold = await holdOf('A-1-3');
    const sql = await rawSql({ database: t.database } as TestStoreHandle);
    try {
      // 5 s beyond the bounds asserted below: the figures' pass may read its clock a moment before these statements run.
      expect(await sql.run(`UPDATE orders SET status = 'PAID', updated_at = ${Date.now() - 95_000} WHERE order_id = '${paid.body.orderId}'`)).toBe('ok');
      expect(await sql.run(`UPDATE holds SET expires_at = ${Date.now() - 125_000} WHERE hold_id = '${overdueHold}'`)).toBe('ok');
    } finally {
      await sql.close();
    }
    const text = await eventually(async () => {
      const s = await scrape();
      return gauge(s, 'ticketrush_holds_overdue') === 1 && gauge(s, 'ticketrush_orders_paid_not_ticketed') === 1 ? s : undefined;
    }, 5_000, 'the stuck figures read');
    expect(gauge(text, 'ticketrush_orders_pending_pay')).toBe(1);
    expect(gauge(text, 'ticketrush_orders_pending_pay_oldest_age_seconds')).toBeGreaterThanOrEqual(0);
    expect(gauge(text, 'ticketrush_orders_paid_not_ticketed_oldest_age_seconds')).toBeGreaterThanOrEqual(90);
    expect(gauge(text, 'ticketrush_holds_overdue_oldest_seconds')).toBeGreaterThanOrEqual(120);
    expect(gauge(text, 'ticketrush_holds_overdue_oldest_seconds')).toBeLessThan(200);
    // Both orders' payments await the provider (the PAID one was made so behind the payment's back).
    expect(gauge(text, 'ticketrush_payments_pending')).toBe(2);
    // Each hold enqueued its release (this node runs no jobs, so they wait).
    expect(gauge(text, 'ticketrush_jobs_waiting')).toBeGreaterThanOrEqual(3);
    expect(text).toMatch(/ticketrush_hold_requests_total\{result="ok"\} 3\n/);
    expect(text).toMatch(/ticketrush_hold_expiry_delay_seconds_bucket\{le="300"\} /);
    expect(text).toMatch(/^nodejs_eventloop_lag_p99_seconds /m);
  });

  it('classes hold answers for the failure-rate alert: a taken seat or bad input is refused, not failed', async () => {
    const showId = await createShow(await adminClient(t.node.app));
    const a = await new ApiClient(t.node.app).signUp('ops-metrics-a');
    const before = await scrape();
    const count = (s: string, result: string) => Number(new RegExp(`ticketrush_hold_requests_total\\{result="${result}"\\} (\\d+)`).exec(s)?.[1] ?? 0);
    expect((await a.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-2-1'] })).status).toBe(201);
    expect((await a.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-2-1'] })).status).toBe(409);
    // A single value where the schema wants a list: a body is strictly typed (issue 33), so 400, not read as ['nope'].
    expect((await a.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: 'nope' })).status).toBe(400);
    const after = await scrape();
    expect(count(after, 'ok') - count(before, 'ok')).toBe(1);
    expect(count(after, 'refused') - count(before, 'refused')).toBe(2);
    expect(count(after, 'failed') - count(before, 'failed')).toBe(0);
  });
});
