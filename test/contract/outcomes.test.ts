import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeFactories, type TestStoreHandle } from '../support/stores.js';
import { outcomeScript } from './outcome-script.js';

/**
 * Every field of every outcome, on every adapter: the scripted sale of outcome-script.ts must
 * answer exactly what outcome-script.expected.json says (ids the test generated replaced by
 * names). Each adapter is held to the same file, so two adapters that pass it answer alike,
 * including fields no other test looks at (it caught PostgreSQL's claimSeats answering
 * `adjacent: false` for side-by-side seats).
 */
const expected = JSON.parse(readFileSync(new URL('./outcome-script.expected.json', import.meta.url), 'utf8')) as { step: string; outcome: unknown }[];

describe.each(storeFactories)('outcomes field by field on $name', (factory) => {
  let h: TestStoreHandle;
  let steps: { step: string; outcome: unknown }[];
  beforeAll(async () => {
    h = await factory.open();
    steps = await outcomeScript(h.store);
  });
  afterAll(async () => h?.close());

  it('runs the script step for step', () => {
    expect(steps.map((s) => s.step)).toEqual(expected.map((s) => s.step));
  });

  it.each(expected.map((s, i) => [s.step, i] as const))('%s', (_step, i) => {
    expect(steps[i]?.outcome).toStrictEqual(expected[i]?.outcome);
  });
});
