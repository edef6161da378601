import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorStatus } from '../../src/http/error-registry.js';
import { startTestNode, type TestNode } from '../support/backend.js';
import { parseRawResponse, rawExchange, rawRequest, type RawResponse } from '../support/raw-http.js';

// Errors raised before a route runs (the router, Node's HTTP parser) still answer with a
// registry code and the request id, like every other error.
let t: TestNode & { baseUrl: string };

beforeAll(async () => {
  t = await startTestNode();
});
afterAll(async () => t.close());

function expectRegistryError(response: RawResponse, status: number, code: string): void {
  expect(response.status).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  const body = JSON.parse(response.body) as { code: string; message: string };
  expect(body.code).toBe(code);
  expect(errorStatus[body.code as keyof typeof errorStatus]).toBe(status);
  expect(typeof body.message).toBe('string');
  expect(response.headers['x-request-id']).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
}

describe('errors outside the routes', () => {
  it('answers a malformed percent-encoding in the URL with BAD_REQUEST and x-request-id', async () => {
    const response = await rawRequest(t.baseUrl, 'GET', '/api/v1/shows/%E0%A4%A');
    expectRegistryError(response, 400, 'BAD_REQUEST');
    expect(response.body).not.toContain('FST_ERR');
  });

  it('keeps a valid X-Request-Id given with a malformed URL', async () => {
    const response = await rawRequest(t.baseUrl, 'GET', '/api/v1/shows/%E0%A4%A', { 'x-request-id': 'trace-bad-url-1' });
    expect(response.headers['x-request-id']).toBe('trace-bad-url-1');
  });

  it('answers a bad Content-Length (rejected by the HTTP parser) with BAD_REQUEST and x-request-id', async () => {
    const text = await rawExchange(t.baseUrl, 'POST /api/v1/auth/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: abc\r\n\r\n{}');
    const response = parseRawResponse(text);
    expectRegistryError(response, 400, 'BAD_REQUEST');
    expect(response.body).not.toContain('Client Error');
    expect(Number(response.headers['content-length'])).toBe(Buffer.byteLength(response.body));
  });

  it('answers oversized headers with 431 HEADERS_TOO_LARGE', async () => {
    const text = await rawExchange(t.baseUrl, `GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expectRegistryError(parseRawResponse(text), 431, 'HEADERS_TOO_LARGE');
  });
});

describe('wrong method on an existing path', () => {
  it('answers 405 METHOD_NOT_ALLOWED with Allow listing the methods the path has', async () => {
    const response = await rawRequest(t.baseUrl, 'DELETE', '/api/v1/shows');
    expectRegistryError(response, 405, 'METHOD_NOT_ALLOWED');
    expect(response.headers.allow).toBe('GET, HEAD');
  });

  it('matches paths with parameters', async () => {
    const seats = await rawRequest(t.baseUrl, 'POST', '/api/v1/shows/some-show/seats', { 'content-type': 'application/json' }, '{}');
    expectRegistryError(seats, 405, 'METHOD_NOT_ALLOWED');
    expect(seats.headers.allow).toBe('GET, HEAD');
    const orders = await rawRequest(t.baseUrl, 'GET', '/api/v1/orders');
    expectRegistryError(orders, 405, 'METHOD_NOT_ALLOWED');
    expect(orders.headers.allow).toBe('POST');
    const hold = await rawRequest(t.baseUrl, 'GET', '/api/v1/holds/h1');
    expect(hold.headers.allow).toBe('DELETE');
  });

  it('still answers 404 ROUTE_NOT_FOUND for a path no method has', async () => {
    expectRegistryError(await rawRequest(t.baseUrl, 'GET', '/api/v1/nowhere'), 404, 'ROUTE_NOT_FOUND');
    expectRegistryError(await rawRequest(t.baseUrl, 'GET', '/api/v1/shows/a/b/c'), 404, 'ROUTE_NOT_FOUND');
  });
});
