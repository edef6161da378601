#!/usr/bin/env node
// `npm run simulate -- --runs N --seed S [--steps K] [--store sqlite|postgres]`: more runs of the
// seeded money simulation (test/sim) than CI's, through the same test file: seeds S, S+1, …,
// S+N-1, each K steps (default 60). A failure prints its seed and every step; the same seed
// replays it exactly.
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '10' },
    seed: { type: 'string', default: String(Date.now() % 1_000_000_000) },
    steps: { type: 'string', default: '60' },
    store: { type: 'string', default: process.env.TICKETRUSH_TEST_STORE ?? 'sqlite' },
  },
});
for (const name of ['runs', 'seed', 'steps']) {
  if (!/^\d+$/.test(values[name])) {
    console.error(`--${name} must be a whole number (got ${values[name]})`);
    process.exit(2);
  }
}
if (!['sqlite', 'postgres', 'postgres+redis'].includes(values.store)) {
  console.error(`--store must be sqlite, postgres or postgres+redis (got ${values.store})`);
  process.exit(2);
}
console.log(`money simulation: ${values.runs} runs of ${values.steps} steps from seed ${values.seed} on ${values.store}`);
const result = spawnSync('npx', ['vitest', 'run', 'test/sim/money-simulation.test.ts'], {
  stdio: 'inherit',
  env: {
    ...process.env,
    TICKETRUSH_TEST_STORE: values.store,
    TICKETRUSH_SIM_RUNS: values.runs,
    TICKETRUSH_SIM_SEED: values.seed,
    TICKETRUSH_SIM_STEPS: values.steps,
  },
});
process.exit(result.status ?? 1);
