import { afterAll, beforeAll, expect, it } from 'vitest';
import { adminClient, ApiClient } from '../support/api-client.js';
import { startTestNode, type TestNode } from '../support/backend.js';

/** One name, however it is spelled: case and Unicode compatibility forms (NFKC) are ignored. */
let t: TestNode;
beforeAll(async () => {
  t = await startTestNode({ listen: false });
});
afterAll(async () => t.close());

const api = () => new ApiClient(t.node.app);

it('refuses "Root", "ROOT" and fullwidth "ｒｏｏｔ" beside "root" with 409 USERNAME_TAKEN', async () => {
  const first = await api().request('POST', '/api/v1/auth/register', { username: 'root', password: 'password-123' });
  expect(first.status).toBe(201);
  for (const username of ['Root', 'ROOT', 'ｒｏｏｔ', 'ＲＯＯＴ']) {
    const reply = await api().request('POST', '/api/v1/auth/register', { username, password: 'password-123' });
    expect({ username, status: reply.status, code: reply.body.code }).toEqual({ username, status: 409, code: 'USERNAME_TAKEN' });
  }
});

it('signs in to the one account under any spelling of its name, and shows the name as registered', async () => {
  await api().request('POST', '/api/v1/auth/register', { username: 'MixedCase', password: 'password-123' });
  const ids = new Set<string>();
  for (const username of ['MixedCase', 'mixedcase', 'MIXEDCASE', 'ｍｉｘｅｄｃａｓｅ']) {
    const me = (await (await api().logIn(username, 'password-123')).request('GET', '/api/v1/me')).body as { userId: string; username: string };
    expect(me.username).toBe('MixedCase');
    ids.add(me.userId);
  }
  expect(ids.size).toBe(1);
});

it('finds a user for a role change under any spelling', async () => {
  await api().request('POST', '/api/v1/auth/register', { username: 'Steward', password: 'password-123' });
  const reply = await (await adminClient(t.node.app)).request('PUT', '/api/v1/admin/users/STEWARD/role', { role: 'STAFF' });
  expect({ status: reply.status, username: reply.body.username, role: reply.body.role }).toEqual({ status: 200, username: 'Steward', role: 'STAFF' });
});
