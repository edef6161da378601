import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureAdmin } from '../../src/app/accounts.js';
import { ensureDemoShow } from '../../src/app/catalog.js';
import { sweepOverdueHolds } from '../../src/app/expiry.js';
import { startTestNode, type TestNode } from '../support/backend.js';

/**
 * The chores every process runs at start, run side by side as processes starting at the same
 * moment run them (on PostgreSQL over one schema; on SQLite the same calls interleave in one
 * process): each must leave what one run leaves.
 */
let t: TestNode;
beforeAll(async () => {
  t = await startTestNode({ listen: false });
});
afterAll(async () => t?.close());

describe('start-up chores run at the same moment', () => {
  it('create one demo show, however many run', async () => {
    const made = await Promise.all(Array.from({ length: 6 }, () => ensureDemoShow(t.node.ctx)));
    expect(made.filter((show) => show !== null)).toHaveLength(1);
    const shows = await t.node.ctx.store.listShows({ limit: 10, offset: 0 }, Date.now());
    expect(shows).toHaveLength(1);
    // A newcomer can try a refund and an exchange on it (issue 35): the policy is set.
    expect(shows[0]).toMatchObject({ refundUntilHoursBefore: 48, exchangeUntilHoursBefore: 24 });
    // And a later start creates none.
    expect(await ensureDemoShow(t.node.ctx)).toBeNull();
  });

  it('create one admin account, and every run finds it ADMIN with the configured password', async () => {
    const outcomes = await Promise.all(Array.from({ length: 6 }, () => ensureAdmin(t.node.ctx, 'boss-at-start', 'boss-password-1')));
    expect(outcomes.filter((o) => o.outcome === 'CREATED')).toHaveLength(1);
    expect(new Set(outcomes.map((o) => o.user.userId)).size).toBe(1);
    expect(outcomes.every((o) => o.user.role === 'ADMIN')).toBe(true);
    expect((await t.node.ctx.store.listUsers({ keyPrefix: 'boss-at-start', limit: 10, offset: 0 })).map((u) => u.role)).toEqual(['ADMIN']);
  });

  it('sweep overdue holds side by side without an error', async () => {
    await Promise.all(Array.from({ length: 4 }, () => sweepOverdueHolds(t.node.ctx, Number.MAX_SAFE_INTEGER)));
  });
});

describe('secrets settled through the shared store', () => {
  const fingerprint = (name: string, value: string): string => `${name}:${value.length}:${value.slice(0, 4)}`;
  // A name of this test's own: on PostgreSQL the node itself settled the real secrets at start.
  const name = `jwt-${Date.now().toString(36)}`;
  const candidate = (value: string, given: boolean) => [{ name, variable: 'TICKETRUSH_JWT_SECRET', given, value }] as const;

  it('gives every process the first generated one, accepts the same given one, and refuses another, naming the variable', async () => {
    const { settleSecrets } = await import('../../src/app/shared-secrets.js');
    const store = t.node.ctx.store;
    const [a, b] = await Promise.all([settleSecrets(store, candidate('generated-by-a', false), fingerprint), settleSecrets(store, candidate('generated-by-b', false), fingerprint)]);
    expect(a[name]).toBe(b[name]);
    expect(await settleSecrets(store, candidate(a[name] as string, true), fingerprint)).toEqual({ [name]: a[name] });
    await expect(settleSecrets(store, candidate('given-something-else', true), fingerprint)).rejects.toThrow(/^TICKETRUSH_JWT_SECRET differs from the value the other processes/);
  });
});
