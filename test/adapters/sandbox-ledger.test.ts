import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { SandboxLedger } from '../../src/adapters/payments/sandbox-ledger.js';
import { openSqliteSandboxLedger } from '../../src/adapters/payments/sqlite-sandbox-ledger.js';
import { openPgStore } from '../../src/adapters/postgres/pg-store.js';
import { pgSandboxLedger } from '../../src/adapters/postgres/sandbox-ledger.js';
import { dropSchema, postgresReachable, uniqueSchemaName } from '../support/postgres.js';

/**
 * The sandbox provider's two ledgers behave alike: a file of the data directory (one process) and
 * a table of the shared database (every process), where the provider's decisions race for real.
 */
const url = process.env.TICKETRUSH_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const reachable = await postgresReachable(url);
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** The refund the booking core asks for: the whole amount, under the payment's own key. */
const refundOf = (paymentId: string, amountCents = 1): { paymentId: string; amountCents: number; idempotencyKey: string } =>
  ({ paymentId, amountCents, idempotencyKey: `refund:${paymentId}` });

const ledgers: { name: string; skip: boolean; open(): Promise<SandboxLedger> }[] = [
  {
    name: 'sqlite file', skip: false,
    async open() {
      const dir = mkdtempSync(join(tmpdir(), 'ticketrush-ledger-'));
      const ledger = openSqliteSandboxLedger(join(dir, 'sandbox-provider.db'));
      cleanups.push(async () => {
        await ledger.close();
        rmSync(dir, { recursive: true, force: true });
      });
      return ledger;
    },
  },
  {
    name: 'postgres table', skip: !reachable.ok,
    async open() {
      const schema = uniqueSchemaName();
      const store = await openPgStore({ url, schema, poolMax: 4, checkoutPoolMax: 4, connectTimeoutMs: 5_000, idleTimeoutMs: 5_000, lockTimeoutMs: 500, statementTimeoutMs: 5_000, retriesMax: 3 });
      cleanups.push(async () => {
        await store.close();
        await dropSchema(url, schema);
      });
      return pgSandboxLedger(store.lanes.checkout);
    },
  },
];

let n = 0;
const entry = (key: string) => ({ paymentId: `pay_${++n}_${process.pid}`, orderId: `ord_${n}`, amountCents: 1200, idempotencyKey: key });

describe.each(ledgers)('the sandbox ledger in a $name', (kind) => {
  it.skipIf(kind.skip)('opens one payment per idempotency key, even for callers racing', async () => {
    const ledger = await kind.open();
    const opened = await Promise.all(Array.from({ length: 8 }, () => ledger.open(entry('key-race'))));
    expect(new Set(opened).size).toBe(1);
    expect(await ledger.open(entry('key-race'))).toBe(opened[0]);
    expect(await ledger.open(entry('key-other'))).not.toBe(opened[0]);
    expect(await ledger.get(opened[0] as string)).toMatchObject({ status: 'PENDING', amountCents: 1200, delivered: false, refunded: false });
  });

  it.skipIf(kind.skip)('decides a payment once: the first verdict stands, whoever else decides', async () => {
    const ledger = await kind.open();
    const id = await ledger.open(entry('key-decide'));
    const decided = await Promise.all([ledger.decide(id, 'SUCCEEDED'), ledger.decide(id, 'FAILED'), ledger.decide(id, 'SUCCEEDED')]);
    expect(decided.filter(Boolean)).toHaveLength(1);
    const verdict = (await ledger.get(id))?.status;
    expect(verdict === 'SUCCEEDED' || verdict === 'FAILED').toBe(true);
    expect(await ledger.decide(id, verdict === 'SUCCEEDED' ? 'FAILED' : 'SUCCEEDED')).toBe(false);
    expect((await ledger.get(id))?.status).toBe(verdict);
    expect(await ledger.decide('pay_unknown', 'SUCCEEDED')).toBe(false);
  });

  it.skipIf(kind.skip)('refunds only a succeeded payment; lists decided, unacknowledged verdicts until delivered', async () => {
    const ledger = await kind.open();
    const pending = await ledger.open(entry('key-pending'));
    expect(await ledger.refund(refundOf(pending))).toBe(false);
    const paid = await ledger.open(entry('key-paid'));
    await ledger.decide(paid, 'SUCCEEDED');
    expect(await ledger.undelivered(10)).toEqual([paid]);
    await ledger.markDelivered(paid);
    expect(await ledger.undelivered(10)).toEqual([]);
    expect(await Promise.all([ledger.refund(refundOf(paid)), ledger.refund(refundOf(paid))])).toEqual([true, true]);
    expect((await ledger.get(paid))?.refunded).toBe(true);
  });

  it.skipIf(kind.skip)('refunds once per idempotency key, however often or concurrently asked, and never beyond what was paid', async () => {
    const ledger = await kind.open();
    const paid = await ledger.open(entry('key-refund-once'));
    await ledger.decide(paid, 'SUCCEEDED');
    const amountCents = (await ledger.get(paid))!.amountCents;
    expect(await Promise.all([1, 2, 3].map(() => ledger.refund(refundOf(paid, amountCents))))).toEqual([true, true, true]);
    expect(await ledger.refund(refundOf(paid, amountCents))).toBe(true);
    expect(await ledger.refundedCents(paid)).toBe(amountCents);
    // Another key is another refund: beyond what was paid, refused.
    expect(await ledger.refund({ paymentId: paid, amountCents, idempotencyKey: `other-${paid}` })).toBe(false);
    expect(await ledger.refundedCents(paid)).toBe(amountCents);
  });
});
