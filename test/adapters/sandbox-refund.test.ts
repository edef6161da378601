import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { createSandboxProvider } from '../../src/adapters/payments/sandbox-provider.js';

/** The provider's refund is idempotent by key: a retried refund (timeout, a second process's pass) never refunds twice. */
const dir = mkdtempSync(join(tmpdir(), 'ticketrush-refund-'));
const sandbox = createSandboxProvider({
  ledgerFile: join(dir, 'ledger.db'), callbackUrl: () => 'http://127.0.0.1:9/none', secret: 's'.repeat(32),
  duplicateRate: 0, deliveryDelayMsMax: 0, deliveryAttemptsMax: 1, retryBaseDelayMs: 1,
});
sandbox.setCallbacksLost(true);
afterAll(() => {
  sandbox.stop();
  rmSync(dir, { recursive: true, force: true });
});

it('refunds once per idempotency key, however often or concurrently it is asked, and never more than was paid', async () => {
  const { paymentId } = await sandbox.createPayment({ orderId: 'ord_1', amountCents: 5_000, currency: 'CNY', idempotencyKey: 'ord_1' });
  expect(await sandbox.refund({ paymentId, amountCents: 5_000, idempotencyKey: `refund:${paymentId}` })).toEqual({ refunded: false });
  await sandbox.simulate(paymentId, 'SUCCEEDED');
  const answers = await Promise.all([1, 2, 3].map(() => sandbox.refund({ paymentId, amountCents: 5_000, idempotencyKey: `refund:${paymentId}` })));
  expect(answers).toEqual([{ refunded: true }, { refunded: true }, { refunded: true }]);
  expect(await sandbox.refund({ paymentId, amountCents: 5_000, idempotencyKey: `refund:${paymentId}` })).toEqual({ refunded: true });
  expect(sandbox.refundedCents(paymentId)).toBe(5_000);
  // Another key is another refund: beyond what was paid, refused.
  expect(await sandbox.refund({ paymentId, amountCents: 5_000, idempotencyKey: 'other' })).toEqual({ refunded: false });
  expect(sandbox.refundedCents(paymentId)).toBe(5_000);
});
