import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyCut, bargainReady, createBargain, drawCut } from '../../src/domain/index.js';
import { storeFactories, type TestStoreHandle } from '../support/stores.js';
import { bargainOrderInput, cutInput, id, minute, newUser, T0 } from './fixtures.js';

/** A seeded source of uniform numbers in [0, 1) (mulberry32): the same seed, the same draws. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const rules = fc.record({
  originalPriceCents: fc.integer({ min: 2, max: 50_000 }),
  floorFraction: fc.double({ min: 0, max: 0.99, noNaN: true }),
  cutMinCents: fc.integer({ min: 1, max: 2_000 }),
  cutSpan: fc.integer({ min: 0, max: 3_000 }),
  minCuts: fc.integer({ min: 1, max: 8 }),
}).map((r) => ({
  originalPriceCents: r.originalPriceCents,
  floorPriceCents: Math.min(r.originalPriceCents - 1, Math.floor(r.originalPriceCents * r.floorFraction)),
  cutMinCents: r.cutMinCents, cutMaxCents: r.cutMinCents + r.cutSpan, minCuts: r.minCuts,
}));

describe('bargain rules (pure, seeded random source)', () => {
  it('every draw is within [cutMin, cutMax]; cuts never pass the floor; the cuts sum to original - current; ready exactly at the floor or minCuts', () => {
    fc.assert(fc.property(rules, fc.integer(), fc.integer({ min: 0, max: 60 }), (r, seed, helpers) => {
      const random = seeded(seed);
      let price = r.originalPriceCents;
      let cuts = 0;
      let sum = 0;
      for (let i = 0; i < helpers; i++) {
        if (price <= r.floorPriceCents) break;
        const draw = drawCut(r, random);
        expect(draw).toBeGreaterThanOrEqual(r.cutMinCents);
        expect(draw).toBeLessThanOrEqual(r.cutMaxCents);
        const cut = applyCut(price, r.floorPriceCents, draw);
        expect(cut.amountCents).toBeGreaterThan(0);
        expect(cut.amountCents).toBeLessThanOrEqual(draw);
        expect(cut.currentPriceCents).toBeGreaterThanOrEqual(r.floorPriceCents);
        price = cut.currentPriceCents;
        sum += cut.amountCents;
        cuts++;
      }
      expect(sum).toBe(r.originalPriceCents - price);
      expect(bargainReady({ currentPriceCents: price, cuts }, r)).toBe(price === r.floorPriceCents || cuts >= r.minCuts);
    }), { seed: 23, numRuns: 500 });
  });

  it('the same seed gives the same draws; a source outside [0, 1) is never trusted past the range', () => {
    const a = seeded(7);
    const b = seeded(7);
    const r = { cutMinCents: 10, cutMaxCents: 20 };
    expect(Array.from({ length: 20 }, () => drawCut(r, a))).toEqual(Array.from({ length: 20 }, () => drawCut(r, b)));
    expect(drawCut(r, () => 0.999_999_999)).toBe(20);
    expect(drawCut(r, () => 1)).toBe(10);
    expect(drawCut(r, () => Number.NaN)).toBe(10);
  });

  it('refuses bad rules: cutMin above cutMax, a floor at or above the original, negative or huge numbers, a window ending before it starts', () => {
    const good = { title: 'B', goods: 'G', originalPriceCents: 1000, floorPriceCents: 500, cutMinCents: 10, cutMaxCents: 20, minCuts: 1, stock: 1, saleStartsAt: T0, saleEndsAt: T0 + minute };
    expect(createBargain(good, 'brg_1', T0).ok).toBe(true);
    for (const patch of [{ cutMinCents: 30 }, { floorPriceCents: 1000 }, { floorPriceCents: -1 }, { stock: 0 }, { stock: 10_000_000 }, { originalPriceCents: 100_000_001 }, { saleEndsAt: T0 - 1 }, { minCuts: 0 }, { cutMinCents: 0 }]) {
      const made = createBargain({ ...good, ...patch }, 'brg_1', T0);
      expect(made.ok ? 'ok' : made.error.code, JSON.stringify(patch)).toBe('INVALID_BARGAIN');
    }
  });
});

/**
 * The stored rules against the pure model: random sequences of cuts (by new or repeated
 * helpers, draws from a seeded source) and order attempts on one bargain order; after each step
 * the store's answer and state equal the model's.
 */
