import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// The CLI as a person runs it: a child process on the built package (npm test builds dist/ first,
// and `prepare` builds it on `npm ci`).
const root = resolve(import.meta.dirname, '../..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  version: string;
  bin: Record<string, string>;
  files?: string[];
  scripts: Record<string, string>;
};
const cli = (...args: string[]) => spawnSync(process.execPath, [join(root, 'bin/ticketrush.js'), ...args], { encoding: 'utf8', timeout: 30_000, env: { ...process.env, TICKETRUSH_DATA_DIR: join(root, '.tmp/cli-test-never-used') } });

describe('ticketrush CLI', () => {
  it('prints the version from package.json', () => {
    const run = cli('--version');
    expect(run.status).toBe(0);
    expect(run.stdout.trim()).toBe(pkg.version);
  });

  it('lists its commands in --help', () => {
    const run = cli('--help');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/Usage: ticketrush/);
    expect(run.stdout).toMatch(/^\s+start\b/m);
    expect(run.stdout).toMatch(/^\s+worker\b/m);
    expect(run.stdout).toMatch(/--version/);
  });

  it('offers start --no-jobs (API only) beside `worker` (jobs only)', () => {
    const run = cli('start', '--help');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('--no-jobs');
  });

  it('refuses an unknown command with a non-zero exit, naming it and pointing at --help', () => {
    const run = cli('strat');
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain("unknown command 'strat'");
    expect(run.stderr).toContain('--help');
    expect(run.stdout).not.toContain('TicketRush is ready');
  });

  it('refuses an unknown option the same way', () => {
    const run = cli('--bogus');
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain("unknown option '--bogus'");
    expect(run.stderr).toContain('--help');
  });
});

describe('the package', () => {
  it('builds on install (prepare), so the bin works right after npm ci', () => {
    expect(pkg.scripts.prepare).toMatch(/\bnpm run build\b/);
    expect(pkg.bin.ticketrush).toBe('bin/ticketrush.js');
  });

  it('publishes the built code, the bin and the docs, and no tests or sources of secrets', () => {
    const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8', timeout: 60_000 });
    const files = (JSON.parse(out) as { files: { path: string }[] }[])[0]?.files.map((f) => f.path) ?? [];
    expect(files).toEqual(expect.arrayContaining(['bin/ticketrush.js', 'dist/cli.js', 'dist/compose.js', 'dist/http/app.js', 'docs/api.md', 'docs/openapi.json', 'README.md', 'package.json']));
    expect(files.filter((f) => /^(test|src|data|bench|node_modules)\//.test(f) || f.endsWith('.db') || f.endsWith('secrets.json'))).toEqual([]);
  });
});
