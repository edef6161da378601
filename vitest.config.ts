import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildSync } from 'esbuild';
import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';
import { passes } from './scripts/test-passes.mjs';

/**
 * One vitest project per test pass (scripts/test-passes.mjs: a store and its suites), all over one
 * pool of workers, so the SQLite, PostgreSQL and PostgreSQL + Redis passes of a run fill each
 * other's gaps instead of each waiting for its own slowest file. TICKETRUSH_TEST_PASSES names the
 * passes (scripts/run-tests.mjs sets it); without it, as in a direct `npx vitest run …`, every
 * file runs once on the store TICKETRUSH_TEST_STORE names (default sqlite).
 * Test files share a worker's module cache (isolate: false): a fresh fork and a full re-import per
 * file cost more than most files' tests, and no file keeps module-level state another file could
 * see (every test node composes its own store, registry and clock). The browser files share one
 * Chromium (test/web/chromium-server.ts), each opening contexts of its own.
 * Workers: two by default on a 2-core machine, since most files wait on timers, sockets and
 * PostgreSQL as much as they compute; TICKETRUSH_TEST_WORKERS sets another count.
 */
type Pass = { readonly store: string; readonly suites: readonly string[] };
const known = passes as Readonly<Record<string, Pass>>;

/** Files a run leaves out (scripts/run-tests.mjs runs them alone): a comma-separated list, since vitest's --exclude does not reach into projects. */
const excluded = (process.env.TICKETRUSH_TEST_EXCLUDE ?? '').split(',').filter(Boolean);
const named = (process.env.TICKETRUSH_TEST_PASSES ?? '').split(',').filter(Boolean);
const defaultStore = process.env.TICKETRUSH_TEST_STORE ?? 'sqlite';
const chosen: { name: string; pass: Pass }[] = named.length === 0
  ? [{ name: defaultStore, pass: { store: defaultStore, suites: [] } }]
  : named.map((name) => {
    const pass = known[name];
    if (pass === undefined) throw new Error(`TICKETRUSH_TEST_PASSES: no pass ${name} (${Object.keys(known).join(', ')})`);
    return { name, pass };
  });

/**
 * The SQLite store's thread, bundled once per run from the sources (packages left external): the
 * tests open hundreds of stores, and each thread registering tsx and transforming the sources again
 * cost about 200 ms of CPU (src/adapters/sqlite/store-thread.ts reads the variable). Named by its
 * content, written then renamed, so runs side by side never read a half-written file; bundles of
 * other sources older than a day are removed.
 */
function storeThreadBundle(): string {
  const dir = resolve('node_modules/.cache/ticketrush-tests');
  mkdirSync(dir, { recursive: true });
  const built = buildSync({ entryPoints: ['src/adapters/sqlite/store-thread-worker.ts'], bundle: true, platform: 'node', format: 'esm', target: 'node20', packages: 'external', sourcemap: 'inline', write: false, logLevel: 'error' });
  const text = built.outputFiles[0]!.contents;
  const file = join(dir, `store-thread-worker-${createHash('sha256').update(text).digest('hex').slice(0, 16)}.mjs`);
  const dayAgo = Date.now() - 86_400_000;
  for (const old of readdirSync(dir)) if (join(dir, old) !== file && statSync(join(dir, old)).mtimeMs < dayAgo) rmSync(join(dir, old), { force: true });
  const partial = `${file}.${process.pid}.tmp`;
  writeFileSync(partial, text);
  renameSync(partial, file);
  return file;
}
const storeThread = storeThreadBundle();

const globsOf = (suites: readonly string[]): string[] => (suites.length === 0 ? ['test/**/*.test.ts'] : suites.map((s) => (s.endsWith('.ts') ? s : `${s}/**/*.test.ts`)));
const isWeb = (suite: string): boolean => suite === 'test/web' || suite.startsWith('test/web/');

const shared = { pool: 'forks', isolate: false, testTimeout: 60_000, hookTimeout: 60_000 } as const;

const projects: TestProjectInlineConfiguration[] = chosen.flatMap(({ name, pass }) => {
  // Child servers inherit the lowest scrypt cost too (test nodes set it themselves: test/support/backend.ts).
  const env = { TICKETRUSH_TEST_STORE: pass.store, TICKETRUSH_SCRYPT_COST: process.env.TICKETRUSH_SCRYPT_COST ?? '1024', TICKETRUSH_STORE_THREAD_BUNDLE: storeThread };
  const node: TestProjectInlineConfiguration = { test: { ...shared, name, env, include: globsOf(pass.suites), exclude: ['test/web/**', ...excluded] } };
  const web = pass.suites.length === 0 ? ['test/web'] : pass.suites.filter(isWeb);
  if (web.length === 0) return [node];
  return [node, { test: { ...shared, name: `${name} browser`, env, include: globsOf(web), exclude: excluded, globalSetup: ['./test/web/chromium-server.ts'] } }];
});

export default defineConfig({
  test: {
    maxWorkers: Number(process.env.TICKETRUSH_TEST_WORKERS ?? 2),
    reporters: ['default', './test/support/timing-reporter.ts'],
    projects,
  },
});
