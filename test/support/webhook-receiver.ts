import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** performance.now() when the body was read. */
  readonly at: number;
}

/** What the receiver does with the n-th request (0-based): answer a status, or never answer. */
export type ReceiverAnswer = number | 'hang' | { readonly status: number; readonly delayMs: number };

export interface WebhookReceiver {
  readonly url: string;
  readonly received: ReceivedWebhook[];
  /** Most requests this receiver had open at once. */
  readonly inFlightMax: () => number;
  close(): Promise<void>;
}

/** A real HTTP receiver on 127.0.0.1 (node:http), as a customer's endpoint would be. */
export async function startWebhookReceiver(answer: (n: number, request: ReceivedWebhook) => ReceiverAnswer, path = '/hook'): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  let inFlight = 0;
  let inFlightMax = 0;
  const server = createServer((req, res) => {
    inFlight++;
    inFlightMax = Math.max(inFlightMax, inFlight);
    res.on('close', () => inFlight--);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: performance.now() };
      const reply = answer(received.length, request);
      received.push(request);
      if (reply === 'hang') return;
      const [status, delayMs] = typeof reply === 'number' ? [reply, 0] : [reply.status, reply.delayMs];
      setTimeout(() => res.writeHead(status, { 'content-type': 'text/plain' }).end('x'.repeat(100)), delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    received,
    inFlightMax: () => inFlightMax,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
