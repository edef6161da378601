import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * ops/prometheus: the rules parse (`promtool check rules`) and every alert fires and stays quiet
 * in its unit tests (`promtool test rules alerts.test.yml`). promtool ships in Debian's
 * `prometheus` package, which .ci/run installs: in CI its absence is a failure, elsewhere a skip
 * that says so.
 */
const dir = fileURLToPath(new URL('../../ops/prometheus/', import.meta.url));
const promtool = spawnSync('promtool', ['--version'], { stdio: 'ignore' }).status === 0;
const inCi = process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false';

const run = (args: string[]) => spawnSync('promtool', args, { cwd: dir, encoding: 'utf8', timeout: 60_000 });

describe('ops/prometheus rules', () => {
  it.runIf(promtool || inCi)('promtool is installed (CI installs Debian\'s prometheus package)', () => {
    expect(promtool, 'promtool not found on PATH').toBe(true);
  });

  it.runIf(promtool)('`promtool check rules` accepts the recording and alert rules', () => {
    const out = run(['check', 'rules', 'recording.yml', 'alerts.yml']);
    expect(out.status, `${out.stdout}${out.stderr}`).toBe(0);
  });

  it.runIf(promtool)('`promtool test rules`: every alert fires in its firing case and stays quiet otherwise', () => {
    const out = run(['test', 'rules', 'alerts.test.yml']);
    expect(out.status, `${out.stdout}${out.stderr}`).toBe(0);
    expect(out.stdout).toContain('SUCCESS');
  });

  it.runIf(promtool)('every alert of alerts.yml has a firing and a quiet case in alerts.test.yml', async () => {
    const { readFileSync } = await import('node:fs');
    const alerts = [...readFileSync(`${dir}alerts.yml`, 'utf8').matchAll(/- alert: (\w+)/g)].map((m) => m[1] as string);
    const tests = readFileSync(`${dir}alerts.test.yml`, 'utf8');
    expect(alerts.length).toBeGreaterThanOrEqual(7);
    for (const name of alerts) {
      const cases = tests.split(/\n\s+- eval_time:/).filter((c) => c.includes(`alertname: ${name}\n`));
      expect(cases.some((c) => /exp_alerts:\s*\[\]/.test(c)), `${name}: a quiet case`).toBe(true);
      expect(cases.some((c) => /exp_alerts:\s*\n\s+- exp_labels/.test(c)), `${name}: a firing case`).toBe(true);
    }
  });

  if (!promtool && !inCi) it.skip('promtool is not installed (Debian package `prometheus`): the alert rules were not tested', () => undefined);
});
