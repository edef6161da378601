import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeFactories, type TestStoreHandle } from '../support/stores.js';
import { id } from './fixtures.js';

describe.each(storeFactories)('shared settings on $name', (factory) => {
  let h: TestStoreHandle;
  beforeAll(async () => {
    h = await factory.open();
  });
  afterAll(async () => h?.close());

  it('keeps the first value written under a name and answers it to every later writer', async () => {
    const name = id('setting');
    expect(await h.store.settleSetting(name, 'first')).toBe('first');
    expect(await h.store.settleSetting(name, 'second')).toBe('first');
    expect(await h.store.settleSetting(id('setting'), 'other')).toBe('other');
  });

  it('answers one value to writers racing on a fresh name (every process starting at once)', async () => {
    const name = id('setting');
    const answers = await Promise.all(Array.from({ length: 16 }, (_, i) => h.store.settleSetting(name, `candidate-${i}`)));
    expect(new Set(answers).size).toBe(1);
    expect(answers[0]).toMatch(/^candidate-\d+$/);
  });
});
