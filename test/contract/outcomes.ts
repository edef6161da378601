import { expect } from 'vitest';

/**
 * Deep comparison of store outcomes, field by field, across adapters. Ids the test generated
 * (shows, users, holds, orders: random per run) are replaced by the names the test gave them,
 * so everything else (codes, seat ids, versions, prices, `adjacent`, the changes) must be
 * EQUAL, not merely present: a field one adapter gets wrong is a red test, not a partial match.
 */
export class Names {
  private readonly byId = new Map<string, string>();

  /** Registers `id` to appear as `name` in normalised outcomes. Returns the id, for chaining. */
  name<T extends string>(id: T, name: string): T {
    this.byId.set(id, `<${name}>`);
    return id;
  }

  /** The value with every registered id replaced by its name (keys and values, recursively); key order kept. */
  normalise(value: unknown): unknown {
    if (typeof value === 'string') return this.byId.get(value) ?? value;
    if (Array.isArray(value)) return value.map((v) => this.normalise(v));
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined).map(([k, v]) => [this.byId.get(k) ?? k, this.normalise(v)]));
    }
    return value;
  }
}

/** Asserts the normalised outcome is deeply equal to `expected` (every field, no extra ones). */
export function expectOutcome(names: Names, actual: unknown, expected: unknown): void {
  expect(names.normalise(actual)).toStrictEqual(expected);
}
