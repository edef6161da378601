import { fail, ok, type Result } from './result.js';
import { parseIp } from './webhook-targets.js';

/**
 * Rules of signed webhooks out (issue 22 item 4): which endpoints may be registered, and when a
 * failed delivery is tried again. Pure: the clock and the randomness are arguments.
 */
export const webhookUrlLengthMax = 2048;

/** Hosts that name this machine's loopback interface. */
const loopbackHost = (host: string): boolean =>
  host === 'localhost' || host.endsWith('.localhost') || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host) || host === '::1' || host === '0.0.0.0' || host === '::';
const wildcardHost = (host: string): boolean => host === '0.0.0.0' || host === '::' || host === '';

/** A host without brackets, and an IPv4-mapped IPv6 address as the IPv4 address it is ([::ffff:127.0.0.1] is 127.0.0.1). */
const bareHost = (host: string): string => {
  const bare = host.toLowerCase().replace(/^\[|\]$/g, '');
  const ip = bare.includes(':') ? parseIp(bare) : null;
  return ip !== null && ip.v === 4 ? ip.octets.join('.') : bare;
};
const portOf = (url: URL): number => (url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port));

/** An address this server answers on: its listening host and port, or its public URL's. */
export interface SelfAddress {
  readonly host: string;
  readonly port: number;
}

/** The host and port a URL like TICKETRUSH_PUBLIC_URL or the listen address names; null when unparsable. */
export function selfAddressOf(url: string): SelfAddress | null {
  try {
    const parsed = new URL(url);
    return { host: bareHost(parsed.hostname), port: portOf(parsed) };
  } catch {
    return null;
  }
}

function sameAddress(self: SelfAddress, host: string, port: number): boolean {
  if (self.port !== port) return false;
  const selfHost = bareHost(self.host);
  if (selfHost === host) return true;
  // A server on 127.0.0.1 also answers "localhost"; one on 0.0.0.0 answers every loopback name.
  return loopbackHost(host) && (loopbackHost(selfHost) || wildcardHost(selfHost));
}

/**
 * A receiver's URL: http or https, at most 2 KB, and not this server itself (a delivery to its own
 * listener would loop). Other ports of this machine are fine: a local receiver is normal.
 */
export function checkWebhookUrl(url: string, self: readonly SelfAddress[]): Result<string> {
  if (url.length > webhookUrlLengthMax) return fail('WEBHOOK_URL_TOO_LONG', `a webhook URL is at most ${webhookUrlLengthMax} characters (got ${url.length})`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return fail('WEBHOOK_URL_INVALID', 'the webhook URL is not a valid absolute URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return fail('WEBHOOK_URL_INVALID', `a webhook URL must be http or https (got ${parsed.protocol.replace(/:$/, '')})`);
  if (parsed.username !== '' || parsed.password !== '') return fail('WEBHOOK_URL_INVALID', 'a webhook URL carries no user name or password (deliveries are signed instead)');
  const host = bareHost(parsed.hostname);
  const port = portOf(parsed);
  if (self.some((s) => sameAddress(s, host, port))) {
    return fail('WEBHOOK_URL_LOOP', `the webhook URL points at this server itself (${host}:${port}); its deliveries would come back to it`);
  }
  return ok(parsed.href);
}

/** The event names asked for: each known, no repeats (kept in the order given). */
export function checkWebhookEvents<T extends string>(events: readonly string[], known: readonly T[]): Result<readonly T[]> {
  const unknown = events.filter((e) => !(known as readonly string[]).includes(e));
  if (unknown.length > 0) return fail('WEBHOOK_EVENT_UNKNOWN', `unknown event type ${unknown.map((e) => `"${e}"`).join(', ')}; known: ${known.join(', ')}`, { unknown });
  return ok([...new Set(events)] as T[]);
}

export interface RetryPolicy {
  /** The first retry's ceiling; each further attempt doubles it. */
  readonly baseDelayMs: number;
  /** No retry waits longer than this. */
  readonly maxDelayMs: number;
  /** After this long since the event, a failing delivery is given up (FAILED): three days. */
  readonly windowMs: number;
}

export type AttemptResult =
  | { readonly kind: 'response'; readonly statusCode: number }
  | { readonly kind: 'error'; readonly error: string };

export type AttemptDecision =
  | { readonly outcome: 'DELIVERED' }
  | { readonly outcome: 'GONE' }
  | { readonly outcome: 'RETRY'; readonly nextAttemptAt: number }
  | { readonly outcome: 'FAILED' };

/**
 * What an attempt comes to. 2xx: delivered. 410 Gone: the receiver asks us to stop, the endpoint
 * is disabled. Anything else (non-2xx, timeout, connection refused) is retried after an
 * exponential backoff with full jitter (a random wait between 0 and min(max, base·2^(n-1))),
 * so a receiver coming back from an outage is not hit by every sender at once; given up once the
 * next try would fall past the window.
 */
export function decideAttempt(result: AttemptResult, attempt: number, createdAt: number, now: number, random01: number, policy: RetryPolicy): AttemptDecision {
  if (result.kind === 'response' && result.statusCode >= 200 && result.statusCode < 300) return { outcome: 'DELIVERED' };
  if (result.kind === 'response' && result.statusCode === 410) return { outcome: 'GONE' };
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.min(attempt - 1, 40));
  const nextAttemptAt = now + Math.floor(Math.min(Math.max(random01, 0), 1) * ceiling);
  if (nextAttemptAt > createdAt + policy.windowMs) return { outcome: 'FAILED' };
  return { outcome: 'RETRY', nextAttemptAt };
}
