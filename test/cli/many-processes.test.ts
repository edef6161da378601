import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { adminCredentials, createTestDatabase, testDatabaseUrl, testStore, type TestDatabase } from '../support/backend.js';
import { startChildServer, type ChildServer } from '../support/child-server.js';
import { queryInSchema } from '../support/postgres.js';

// Several processes over one PostgreSQL schema, started as an operator starts them (the built
// CLI: npm test builds dist/ first), each with a data directory of its own.
const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'bin/ticketrush.js');
const scratch = mkdtempSync(join(tmpdir(), 'ticketrush-many-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const processEnv = (database: TestDatabase, extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
  ...process.env,
  ...database.env,
  // Each process its own data directory: nothing in it may matter over PostgreSQL.
  TICKETRUSH_DATA_DIR: mkdtempSync(join(scratch, 'data-')),
  PORT: '0',
  HOST: '127.0.0.1',
  TICKETRUSH_DEMO: '1',
  TICKETRUSH_ADMIN_USER: adminCredentials.username,
  TICKETRUSH_ADMIN_PASSWORD: adminCredentials.password,
  ...extra,
});

/** Runs `start` until it exits (it must refuse), with its exit code and stderr. */
function refusedStart(env: NodeJS.ProcessEnv): Promise<{ code: number | null; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [bin, 'start'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`start did not refuse within 30 s: ${stderr}`));
    }, 30_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      done({ code, stderr });
    });
  });
}

describe.skipIf(testStore !== 'postgres')('three processes started at the same moment on one fresh schema', () => {
  it('all come up with one admin, one demo show and the same secrets; a process given another secret refuses to start and says which', async () => {
    const database = await createTestDatabase({ store: 'postgres', prefix: 'ticketrush-many-' });
    const servers: ChildServer[] = [];
    try {
      const started = await Promise.allSettled([0, 1, 2].map((i) => startChildServer([bin, 'start'], processEnv(database), join(scratch, `start-${i}.log`))));
      for (const s of started) if (s.status === 'fulfilled') servers.push(s.value);
      expect(started.map((s) => (s.status === 'rejected' ? String(s.reason) : 'up'))).toEqual(['up', 'up', 'up']);
      const schema = database.env.TICKETRUSH_DATABASE_SCHEMA ?? '';
      const admins = await queryInSchema<{ username: string }>(testDatabaseUrl, schema, "SELECT username FROM users WHERE role = 'ADMIN'");
      expect(admins.rows.map((r) => r.username)).toEqual([adminCredentials.username]);
      const shows = await queryInSchema<{ title: string }>(testDatabaseUrl, schema, 'SELECT title FROM shows');
      expect(shows.rows.map((r) => r.title)).toEqual(['TicketRush Demo Night']);
      // A token one process issues is honoured by the others: they settled on one JWT secret.
      const login = await fetch(`${servers[0]?.url}/api/v1/auth/login`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(adminCredentials),
      });
      const { token } = (await login.json()) as { token: string };
      for (const server of servers) {
        const me = await fetch(`${server.url}/api/v1/me`, { headers: { authorization: `Bearer ${token}` } });
        expect(me.status).toBe(200);
      }
      // Only fingerprints of given secrets, generated secrets once each, nothing else secret.
      const settings = await queryInSchema<{ name: string }>(testDatabaseUrl, schema, 'SELECT name FROM settings ORDER BY name');
      expect(settings.rows.map((r) => r.name)).toEqual([
        'demo-show-id',
        'secret-fingerprint.admission', 'secret-fingerprint.jwt', 'secret-fingerprint.payment', 'secret-fingerprint.ticketSigningKeyPem',
        'secret.admission', 'secret.jwt', 'secret.payment', 'secret.ticketSigningKeyPem',
      ]);

      // A fourth process given a JWT secret of its own would sign tokens the others reject.
      const odd = await refusedStart(processEnv(database, { TICKETRUSH_JWT_SECRET: 'a-secret-nobody-else-uses-0123456789abcdef' }));
      expect(odd.code).not.toBe(0);
      expect(odd.stderr).toContain('TICKETRUSH_JWT_SECRET differs from the value the other processes over this database use');
      expect(odd.stderr).not.toMatch(/^\s+at /m);
    } finally {
      await Promise.all(servers.map((s) => s.stop()));
      await database.drop();
    }
  });

  it('refuses a process not given a secret the others were given, naming it', async () => {
    const database = await createTestDatabase({ store: 'postgres', prefix: 'ticketrush-many-given-' });
    const given = { TICKETRUSH_PAYMENT_SECRET: 'every-process-is-given-this-one' };
    let first: ChildServer | null = null;
    try {
      first = await startChildServer([bin, 'start'], processEnv(database, given), join(scratch, 'given.log'));
      // The same secret again: agreed.
      const second = await startChildServer([bin, 'start'], processEnv(database, given), join(scratch, 'given-2.log'));
      await second.stop();
      const bare = await refusedStart(processEnv(database));
      expect(bare.code).not.toBe(0);
      expect(bare.stderr).toContain('TICKETRUSH_PAYMENT_SECRET is not set here, but the other processes over this database were given one');
      expect(readFileSync(join(scratch, 'given.log'), 'utf8')).not.toContain(given.TICKETRUSH_PAYMENT_SECRET);
    } finally {
      await first?.stop();
      await database.drop();
    }
  });
});
