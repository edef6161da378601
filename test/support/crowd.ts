import { randomUUID } from 'node:crypto';
import { createTokenService } from '../../src/http/auth.js';
import type { TestNode } from './backend.js';
import { HttpBuyer } from './http-buyer.js';

/**
 * A crowd of signed-in buyers for an in-process node, made without the sign-up route: hashing
 * hundreds of passwords (scrypt, deliberately slow) would dominate a rush test and measure nothing
 * the rush is about. Accounts are stored through the store port, tokens signed with the node's key.
 */
export async function crowd(t: TestNode & { baseUrl: string }, size: number, prefix: string): Promise<HttpBuyer[]> {
  const tokens = createTokenService(t.node.config.secrets.jwt, t.node.config.tokenTtlSeconds);
  const buyers: HttpBuyer[] = [];
  for (let i = 0; i < size; i++) {
    const user = { userId: randomUUID(), username: `${prefix}${i}`, passwordHash: 'not-a-hash', role: 'BUYER' as const, createdAt: Date.now() };
    const inserted = await t.node.ctx.store.insertUser(user);
    if (!inserted.ok) throw new Error(`user ${user.username} refused`);
    buyers.push(HttpBuyer.signedIn(t.baseUrl, user.username, tokens.issue(user)));
  }
  return buyers;
}

/** Latency figures in milliseconds (nearest-rank percentiles). */
export function percentiles(samples: readonly number[]): { p50: number; p95: number; p99: number; max: number; n: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;
  return { p50: at(0.5), p95: at(0.95), p99: at(0.99), max: sorted[sorted.length - 1] ?? NaN, n: sorted.length };
}

/** Runs `call` and returns its result with the time it took. */
export async function timed<T>(call: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const start = performance.now();
  const value = await call();
  return { value, ms: performance.now() - start };
}
