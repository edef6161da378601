import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, expect, it } from 'vitest';
import { composeNode } from '../../src/compose.js';
import { loadConfig } from '../../src/config.js';
import { startChildServer, type ChildServer } from '../support/child-server.js';

/** Two servers on one data directory would each believe they own its seats: the second must not start. */
const dirs: string[] = [];
const newDataDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'ticketrush-lock-'));
  dirs.push(dir);
  return dir;
};
const servers: ChildServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

it('refuses a second node on the same data directory in one process, and lets one start after the first stops', async () => {
  const config = loadConfig({ TICKETRUSH_DATA_DIR: newDataDir(), TICKETRUSH_DEMO: '0' });
  const first = await composeNode(config, { logger: false });
  await expect(composeNode(config, { logger: false })).rejects.toMatchObject({ name: 'DataDirLockedError', message: expect.stringContaining('in use by another TicketRush server') });
  // The store's own file stays open to readers (backups, auditors) while the server runs.
  const reader = new Database(join(config.dataDir, 'ticketrush.db'), { readonly: true, fileMustExist: true });
  expect(reader.prepare('SELECT count(*) AS n FROM users').get()).toEqual({ n: 0 });
  reader.close();
  await first.stop();
  const next = await composeNode(config, { logger: false });
  await next.stop();
});

function runToExit(env: NodeJS.ProcessEnv): Promise<{ code: number | null; stderr: string; ms: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['bin/ticketrush.js', 'start'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    // A second server that wrongly starts is stopped, so the failing test leaves no process behind.
    const deadline = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.once('exit', (code) => {
      clearTimeout(deadline);
      resolve({ code, stderr, ms: Date.now() - started });
    });
  });
}

it('makes a second server process exit at once, non-zero, saying why; a SIGKILLed server gives the directory up at once', async () => {
  const dataDir = newDataDir();
  const env = { ...process.env, PORT: '0', HOST: '127.0.0.1', TICKETRUSH_DATA_DIR: dataDir, TICKETRUSH_DEMO: '0', TICKETRUSH_LOG_LEVEL: 'info' };
  const first = await startChildServer(['bin/ticketrush.js', 'start'], env, join(dataDir, 'first.log'));
  servers.push(first);
  const second = await runToExit(env);
  expect(second.code).not.toBe(0);
  expect(second.code).not.toBeNull();
  expect(second.stderr).toContain(`the data directory ${dataDir} is in use by another TicketRush server`);
  expect(second.ms).toBeLessThan(15_000);
  expect((await fetch(`${first.url}/healthz`)).status).toBe(200);

  first.child.kill('SIGKILL');
  await new Promise((resolve) => first.child.once('exit', resolve));
  const again = await startChildServer(['bin/ticketrush.js', 'start'], env, join(dataDir, 'again.log'));
  servers.push(again);
  expect((await fetch(`${again.url}/healthz`)).status).toBe(200);
});
