import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawSql } from '../contract/raw-sql.js';
import { adminClient, ApiClient, createShow } from '../support/api-client.js';
import { startTestNode, testOnPostgres, type TestNode } from '../support/backend.js';
import type { TestStoreHandle } from '../support/stores.js';

/** `ticketrush audit`: exit 0 clean, 1 violations, 2 could not run (says which store and why). */
const root = join(import.meta.dirname, '../..');
const cli = (env: Record<string, string | undefined>, ...args: string[]) => spawnSync(process.execPath, ['--import', import.meta.resolve('tsx'), join(root, 'src/cli.ts'), 'audit', ...args], {
  encoding: 'utf8', timeout: 60_000, env: { ...process.env, TICKETRUSH_DATABASE_URL: '', TICKETRUSH_DEMO: '0', ...env },
});

let t: TestNode & { baseUrl: string };
let scratch: string;
beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'ticketrush-audit-cli-'));
  t = await startTestNode({ listen: false });
});
afterAll(async () => {
  await t?.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe('ticketrush audit', () => {
  it('exits 2 naming the store when there is none, or it is empty', () => {
    const missing = cli({ TICKETRUSH_DATA_DIR: join(scratch, 'never-started') });
    expect(missing.status, missing.stderr).toBe(2);
    expect(missing.stderr).toMatch(/could not run: no SQLite store at .*never-started.*ticketrush\.db/);
    writeFileSync(join(scratch, 'ticketrush.db'), '');
    const empty = cli({ TICKETRUSH_DATA_DIR: scratch }, '--json');
    expect(empty.status, empty.stderr).toBe(2);
    expect(empty.stderr).toMatch(/is empty/);
    expect(JSON.parse(empty.stdout)).toMatchObject({ passed: null });
  });

  it('exits 2 when PostgreSQL cannot be reached, naming the address without the password', () => {
    const down = cli({ TICKETRUSH_DATABASE_URL: 'postgres://auditor:s3cret@127.0.0.1:1/ticketrush', TICKETRUSH_DATABASE_CONNECT_TIMEOUT_MS: '500' });
    expect(down.status, down.stderr).toBe(2);
    expect(down.stderr).toMatch(/PostgreSQL at postgres:\/\/auditor:\*\*\*@127\.0\.0\.1:1\/ticketrush .*cannot be reached/);
    expect(down.stderr).not.toContain('s3cret');
  });

  it('exits 0 on a clean store and 1 with the violation in --json, beside the live server', async () => {
    const admin = await adminClient(t.node.app);
    const showId = await createShow(admin);
    const buyer = await new ApiClient(t.node.app).signUp('audit-cli-buyer');
    const hold = await buyer.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-1-1'], holdSeconds: 600 });
    expect(hold.status).toBe(201);
    const env = t.database.env;
    const clean = cli(env);
    expect(clean.status, clean.stdout + clean.stderr).toBe(0);
    expect(clean.stdout).toMatch(/ok {4}overdue_hold {11}0/);
    expect(clean.stdout).toContain('clean: no violation');

    const sql = await rawSql({ database: t.database } as TestStoreHandle);
    try {
      // Expired 10 minutes ago and still ACTIVE (this node runs no sweep: it never listened).
      expect(await sql.run(`UPDATE holds SET expires_at = ${Date.now() - 600_000} WHERE hold_id = '${hold.body.holdId}'`)).toBe('ok');
    } finally {
      await sql.close();
    }
    const dirty = cli(env, '--json');
    expect(dirty.status, dirty.stderr).toBe(1);
    const report = JSON.parse(dirty.stdout) as { passed: boolean; counts: Record<string, number>; violations: { check: string; subject: string }[]; store: string };
    expect(report.passed).toBe(false);
    expect(report.counts.overdue_hold).toBe(1);
    expect(report.violations).toContainEqual(expect.objectContaining({ check: 'overdue_hold', subject: hold.body.holdId }));
    expect(report.store).toMatch(testOnPostgres ? /^PostgreSQL/ : /^SQLite/);
    // A longer bound forgives it.
    expect(cli(env, '--bound', '3600').status).toBe(0);
  });
});
