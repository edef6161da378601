#!/usr/bin/env node
// The timing report of the last `npm test` (or any run through scripts/run-tests.mjs): the cases
// of each pass by state and the ten slowest test files, from test-results/timings.jsonl (written by
// test/support/timing-reporter.ts). `node scripts/test-timings.mjs 20` lists twenty.
import { existsSync, readFileSync } from 'node:fs';

const file = 'test-results/timings.jsonl';
const top = Number(process.argv[2] ?? 10);
if (!existsSync(file)) {
  console.log(`no timings yet (${file}): run npm test first`);
  process.exit(0);
}
const rows = readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));
const passes = new Map();
for (const row of rows) {
  const pass = passes.get(row.pass) ?? { files: 0, passed: 0, failed: 0, skipped: 0, ms: 0 };
  pass.files++;
  pass.passed += row.passed;
  pass.failed += row.failed;
  pass.skipped += row.skipped;
  pass.ms += row.ms;
  passes.set(row.pass, pass);
}
console.log('\ntest cases by pass (files; passed, failed, skipped; summed file time):');
for (const [store, p] of passes) {
  console.log(`  ${store.padEnd(15)} ${String(p.files).padStart(4)} files  ${String(p.passed).padStart(5)} passed  ${p.failed} failed  ${p.skipped} skipped  ${(p.ms / 1000).toFixed(0)} s`);
}
console.log(`\nthe ${top} slowest test files:`);
for (const row of [...rows].sort((a, b) => b.ms - a.ms).slice(0, top)) {
  console.log(`  ${(row.ms / 1000).toFixed(1).padStart(6)} s  ${row.pass.padEnd(15)} ${row.file}`);
}
