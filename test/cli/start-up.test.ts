import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describeStore } from '../../src/compose.js';
import { loadConfig } from '../../src/config.js';
import { createTestDatabase, testStore } from '../support/backend.js';
import { startChildServer } from '../support/child-server.js';

// Start-up as an operator meets it, on the built CLI (npm test builds dist/ first): what the log
// says about the store, what a taken port prints, and how fast `--version` answers.
const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'bin/ticketrush.js');
const scratch = mkdtempSync(join(tmpdir(), 'ticketrush-start-up-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A preload that records every module the CLI resolves, through Node's module hooks. */
function moduleRecorder(): { args: string[]; loaded: () => string[] } {
  const log = join(scratch, `loaded-${process.hrtime.bigint()}.txt`);
  writeFileSync(log, '');
  const hooks = join(scratch, 'hooks.mjs');
  writeFileSync(hooks, `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(${JSON.stringify(log)}, result.url + '\\n');
  return result;
}
`);
  const register = join(scratch, 'register.mjs');
  writeFileSync(register, `import { register } from 'node:module';\nregister(${JSON.stringify(`file://${hooks}`)});\n`);
  return { args: ['--import', register], loaded: () => readFileSync(log, 'utf8').split('\n').filter((line) => line !== '') };
}

describe('ticketrush --version', () => {
  it('loads neither the server nor a store driver', () => {
    const recorder = moduleRecorder();
    const run = spawnSync(process.execPath, [...recorder.args, bin, '--version'], { encoding: 'utf8', timeout: 30_000 });
    expect(run.status).toBe(0);
    const loaded = recorder.loaded();
    expect(loaded.some((url) => url.endsWith('/dist/cli.js'))).toBe(true);
    expect(loaded.filter((url) => /\/dist\/(compose|config|http\/|adapters\/)|\/node_modules\/(fastify|better-sqlite3|pg|pino)\//.test(url))).toEqual([]);
  });

  it('answers in well under a second', () => {
    // The fastest of three, so a neighbour's burst on a shared machine does not decide it.
    const times = [0, 1, 2].map(() => {
      const started = performance.now();
      const run = spawnSync(process.execPath, [bin, '--version'], { encoding: 'utf8', timeout: 30_000 });
      expect(run.status).toBe(0);
      return performance.now() - started;
    });
    expect(Math.min(...times)).toBeLessThan(500);
  });
});

describe('ticketrush start', () => {
  it(`names the store in use in the start-up log (${testStore})`, async () => {
    const database = await createTestDatabase({ prefix: 'ticketrush-start-up-store-' });
    const logFile = join(scratch, `store-${testStore}.log`);
    try {
      const server = await startChildServer([bin, 'start'], { ...process.env, PORT: '0', HOST: '127.0.0.1', TICKETRUSH_DEMO: '0', ...database.env }, logFile);
      await server.stop();
      const ready = readFileSync(logFile, 'utf8').split('\n').find((line) => line.includes('TicketRush is ready'));
      expect(ready).toBeDefined();
      const { store, msg } = JSON.parse(ready ?? '{}') as { store?: string; msg?: string };
      if (testStore === 'sqlite') {
        expect(store).toBe(`SQLite ${join(database.dataDir, 'ticketrush.db')}`);
      } else {
        // Host, port and database of TICKETRUSH_TEST_DATABASE_URL, and the test's own schema.
        expect(store).toMatch(new RegExp(`^PostgreSQL [^\\s@]+:\\d+/\\S+ schema ${database.env.TICKETRUSH_DATABASE_SCHEMA ?? '-'}$`));
      }
      expect(msg).toContain(`(store: ${store})`);
    } finally {
      await database.drop();
    }
  });

  it('prints one line naming the port and PORT, and exits non-zero, when the port is taken', async () => {
    const blocker = createServer();
    await new Promise<void>((done) => blocker.listen(0, '127.0.0.1', done));
    const { port } = blocker.address() as AddressInfo;
    const dataDir = mkdtempSync(join(scratch, 'port-'));
    try {
      const run = spawnSync(process.execPath, [bin, 'start'], {
        encoding: 'utf8',
        timeout: 60_000,
        env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', TICKETRUSH_DEMO: '0', TICKETRUSH_DATA_DIR: dataDir, TICKETRUSH_DATABASE_URL: '' },
      });
      expect(run.status).toBe(1);
      const lines = run.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(`port ${port} on 127.0.0.1 is already in use`);
      expect(lines[0]).toContain('PORT');
      expect(run.stderr).not.toMatch(/^\s+at /m);
    } finally {
      await new Promise((done) => blocker.close(done));
    }
  });
});

describe('describeStore', () => {
  const postgres = (url: string) => describeStore(loadConfig({ TICKETRUSH_DATA_DIR: join(scratch, 'config'), TICKETRUSH_DATABASE_URL: url, TICKETRUSH_DATABASE_SCHEMA: 'box_office' }).database);

  it('names the PostgreSQL host, port, database and schema, never the user or password', () => {
    const said = postgres('postgres://ticketrush:s3cret-pw@db.example.internal:6543/sales?sslmode=require');
    expect(said).toBe('PostgreSQL db.example.internal:6543/sales schema box_office');
    expect(said).not.toContain('s3cret');
    expect(said).not.toContain('ticketrush');
  });

  it('fills in what node-postgres would: port 5432, the database named after the user', () => {
    expect(postgres('postgresql://alice@127.0.0.1')).toBe('PostgreSQL 127.0.0.1:5432/alice schema box_office');
  });
});
