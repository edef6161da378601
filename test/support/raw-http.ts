import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';

/** One response as it came over a real socket: status, raw header lines and body bytes. */
export interface RawResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** A request through node:http, so what a real client sees (framing headers included) is checked, not inject()'s view. */
export function rawRequest(baseUrl: string, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${baseUrl}${path}`, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const lower: Record<string, string> = {};
        for (let i = 0; i < res.rawHeaders.length; i += 2) lower[String(res.rawHeaders[i]).toLowerCase()] = String(res.rawHeaders[i + 1]);
        resolve({ status: res.statusCode ?? 0, headers: lower, body: Buffer.concat(chunks).toString('utf8') });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Writes bytes straight to a socket (for requests node:http refuses to send) and reads until the server closes or `timeoutMs`. */
export function rawExchange(baseUrl: string, bytes: string, timeoutMs = 5_000): Promise<string> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let received = '';
    const timer = setTimeout(() => socket.destroy(), timeoutMs);
    socket.on('connect', () => socket.write(bytes));
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('utf8');
    });
    socket.on('error', (error) => (received === '' ? reject(error) : undefined));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(received);
    });
  });
}

/** Splits a raw HTTP/1.1 response into status, lower-cased headers and body. */
export function parseRawResponse(text: string): RawResponse {
  const [head = '', ...rest] = text.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const at = line.indexOf(':');
    if (at > 0) headers[line.slice(0, at).trim().toLowerCase()] = line.slice(at + 1).trim();
  }
  return { status: Number(statusLine.split(' ')[1] ?? 0), headers, body: rest.join('\r\n\r\n') };
}