type Step = { kind: 'cut'; helper: number } | { kind: 'order' };
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('cut' as const), helper: fc.nat(9) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'order' as const }) },
);

describe.each(storeFactories)('bargain rules as stored on $name', (factory) => {
  let h: TestStoreHandle;
  beforeAll(async () => {
    h = await factory.open();
  });
  afterAll(async () => h?.close());

  it('answers every cut and order as the model does', async () => {
    await fc.assert(fc.asyncProperty(rules, fc.integer(), fc.array(step, { minLength: 1, maxLength: 25 }), async (r, seed, steps) => {
      const bargainId = id('brg');
      const made = createBargain({ title: 'Model', goods: 'G', ...r, stock: 1, saleStartsAt: T0 - minute, saleEndsAt: T0 + 60 * minute }, bargainId, T0 - 2 * minute);
      if (!made.ok) throw new Error(made.error.message);
      await h.store.createBargain(made.value);
      const buyer = await newUser(h.store);
      const started = await h.store.startBargain({ bargainId, userId: buyer, bargainOrderId: id('bgo'), now: T0 });
      if (!started.ok) throw new Error(started.code);
      const bo = started.bargainOrder.bargainOrderId;
      // One after another: a property run makes many, and the database is shared.
      const helpers: string[] = [];
      for (let i = 0; i < 10; i++) helpers.push(await newUser(h.store));
      const random = seeded(seed);
      const model = { price: r.originalPriceCents, cuts: 0, cutBy: new Set<number>(), ordered: false };
      for (const s of steps) {
        if (s.kind === 'cut') {
          const draw = drawCut(r, random);
          const got = await h.store.cutBargain(cutInput(bo, helpers[s.helper] as string, draw));
          if (model.ordered) expect(got).toEqual({ ok: false, code: 'BARGAIN_CLOSED' });
          else if (model.price <= r.floorPriceCents) expect(got).toEqual({ ok: false, code: 'FLOOR_REACHED' });
          else if (model.cutBy.has(s.helper)) expect(got).toEqual({ ok: false, code: 'ALREADY_CUT' });
          else {
            const cut = applyCut(model.price, r.floorPriceCents, draw);
            model.price = cut.currentPriceCents;
            model.cuts++;
            model.cutBy.add(s.helper);
            expect(got).toEqual({ ok: true, amountCents: cut.amountCents, currentPriceCents: model.price, cuts: model.cuts });
          }
        } else {
          const got = await h.store.orderBargain(bargainOrderInput(bo, buyer));
          if (model.ordered) expect(got).toMatchObject({ ok: false, code: 'ALREADY_ORDERED' });
          else if (!bargainReady({ currentPriceCents: model.price, cuts: model.cuts }, r)) expect(got).toEqual({ ok: false, code: 'BARGAIN_NOT_READY' });
          else {
            expect(got).toMatchObject({ ok: true, order: { amountCents: model.price, kind: 'BARGAIN' } });
            model.ordered = true;
          }
        }
      }
      const stored = await h.store.getBargainOrder(bo);
      expect(stored).toMatchObject({ currentPriceCents: model.price, cuts: model.cuts });
      const cuts = await h.store.listBargainCuts(bo, 100);
      expect(cuts.reduce((n, c) => n + c.amountCents, 0)).toBe(r.originalPriceCents - model.price);
    }), { seed: 2026, numRuns: 25 });
  }, 120_000);
});
