import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChildServer, type ChildServer } from '../support/child-server.js';

// The walk-through a newcomer pastes (docs/walkthrough.sh, shown in docs/api.md) must run top to
// bottom on a freshly started server: started here as `ticketrush start` on a free port, with an
// admin configured, exactly as the README says.
const root = resolve(import.meta.dirname, '../..');
const script = join(root, 'docs/walkthrough.sh');
const admin = { user: 'admin', password: 'walkthrough-admin-1' };
let dataDir: string;
let server: ChildServer;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'ticketrush-walkthrough-'));
  server = await startChildServer([join(root, 'bin/ticketrush.js'), 'start'], {
    ...process.env,
    PORT: '0',
    HOST: '127.0.0.1',
    TICKETRUSH_DATA_DIR: dataDir,
    TICKETRUSH_ADMIN_USER: admin.user,
    TICKETRUSH_ADMIN_PASSWORD: admin.password,
    TICKETRUSH_LOG_LEVEL: 'info',
  }, join(dataDir, 'server.log'));
}, 90_000);

afterAll(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

function runScript(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn('bash', [script], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, stdout, stderr });
    });
  });
}

describe('docs/walkthrough.sh', () => {
  it("pairs with the README's two one-line commands, and uses the README's admin by default", () => {
    const lines = readFileSync(join(root, 'README.md'), 'utf8').split('\n');
    expect(lines).toContain('npm ci && npm start');
    expect(lines).toContain('npm ci && npm test');
    // The README's start with an admin is the one the walk-through's defaults sign in as.
    expect(lines).toContain('TICKETRUSH_ADMIN_USER=admin TICKETRUSH_ADMIN_PASSWORD=change-me-please npm start');
    expect(readFileSync(script, 'utf8')).toContain('ADMIN_PASSWORD="${TICKETRUSH_ADMIN_PASSWORD:-change-me-please}"');
  });

  it('is shown verbatim in docs/api.md', () => {
    const api = readFileSync(join(root, 'docs/api.md'), 'utf8');
    const blocks = [...api.matchAll(/```bash\n([\s\S]*?)```/g)].map((m) => m[1]);
    expect(blocks).toContain(readFileSync(script, 'utf8'));
  });

  // One run: it signs up two users and logs in three times, well inside the login and sign-up
  // limits a fresh server applies to one address. Its names carry the run's time and pid.
  it('runs top to bottom on a fresh server', async () => {
    const result = await runScript({ TICKETRUSH_URL: server.url, TICKETRUSH_ADMIN_USER: admin.user, TICKETRUSH_ADMIN_PASSWORD: admin.password });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('"outcome":"ADMITTED"');
    expect(result.stdout).toContain('"outcome":"ALREADY_ADMITTED_SAME_SCAN"');
    expect(result.stdout).toContain('"code":"TICKET_ALREADY_USED"');
    expect(result.stdout).toMatch(/tickets.pdf: %PDF-, \d+ bytes/);
    expect(result.stdout.trimEnd().endsWith('walk-through complete')).toBe(true);
  }, 120_000);

  it('stops at the first step that fails, saying which', async () => {
    const result = await runScript({ TICKETRUSH_URL: `${server.url}/not-here`, TICKETRUSH_ADMIN_USER: admin.user, TICKETRUSH_ADMIN_PASSWORD: admin.password });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('FAILED: POST /auth/register answered 404');
    expect(result.stdout).not.toContain('walk-through complete');
  }, 60_000);
});
