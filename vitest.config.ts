import { defineConfig } from 'vitest/config';

/**
 * Two projects over one pool of workers. Test files share a worker's module cache
 * (isolate: false): a fresh fork and a full re-import per file cost more than most files' tests,
 * and no file keeps module-level state another file could see (every test node composes its own
 * store, registry and clock). The browser files share one Chromium (test/web/chromium-server.ts),
 * each file opening contexts of its own.
 * Workers: two by default on this 2-core machine, since most files wait on timers, sockets and
 * PostgreSQL as much as they compute; TICKETRUSH_TEST_WORKERS sets another count.
 * scripts/run-tests.mjs runs the latency-bound files (the herd, the multi-process rush) alone.
 */
/** Files a run leaves out (scripts/run-tests.mjs runs them alone): a comma-separated list, since vitest's --exclude does not reach into projects. */
const excluded = (process.env.TICKETRUSH_TEST_EXCLUDE ?? '').split(',').filter(Boolean);

const shared = {
  pool: 'forks',
  isolate: false,
  testTimeout: 60_000,
  hookTimeout: 60_000,
} as const;

export default defineConfig({
  test: {
    maxWorkers: Number(process.env.TICKETRUSH_TEST_WORKERS ?? 2),
    reporters: ['default', './test/support/timing-reporter.ts'],
    projects: [
      { test: { ...shared, name: 'node', include: ['test/**/*.test.ts'], exclude: ['test/web/**', ...excluded] } },
      { test: { ...shared, name: 'browser', include: ['test/web/**/*.test.ts'], exclude: excluded, globalSetup: ['./test/web/chromium-server.ts'] } },
    ],
  },
});
