import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

// The drill as a person runs it: `ticketrush drill sellout` on the built package (npm test builds
// dist/ first), which starts its own embedded server as a child process.
const root = resolve(import.meta.dirname, '../..');
const outRoot = mkdtempSync(join(tmpdir(), 'ticketrush-drill-test-'));
afterAll(() => rmSync(outRoot, { recursive: true, force: true }));

function drill(name: string, ...args: string[]) {
  const out = join(outRoot, name);
  const env = { ...process.env };
  delete env.TICKETRUSH_ADMIN_USER;
  delete env.TICKETRUSH_ADMIN_PASSWORD;
  const run = spawnSync(process.execPath, [join(root, 'bin/ticketrush.js'), 'drill', 'sellout', '--out', out, ...args], { encoding: 'utf8', timeout: 110_000, env });
  const reportFile = join(out, 'report.json');
  const report = existsSync(reportFile) ? JSON.parse(readFileSync(reportFile, 'utf8')) : null;
  return { run, out, report };
}

describe('ticketrush drill sellout', () => {
  it('sells a small show out end to end, audits it over the API, and writes the JSON and HTML reports', () => {
    const { run, out, report } = drill('small', '--seats', '400', '--buyers', '20');
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/SOLD OUT in [\d.]+ s/);
    expect(run.stdout).toContain('audit: PASSED');
    expect(report.result.soldOut).toBe(true);
    expect(report.result.seatsTicketed).toBe(400);
    expect(report.result.secondsToSoldOut).toBeGreaterThan(0);
    expect(report.result.holds).toBe(40);
    expect(report.result.cpuSeconds.client).toBeGreaterThanOrEqual(0);
    for (const step of ['hold', 'order', 'pay', 'ticket']) {
      expect(report.steps[step].count).toBe(40);
      expect(report.steps[step].p99Ms).toBeGreaterThanOrEqual(report.steps[step].p50Ms);
    }
    expect(report.refusals).toEqual([]);
    expect(report.audit.passed).toBe(true);
    expect(report.audit.checks.map((c: { name: string }) => c.name)).toEqual(expect.arrayContaining([
      'no seat in two tickets', 'sold = tickets = paid orders', 'nothing left held',
      // The store auditor (`ticketrush audit`) run beside the drill's server, with its environment.
      'store: sold_over_capacity', 'store: seat_in_two_tickets', 'store: counted_stock', 'store: paid_not_ticketed', 'store: overdue_hold', 'store: payment_ledger',
    ]));
    expect(report.audit.checks.filter((c: { name: string; passed: boolean }) => c.name.startsWith('store:') && !c.passed)).toEqual([]);
    expect(report.audit.counts).toMatchObject({ tickets: 400, paidOrderSeats: 400, map: { SOLD: 400, HELD: 0, AVAILABLE: 0 } });
    expect(report.timeline.at(-1).ticketed).toBe(400);
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    expect(html).toContain('<svg');
    // Self-contained: nothing loaded from elsewhere.
    expect(html).not.toMatch(/<script|<link|\ssrc=|@import|url\(/i);
  }, 120_000);

  it('exits non-zero when the audit fails: a sale stopped by its deadline is not sold out', () => {
    const { run, report } = drill('deadline', '--seats', '3000', '--buyers', '1', '--seats-per-hold', '1', '--deadline', '1');
    expect(run.status).toBe(1);
    expect(run.stdout).toContain('audit: FAILED');
    expect(report.result.soldOut).toBe(false);
    expect(report.audit.passed).toBe(false);
    expect(report.audit.checks.find((c: { name: string }) => c.name.startsWith('sold out')).passed).toBe(false);
    // What was sold is still consistent.
    expect(report.audit.checks.filter((c: { passed: boolean }) => !c.passed)).toHaveLength(1);
  }, 120_000);

  it('refuses --url without admin credentials, before doing anything', () => {
    const { run } = drill('no-admin', '--url', 'http://127.0.0.1:9');
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('--admin-user');
  });
});
