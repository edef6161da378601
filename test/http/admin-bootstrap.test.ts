import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, expect, it } from 'vitest';
import { composeNode, type Node } from '../../src/compose.js';
import { loadConfig } from '../../src/config.js';
import { ApiClient } from '../support/api-client.js';

/** The admin account an operator configures at start, across restarts on one data directory. */
const dataDir = mkdtempSync(join(tmpdir(), 'ticketrush-admin-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

interface LogLine { readonly level: number; readonly msg: string }

/** Starts a node on the shared directory, runs `work`, stops it; returns what it logged at warn and above. */
async function withNode(env: Record<string, string>, work: (node: Node) => Promise<void> = async () => undefined): Promise<LogLine[]> {
  const lines: LogLine[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as LogLine);
      done();
    },
  });
  const node = await composeNode(loadConfig({ TICKETRUSH_DATA_DIR: dataDir, TICKETRUSH_DEMO: '0', ...env }), { logger: { level: 'warn', stream } });
  try {
    await work(node);
  } finally {
    await node.stop();
  }
  return lines;
}
const admin = (user: string, password: string) => ({ TICKETRUSH_ADMIN_USER: user, TICKETRUSH_ADMIN_PASSWORD: password });

const loginStatus = async (node: Node, username: string, password: string) =>
  (await new ApiClient(node.app).request('POST', '/api/v1/auth/login', { username, password })).status;
const roleOf = async (node: Node, username: string) => (await node.ctx.store.findUserByUsername(username))?.role;

it('never promotes a buyer who registered the configured admin username first, and still starts, with a warning', async () => {
  await withNode({}, async (node) => {
    expect((await new ApiClient(node.app).request('POST', '/api/v1/auth/register', { username: 'mallory', password: 'mallory-password' })).status).toBe(201);
  });
  const logged = await withNode(admin('mallory', 'operator-password'), async (node) => {
    expect(await roleOf(node, 'mallory')).toBe('BUYER');
    expect(await loginStatus(node, 'mallory', 'operator-password')).toBe(401);
    const mallory = await new ApiClient(node.app).logIn('mallory', 'mallory-password');
    expect((await mallory.request('POST', '/api/v1/admin/shows', {})).status).toBe(403);
  });
  expect(logged.some((line) => line.level === 40 && line.msg.includes('TICKETRUSH_ADMIN_USER') && line.msg.includes('not made ADMIN'))).toBe(true);
});

it('makes a demoted configured admin ADMIN again at the next start when it has the configured password', async () => {
  await withNode(admin('root', 'root-password'), async (node) => {
    const root = await new ApiClient(node.app).logIn('root', 'root-password');
    await new ApiClient(node.app).signUp('deputy', 'deputy-password');
    expect((await root.request('PUT', '/api/v1/admin/users/deputy/role', { role: 'ADMIN' })).status).toBe(200);
    const deputy = await new ApiClient(node.app).logIn('deputy', 'deputy-password');
    expect((await deputy.request('PUT', '/api/v1/admin/users/root/role', { role: 'BUYER' })).status).toBe(200);
    expect(await roleOf(node, 'root')).toBe('BUYER');
  });
  const logged = await withNode(admin('root', 'root-password'), async (node) => {
    expect(await roleOf(node, 'root')).toBe('ADMIN');
  });
  expect(logged.some((line) => line.msg.includes('ADMIN again'))).toBe(true);
});

it('takes a changed admin password from the configuration at the next start', async () => {
  await withNode(admin('owner', 'first-password'), async (node) => {
    expect(await loginStatus(node, 'owner', 'first-password')).toBe(200);
  });
  await withNode(admin('owner', 'second-password'), async (node) => {
    expect(await loginStatus(node, 'owner', 'second-password')).toBe(200);
    expect(await loginStatus(node, 'owner', 'first-password')).toBe(401);
  });
});

it('warns when only one of TICKETRUSH_ADMIN_USER and TICKETRUSH_ADMIN_PASSWORD is set', async () => {
  for (const env of [{ TICKETRUSH_ADMIN_USER: 'lonely' }, { TICKETRUSH_ADMIN_PASSWORD: 'lonely-password' }]) {
    const logged = await withNode(env);
    expect(logged.filter((line) => line.level === 40 && /only TICKETRUSH_ADMIN_(USER|PASSWORD) is set/.test(line.msg))).toHaveLength(1);
  }
  expect(await withNode(admin('owner', 'second-password'))).toEqual([]);
});
