import type { AppContext } from './context.js';

/** Whether the storage answers (the readiness probe): a cheap round trip, and why not when it fails. */
export async function storageReadiness(ctx: Pick<AppContext, 'store'>): Promise<{ readonly ready: true } | { readonly ready: false; readonly reason: string }> {
  try {
    await ctx.store.ping();
    return { ready: true };
  } catch (error) {
    return { ready: false, reason: error instanceof Error ? error.message : String(error) };
  }
}
