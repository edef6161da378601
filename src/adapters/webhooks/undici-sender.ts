import { Agent, request } from 'undici';
import type { WebhookRequest, WebhookResponse, WebhookSender } from '../../ports/webhook-sender.js';

/** Bytes of a receiver's answer read at most: only the status matters; the rest is dropped. */
const responseBytesMax = 4096;
/** Open connections per receiver origin: deliveries are bounded upstream, this bounds sockets. */
const connectionsPerOrigin = 8;

/**
 * Webhook POSTs with undici: a timeout over the whole attempt (an AbortSignal, so a receiver that
 * accepts the connection and never answers, or trickles its answer, costs at most timeoutMs), and
 * the response body read to at most a few KiB then discarded. No redirects are followed (a
 * redirect is a non-2xx answer and is retried like one).
 */
export function createUndiciSender(now: () => number = () => performance.now()): WebhookSender {
  const agent = new Agent({ connections: connectionsPerOrigin, keepAliveTimeout: 10_000 });
  return {
    async send(req: WebhookRequest): Promise<WebhookResponse> {
      const started = now();
      const elapsed = (): number => Math.max(0, Math.round(now() - started));
      const signal = AbortSignal.timeout(req.timeoutMs);
      try {
        const response = await request(req.url, {
          method: 'POST',
          body: req.body,
          headers: { 'content-type': 'application/json', 'user-agent': 'TicketRush-Webhooks/1', ...req.headers },
          dispatcher: agent,
          signal,
          headersTimeout: req.timeoutMs,
          bodyTimeout: req.timeoutMs,
        });
        let read = 0;
        try {
          for await (const chunk of response.body) {
            read += (chunk as Buffer).length;
            if (read >= responseBytesMax) break;
          }
        } finally {
          // Breaking out of the loop, or a body that errors, leaves no socket half-read.
          response.body.destroy();
        }
        return { kind: 'response', statusCode: response.statusCode, durationMs: elapsed() };
      } catch (error) {
        const message = signal.aborted ? `timed out after ${req.timeoutMs} ms` : describe(error);
        return { kind: 'error', error: message.slice(0, 500), durationMs: elapsed() };
      }
    },
    // Destroy, not close: close would wait for attempts in flight (up to their timeout) at shutdown.
    close: () => agent.destroy(),
  };
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${typeof code === 'string' ? `${code} ` : ''}${error.message}${cause}`;
}
