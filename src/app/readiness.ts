import type { AppContext } from './context.js';

/** A dependency the readiness probe asks (the store, Redis, ...): its name and a cheap round trip. */
export interface ReadinessCheck {
  readonly name: string;
  check(): Promise<unknown>;
}

/**
 * Every dependency at once; the answer names each one that is down (several processes behind a
 * load balancer: the operator sees which service this process cannot reach).
 */
export async function readiness(ctx: Pick<AppContext, 'store'>, storeName: string, others: readonly ReadinessCheck[]): Promise<{ readonly down: readonly string[] }> {
  const checks: readonly ReadinessCheck[] = [{ name: storeName, check: () => ctx.store.ping() }, ...others];
  const results = await Promise.allSettled(checks.map((c) => c.check()));
  const down = checks.flatMap((c, i) => {
    const result = results[i];
    return result?.status === 'rejected' ? [`${c.name} is not reachable: ${result.reason instanceof Error ? result.reason.message : String(result.reason)}`] : [];
  });
  return { down };
}
