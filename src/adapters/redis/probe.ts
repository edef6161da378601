import { Redis } from 'ioredis';

/**
 * One PING to the configured Redis at start, bounded: a process whose Redis is not there must say
 * so and stop rather than serve without the shared gate, queue and limits it was configured with.
 * No retries and no offline queue, so an unreachable Redis fails in `timeoutMs`, not for ever.
 */
export async function probeRedis(url: string, timeoutMs: number): Promise<void> {
  const client = new Redis(url, { lazyConnect: true, connectTimeout: timeoutMs, maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null });
  // Without a listener ioredis prints each error; the first one says why (ECONNREFUSED, ...),
  // where the rejected connect only says the connection closed.
  let cause: Error | null = null;
  client.on('error', (error: Error) => {
    cause ??= error;
  });
  try {
    await client.connect();
    await client.ping();
  } catch (error) {
    throw cause ?? error;
  } finally {
    client.disconnect();
  }
}

/** host:port of a Redis URL for messages (never its password). */
export function redisAddress(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname || 'localhost'}:${parsed.port || '6379'}${parsed.pathname.length > 1 ? parsed.pathname : ''}`;
  } catch {
    return '(unparsable TICKETRUSH_REDIS_URL)';
  }
}

/**
 * Redis as /readyz sees it while the process runs: one connection of its own that reconnects in
 * the background (bounded backoff), a PING bounded by `timeoutMs`. Never queues commands while
 * disconnected, so a check while Redis is away answers at once.
 */
export function redisReadiness(url: string, timeoutMs: number): { readonly name: string; check(): Promise<void>; close(): void } {
  const client = new Redis(url, {
    lazyConnect: true, connectTimeout: timeoutMs, maxRetriesPerRequest: 0, enableOfflineQueue: false,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  });
  let lastError: Error | null = null;
  client.on('error', (error: Error) => {
    lastError = error;
  });
  client.connect().catch(() => undefined);
  return {
    name: `Redis ${redisAddress(url)}`,
    async check() {
      if (client.status !== 'ready') throw new Error(`${client.status}${lastError === null ? '' : ` (${(lastError as Error).message})`}`);
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, fail) => {
        timer = setTimeout(() => fail(new Error(`no answer to PING in ${timeoutMs} ms`)), timeoutMs);
      });
      try {
        await Promise.race([client.ping(), late]);
      } finally {
        clearTimeout(timer);
      }
    },
    close() {
      client.disconnect();
    },
  };
}
