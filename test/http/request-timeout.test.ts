import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from '../support/backend.js';
import { parseRawResponse } from '../support/raw-http.js';

// A client that trickles its body must be cut when the configured request timeout runs out, not
// at whatever multiple of Node's connection-checking interval comes next.
const requestTimeoutMs = 2_000;
let t: TestNode & { baseUrl: string };

beforeAll(async () => {
  t = await startTestNode({ env: { TICKETRUSH_REQUEST_TIMEOUT_MS: String(requestTimeoutMs) } });
});
afterAll(async () => t.close());

/** Sends the headers, then one body byte every `everyMs` (so the socket is never idle), until the server closes. */
function slowBody(baseUrl: string, everyMs: number, giveUpMs: number): Promise<{ elapsedMs: number; text: string }> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(Number(port), hostname);
    let text = '';
    let drip: NodeJS.Timeout | undefined;
    const giveUp = setTimeout(() => socket.destroy(), giveUpMs);
    socket.on('connect', () => {
      socket.write('POST /api/v1/auth/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{');
      drip = setInterval(() => socket.writable && socket.write(' '), everyMs);
    });
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
    });
    socket.on('error', (error) => (text === '' && Date.now() - started < 100 ? reject(error) : undefined));
    socket.on('close', () => {
      clearInterval(drip);
      clearTimeout(giveUp);
      resolve({ elapsedMs: Date.now() - started, text });
    });
  });
}

describe('request timeout', () => {
  it('cuts a slowly sent body within a few seconds of TICKETRUSH_REQUEST_TIMEOUT_MS, answering 408 REQUEST_TIMEOUT', async () => {
    const { elapsedMs, text } = await slowBody(t.baseUrl, 300, 15_000);
    expect(elapsedMs).toBeGreaterThanOrEqual(requestTimeoutMs - 100);
    expect(elapsedMs).toBeLessThan(requestTimeoutMs + 3_000);
    const response = parseRawResponse(text);
    expect(response.status).toBe(408);
    expect(JSON.parse(response.body)).toMatchObject({ code: 'REQUEST_TIMEOUT' });
    expect(response.headers['x-request-id']).toBeTruthy();
  });
});
