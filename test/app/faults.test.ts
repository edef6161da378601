import { describe, expect, it } from 'vitest';
import { faultyProvider, sweepsWithExpiryOutage, withExpiryOutage } from '../../src/app/faults.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { rankCorrelation } from '../../src/drill/drills.js';
import type { PaymentProvider } from '../../src/ports/payment-provider.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// The drills' fault switches (issue 26 item 4): off by default, refused in production mode, and
// each does only what it names.
function config(env: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), 'ticketrush-faults-'));
  try {
    return loadConfig({ TICKETRUSH_DATA_DIR: dir, ...env });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('fault switches', () => {
  it('are off by default', () => {
    expect(config({}).faults).toEqual({ providerErrorRate: 0, providerDelayMs: 0, expiryOutage: null });
  });

  it('are read with their units, and refused in production mode', () => {
    const on = { TICKETRUSH_FAULT_EXPIRY_STOP_SECONDS: '20', TICKETRUSH_FAULT_PROVIDER_ERROR_RATE: '0.1', TICKETRUSH_FAULT_PROVIDER_DELAY_MS: '50' };
    expect(config(on).faults).toEqual({ providerErrorRate: 0.1, providerDelayMs: 50, expiryOutage: { afterMs: 0, forMs: 20_000 } });
    expect(() => config({ ...on, NODE_ENV: 'production' })).toThrow(ConfigError);
    expect(() => config({ TICKETRUSH_FAULT_PROVIDER_ERROR_RATE: '0.5', NODE_ENV: 'production' })).toThrow(/refused in production/);
    expect(() => config({ TICKETRUSH_FAULT_PROVIDER_ERROR_RATE: '2' })).toThrow(/from 0 to 1/);
  });

  it('a faulty provider fails at its rate and otherwise answers as the real one', async () => {
    const real: PaymentProvider = {
      name: 'real',
      createPayment: async () => ({ paymentId: 'p1' }),
      getPaymentStatus: async () => 'SUCCEEDED',
      refund: async () => ({ refunded: true }),
    };
    let draw = 0;
    const faulty = faultyProvider(real, 0.5, () => [0.1, 0.9][draw++ % 2] as number);
    await expect(faulty.createPayment({ orderId: 'o', amountCents: 1, currency: 'CNY', idempotencyKey: 'o' })).rejects.toThrow(/injected/);
    await expect(faulty.createPayment({ orderId: 'o', amountCents: 1, currency: 'CNY', idempotencyKey: 'o' })).resolves.toEqual({ paymentId: 'p1' });
    expect(faultyProvider(real, 0, () => 0)).toBe(real);
  });

  it('the expiry outage stops the per-hold job and the sweep while it lasts, and nothing else', async () => {
    let stopped = true;
    const ran: string[] = [];
    const handlers = withExpiryOutage({ 'expire-hold': async ({ holdId }) => void ran.push(holdId), 'issue-tickets': async ({ orderId }) => void ran.push(orderId) }, () => stopped);
    await handlers['expire-hold']?.({ holdId: 'h1' });
    await handlers['issue-tickets']?.({ orderId: 'o1' });
    stopped = false;
    await handlers['expire-hold']?.({ holdId: 'h2' });
    expect(ran).toEqual(['o1', 'h2']);
    stopped = true;
    const sweeps = sweepsWithExpiryOutage([
      { name: 'expiry-sweep', everyMs: 1, run: async () => ran.push('sweep') },
      { name: 'ticket-sweep', everyMs: 1, run: async () => ran.push('tickets') },
    ], () => stopped);
    for (const s of sweeps) await s.run();
    expect(ran.slice(2)).toEqual(['tickets']);
  });
});

describe('rush fairness', () => {
  it('rank correlation: 1 for the same order, -1 reversed, ties at their average rank', () => {
    expect(rankCorrelation([1, 2, 3, 4], [10, 20, 30, 40])).toBeCloseTo(1);
    expect(rankCorrelation([1, 2, 3, 4], [40, 30, 20, 10])).toBeCloseTo(-1);
    // Admitted in one batch (a tie): the order within it says nothing.
    expect(rankCorrelation([1, 2, 3, 4], [5, 5, 5, 5])).toBe(0);
  });
});
