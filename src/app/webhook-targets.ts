import { allowedByOperator, forbiddenKind, parseIp, type WebhookAllowList } from '../domain/index.js';
import type { WebhookRequest, WebhookResponse, WebhookSender } from '../ports/webhook-sender.js';

/** A host name's addresses (DNS, or a test's table); throws when it does not resolve. */
export type ResolveHost = (host: string) => Promise<readonly string[]>;

/** Where webhooks may go: the operator's exceptions and how host names are resolved (issue 33). */
export interface WebhookTargetPolicy {
  readonly allow: WebhookAllowList;
  readonly resolve: ResolveHost;
}

export type TargetVerdict = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/**
 * Whether a webhook URL may be delivered to now: every address its host is (or resolves to) must
 * be public, or allowed by the operator. Asked when the endpoint is created and again before each
 * delivery, since a name may resolve elsewhere later (DNS rebinding). Nothing is connected to.
 */
export async function checkWebhookTarget(policy: WebhookTargetPolicy, url: string, options: { readonly unresolved: 'accept' | 'refuse' } = { unresolved: 'refuse' }): Promise<TargetVerdict> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, reason: 'not a valid absolute URL' };
  }
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  const port = parsed.port === '' ? (parsed.protocol === 'https:' ? 443 : 80) : Number(parsed.port);
  let addresses: readonly string[];
  if (parseIp(host) !== null) {
    addresses = [host];
  } else {
    try {
      addresses = await policy.resolve(host);
    } catch {
      addresses = [];
    }
    // A name with no address yet may be registered (its DNS may come later: each delivery checks
    // it again); a delivery to it is refused, so nothing resolves it behind this check's back.
    if (addresses.length === 0) return options.unresolved === 'accept' ? { ok: true } : { ok: false, reason: `the host ${host} does not resolve` };
  }
  for (const text of addresses) {
    const address = parseIp(text);
    if (address === null) return { ok: false, reason: `the host ${host} resolves to ${text}, not an IP address` };
    const kind = forbiddenKind(address);
    if (kind !== null && !allowedByOperator(policy.allow, { host, port, address })) {
      return { ok: false, reason: `${host === text ? text : `${host} resolves to ${text}, which is`} a ${kind} address (allow it in TICKETRUSH_WEBHOOK_ALLOW_HOSTS)` };
    }
  }
  return { ok: true };
}

/**
 * The sender as deliveries use it: the target is checked before each attempt, and a refused one
 * is an attempt that failed (retried, then given up, like a receiver that is down), never a
 * connection. The check is as of this attempt, so a name that now resolves inward is caught.
 */
export function guardedSender(sender: WebhookSender, policy: WebhookTargetPolicy): WebhookSender {
  return {
    async send(req: WebhookRequest): Promise<WebhookResponse> {
      const verdict = await checkWebhookTarget(policy, req.url);
      if (!verdict.ok) return { kind: 'error', error: `refused target: ${verdict.reason}`.slice(0, 500), durationMs: 0 };
      return sender.send(req);
    },
    close: () => sender.close(),
  };
}
