import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { composeNode, type Node } from '../../src/compose.js';
import { loadConfig } from '../../src/config.js';
import { ApiClient } from '../support/api-client.js';

/** The admin account an operator configures at start, across restarts on one data directory. */
const dataDir = mkdtempSync(join(tmpdir(), 'ticketrush-admin-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

async function withNode<T>(admin: { user: string; password: string } | null, work: (node: Node) => Promise<T>): Promise<T> {
  const node = await composeNode(loadConfig({
    TICKETRUSH_DATA_DIR: dataDir,
    TICKETRUSH_DEMO: '0',
    ...(admin === null ? {} : { TICKETRUSH_ADMIN_USER: admin.user, TICKETRUSH_ADMIN_PASSWORD: admin.password }),
  }), { logger: false });
  try {
    return await work(node);
  } finally {
    await node.stop();
  }
}

const loginStatus = async (node: Node, username: string, password: string) =>
  (await new ApiClient(node.app).request('POST', '/api/v1/auth/login', { username, password })).status;

it('never promotes a buyer who registered the configured admin username first', async () => {
  await withNode(null, async (node) => {
    expect((await new ApiClient(node.app).request('POST', '/api/v1/auth/register', { username: 'mallory', password: 'mallory-password' })).status).toBe(201);
  });
  await expect(withNode({ user: 'mallory', password: 'operator-password' }, async () => undefined)).rejects.toMatchObject({ code: 'USERNAME_TAKEN' });
  await withNode(null, async (node) => {
    const mallory = await new ApiClient(node.app).logIn('mallory', 'mallory-password');
    expect((await mallory.request('POST', '/api/v1/admin/shows', {})).status).toBe(403);
  });
});

it('takes a changed admin password from the configuration at the next start', async () => {
  await withNode({ user: 'root', password: 'first-password' }, async (node) => {
    expect(await loginStatus(node, 'root', 'first-password')).toBe(200);
  });
  await withNode({ user: 'root', password: 'second-password' }, async (node) => {
    expect(await loginStatus(node, 'root', 'second-password')).toBe(200);
    expect(await loginStatus(node, 'root', 'first-password')).toBe(401);
  });
});
