import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, ApiClient, createShow } from '../support/api-client.js';
import { startTestNode, type TestNode } from '../support/backend.js';
import { rawRequest } from '../support/raw-http.js';

// RFC 9110 §13.1.2 (If-None-Match, weak comparison), §15.4.5 and §8.6 (a 304 has no body, so no
// body framing: a content-length of a body that is not there makes clients wait for it).
let t: TestNode & { baseUrl: string };
let showId: string;
let etag: string;

beforeAll(async () => {
  t = await startTestNode();
  showId = await createShow(await adminClient(t.node.app));
  etag = (await rawRequest(t.baseUrl, 'GET', `/api/v1/shows/${showId}/seats`)).headers.etag ?? '';
});
afterAll(async () => t.close());

const seats = (ifNoneMatch: string, query = '') => rawRequest(t.baseUrl, 'GET', `/api/v1/shows/${showId}/seats${query}`, { 'if-none-match': ifNoneMatch });

describe('conditional GET of the seat map over a real socket', () => {
  it('answers 304 with no body, no content-length, no content-type, and keeps ETag, cache headers and x-request-id', async () => {
    expect(etag).toMatch(/^"[^"]+"$/);
    const notModified = await seats(etag);
    expect(notModified.status).toBe(304);
    expect(notModified.body).toBe('');
    expect(notModified.headers['content-length']).toBeUndefined();
    expect(notModified.headers['content-type']).toBeUndefined();
    expect(notModified.headers['transfer-encoding']).toBeUndefined();
    expect(notModified.headers.etag).toBe(etag);
    expect(notModified.headers['cache-control']).toBe('no-cache');
    expect(notModified.headers['x-request-id']).toBeTruthy();
  });

  it('compares weakly: W/"x" matches "x"', async () => {
    expect((await seats(`W/${etag}`)).status).toBe(304);
  });

  it('accepts a list of entity tags and matches any member', async () => {
    expect((await seats(`"nope", W/"other",${etag}`)).status).toBe(304);
    expect((await seats(`"nope", W/"other"`)).status).toBe(200);
  });

  it('treats * as matching the existing map, but not an unknown show', async () => {
    expect((await seats('*')).status).toBe(304);
    expect((await rawRequest(t.baseUrl, 'GET', '/api/v1/shows/no-such-show/seats', { 'if-none-match': '*' })).status).toBe(404);
  });

  it('answers 200 with the body when the tag does not match, and the compact form has its own tag', async () => {
    const full = await seats('"something-else"');
    expect(full.status).toBe(200);
    expect(Number(full.headers['content-length'])).toBe(Buffer.byteLength(full.body));
    expect((await seats(etag, '?format=compact')).status).toBe(200);
  });

  it('never answers 304 after the map changed', async () => {
    const buyer = await new ApiClient(t.node.app).signUp('etag-buyer');
    expect((await buyer.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-3-3'] })).status).toBe(201);
    expect((await seats(etag)).status).toBe(200);
  });
});
