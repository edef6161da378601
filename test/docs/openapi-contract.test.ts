import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// What the OpenAPI document must say, beyond what the linters check (npm run lint:openapi runs
// Redocly and Spectral on it; docs.test.ts keeps it equal to what the route schemas generate).
interface Operation {
  operationId?: string;
  description?: string;
  security?: unknown[];
  parameters?: { name: string; in: string; required?: boolean; schema: Record<string, unknown> }[];
  responses: Record<string, { description: string; headers?: Record<string, unknown>; content?: Record<string, { schema: Record<string, unknown> }> }>;
}
const doc = JSON.parse(readFileSync(join(resolve(import.meta.dirname, '../..'), 'docs/openapi.json'), 'utf8')) as {
  servers?: unknown[];
  tags?: { name: string }[];
  paths: Record<string, Record<string, Operation>>;
};
const operations = Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, op })));
const op = (method: string, path: string): Operation => {
  const found = doc.paths[path]?.[method];
  if (found === undefined) throw new Error(`${method} ${path} is not documented`);
  return found;
};
const param = (o: Operation, name: string) => o.parameters?.find((p) => p.name === name);

describe('the OpenAPI document', () => {
  it('has servers, defined tags, and a unique operationId and a description on every operation', () => {
    expect(doc.servers?.length).toBeGreaterThan(0);
    const tagNames = new Set(doc.tags?.map((t) => t.name));
    const ids = operations.map(({ op: o }) => o.operationId);
    expect(ids.every((id) => typeof id === 'string' && id !== '')).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { key, op: o } of operations) {
      expect(o.description, key).toBeTruthy();
      for (const tag of (o as { tags?: string[] }).tags ?? []) expect(tagNames.has(tag), `${key} tag ${tag}`).toBe(true);
    }
  });

  it('marks public routes with security: [] and documents a 4xx on every operation', () => {
    expect(op('get', '/api/v1/shows').security).toEqual([]);
    expect(op('post', '/api/v1/auth/login').security).toEqual([]);
    for (const { key, op: o } of operations) {
      expect(o.security, key).toBeDefined();
      expect(Object.keys(o.responses).some((s) => s.startsWith('4')), key).toBe(true);
      if ((o.security ?? []).length > 0) expect(o.responses['401'], key).toBeDefined();
    }
  });

  it('documents 400 on every route that validates input', () => {
    for (const { key, op: o } of operations) expect(o.responses['400'], key).toBeDefined();
  });

  it('has optional limit and offset', () => {
    for (const path of ['/api/v1/shows', '/api/v1/me/orders', '/api/v1/me/tickets']) {
      expect(param(op('get', path), 'limit')?.required).toBe(false);
      expect(param(op('get', path), 'offset')?.required).toBe(false);
    }
  });

  it('requires X-Idempotency-Key with its pattern on POST /orders, and lists only the 201 it sends', () => {
    const order = op('post', '/api/v1/orders');
    const key = param(order, 'x-idempotency-key');
    expect(key?.in).toBe('header');
    expect(key?.required).toBe(true);
    expect(key?.schema.pattern).toBe('^[A-Za-z0-9._:-]+$');
    expect(key?.schema.maxLength).toBe(128);
    expect(order.responses['200']).toBeUndefined();
    expect(order.responses['201']?.headers?.['idempotent-replayed']).toBeDefined();
  });

  it('documents ETag, If-None-Match and the bodiless 304 of the seat map', () => {
    const seats = op('get', '/api/v1/shows/{showId}/seats');
    expect(param(seats, 'if-none-match')?.in).toBe('header');
    expect(seats.responses['200']?.headers?.etag).toBeDefined();
    expect(seats.responses['304']?.headers?.etag).toBeDefined();
    expect(seats.responses['304']?.content).toBeUndefined();
  });

  it('enumerates every check-in and callback outcome', () => {
    const checkIn = op('post', '/api/v1/checkin').responses['200']?.content?.['application/json']?.schema as { properties: { outcome: { enum: string[] } } };
    expect(checkIn.properties.outcome.enum).toEqual(expect.arrayContaining(['ADMITTED', 'ALREADY_ADMITTED_SAME_SCAN']));
    const callback = op('post', '/api/v1/payments/callback').responses['200']?.content?.['application/json']?.schema as { properties: { outcome: { enum: string[] } } };
    expect(callback.properties.outcome.enum).toEqual(expect.arrayContaining(['SOLD', 'SOLD_LATE', 'REFUND_REQUIRED', 'CANCELLED', 'DUPLICATE']));
  });
});
