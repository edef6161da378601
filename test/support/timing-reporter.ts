import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

/**
 * Appends one line per test file to test-results/timings.jsonl (wall time in the worker: set-up,
 * import, tests and hooks; the case counts by state), tagged with its pass (the vitest
 * project: sqlite, postgres, postgres+redis). scripts/run-tests.mjs empties the file before a run and prints the ten
 * slowest files and each pass's case counts after it (scripts/test-timings.mjs), so the change that
 * slows the suite is seen.
 */
export const timingsFile = resolve(import.meta.dirname, '../../test-results/timings.jsonl');
/** The cases of two seconds or more, one line each (what a slow file spends its time on). */
export const slowCasesFile = resolve(import.meta.dirname, '../../test-results/slow-cases.jsonl');

export default class TimingReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const root = resolve(import.meta.dirname, '../..');
    const slow: string[] = [];
    const lines = testModules.map((module) => {
      const d = module.diagnostic();
      const counts = { passed: 0, failed: 0, skipped: 0 };
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        const took = test.diagnostic()?.duration ?? 0;
        if (took >= 2_000) slow.push(JSON.stringify({ pass: module.project.name, file: relative(root, module.moduleId), test: test.fullName, ms: Math.round(took) }));
        if (state === 'passed') counts.passed++;
        else if (state === 'failed') counts.failed++;
        else counts.skipped++;
      }
      const ms = Math.round(d.environmentSetupDuration + d.prepareDuration + d.setupDuration + d.collectDuration + d.duration);
      // The pass is the project's name (vitest.config.ts), its browser files counted with it.
      const pass = module.project.name.replace(/ browser$/, '');
      return JSON.stringify({ pass, file: relative(root, module.moduleId), ms, ...counts });
    });
    if (lines.length === 0) return;
    mkdirSync(dirname(timingsFile), { recursive: true });
    appendFileSync(timingsFile, `${lines.join('\n')}\n`);
    if (slow.length > 0) appendFileSync(slowCasesFile, `${slow.join('\n')}\n`);
  }
}
