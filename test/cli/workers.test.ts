import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, testStore } from '../support/backend.js';
import { startChildServer } from '../support/child-server.js';

// `ticketrush start --workers N` on the built CLI (npm test builds dist/ first).
const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'bin/ticketrush.js');
const scratch = mkdtempSync(join(tmpdir(), 'ticketrush-workers-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface LogLine { msg?: string; worker?: number; pid?: number; url?: string }
const lines = (file: string): LogLine[] => readFileSync(file, 'utf8').split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as LogLine);

describe('ticketrush start --workers', () => {
  it('refuses more than one worker on the embedded SQLite store, saying why, exit 2', () => {
    const run = spawnSync(process.execPath, [bin, 'start', '--workers', '2'], {
      encoding: 'utf8', timeout: 60_000,
      env: { ...process.env, PORT: '0', TICKETRUSH_DEMO: '0', TICKETRUSH_DATA_DIR: mkdtempSync(join(scratch, 'sqlite-')), TICKETRUSH_DATABASE_URL: '' },
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('--workers 2 needs TICKETRUSH_DATABASE_URL');
    expect(run.stderr).toContain('one process owns the database file');
  });

  it('refuses a worker count above four per core', () => {
    const run = spawnSync(process.execPath, [bin, 'start', '--workers', '100000'], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, PORT: '0' } });
    expect(run.status).not.toBe(0);
    expect(run.stderr).toMatch(/--workers <n>.*a whole number from 1 to \d+/);
  });

  it.skipIf(testStore !== 'postgres')('serves on one port from N processes, forks a killed worker again, and stops them all on SIGTERM', async () => {
    const database = await createTestDatabase({ store: 'postgres', prefix: 'ticketrush-workers-' });
    const logFile = join(scratch, 'workers.log');
    try {
      const server = await startChildServer([bin, 'start', '--workers', '2'], { ...process.env, ...database.env, PORT: '0', HOST: '127.0.0.1', TICKETRUSH_DEMO: '1' }, logFile);
      // Both workers ready, on the same URL.
      for (let i = 0; i < 100 && lines(logFile).filter((l) => l.msg?.startsWith('TicketRush is ready')).length < 2; i++) await sleep(100);
      const ready = lines(logFile).filter((l) => l.msg?.startsWith('TicketRush is ready'));
      expect(new Set(ready.map((l) => l.url))).toEqual(new Set([server.url]));
      expect(new Set(ready.map((l) => l.pid)).size).toBe(2);
      const answers = await Promise.all(Array.from({ length: 20 }, () => fetch(`${server.url}/readyz`).then((r) => r.status)));
      expect(answers.every((s) => s === 200)).toBe(true);

      const victim = lines(logFile).find((l) => l.msg === 'worker started')?.worker ?? 0;
      process.kill(victim, 'SIGKILL');
      for (let i = 0; i < 150 && lines(logFile).filter((l) => l.msg === 'worker started').length < 3; i++) await sleep(100);
      expect(lines(logFile).find((l) => l.msg === 'worker died; forking another')?.worker).toBe(victim);
      for (let i = 0; i < 150 && lines(logFile).filter((l) => l.msg?.startsWith('TicketRush is ready')).length < 3; i++) await sleep(100);
      expect((await fetch(`${server.url}/readyz`)).status).toBe(200);

      const exited = new Promise<number | null>((done) => server.child.once('exit', (code) => done(code)));
      server.child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(lines(logFile).filter((l) => l.msg === 'worker stopped')).toHaveLength(2);
    } finally {
      await database.drop();
    }
  });
});
