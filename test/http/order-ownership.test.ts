import { afterAll, beforeAll, expect, it } from 'vitest';
import { adminClient, ApiClient, createShow } from '../support/api-client.js';
import { startTestNode, type TestNode } from '../support/backend.js';

let t: TestNode & { baseUrl: string };
beforeAll(async () => {
  t = await startTestNode();
});
afterAll(async () => t.close());

it("refuses another user's holdId with 403 HOLD_NOT_OWNED before touching the owner's half-made order", async () => {
  const sandbox = t.node.sandbox;
  if (sandbox === null) throw new Error('the sandbox provider is off');
  const showId = await createShow(await adminClient(t.node.app));
  const owner = await new ApiClient(t.node.app).signUp('hold-owner');
  const attacker = await new ApiClient(t.node.app).signUp('hold-thief');
  const { holdId } = (await owner.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-1-1'] })).body as { holdId: string };

  // The provider is down for the owner's first attempt: the order is left half-made (INIT).
  sandbox.setAvailable(false);
  let first;
  try {
    first = await owner.request('POST', '/api/v1/orders', { holdId }, { 'x-idempotency-key': 'owner-1' });
  } finally {
    sandbox.setAvailable(true);
  }
  expect(first.status).toBe(502);

  const stolen = await attacker.request('POST', '/api/v1/orders', { holdId }, { 'x-idempotency-key': 'thief-1' });
  expect({ status: stolen.status, code: stolen.body.code }).toEqual({ status: 403, code: 'HOLD_NOT_OWNED' });

  const retried = await owner.request('POST', '/api/v1/orders', { holdId }, { 'x-idempotency-key': 'owner-1' });
  expect(retried.status).toBe(201);
  expect(retried.body.status).toBe('PENDING_PAY');
});
