import { describe, expect, it } from 'vitest';
import { randomIds } from '../../src/adapters/runtime/random-ids.js';

describe('random ids', () => {
  it('sort in the order one process made them, within the same millisecond too', () => {
    // Thousands of ids take a few milliseconds: most share one with their neighbours.
    const made = Array.from({ length: 5_000 }, () => randomIds.newId('auditEntry'));
    expect([...made].sort()).toEqual(made);
    expect(new Set(made).size).toBe(made.length);
  });

  it('carry their kind and no characters a URL would escape', () => {
    const id = randomIds.newId('order');
    expect(id).toMatch(/^ord_[0-9A-Z]{14}[A-Za-z0-9_-]{16}$/);
  });
});
