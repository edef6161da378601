import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { admissionsDue, checkWaitingRoomSettings, compareQueueOrder, estimatedWaitSeconds, placeInLine, queueEntryMachine, waitingRoomBounds } from '../../src/domain/index.js';

/** A small seeded PRNG (mulberry32): the shuffle's randomness is injected, so tests can seed it. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Spearman's rank correlation of two orderings of 0..n-1 (rank[i] = where i ended up). */
function spearman(ranks: readonly number[]): number {
  const n = ranks.length;
  const d2 = ranks.reduce((sum, r, i) => sum + (r - i) ** 2, 0);
  return 1 - (6 * d2) / (n * (n * n - 1));
}

const opensAt = 1_000_000;

/** Admission order of `n` joiners who arrive one per ms, some before the opening: the indexes in the order they are let in. */
function admissionOrder(n: number, firstJoinAt: number, random: () => number): number[] {
  const entries = Array.from({ length: n }, (_, i) => ({ i, queueId: `q${String(i).padStart(5, '0')}`, joinedAt: firstJoinAt + i, ...placeInLine(firstJoinAt + i, opensAt, random) }));
  return [...entries].sort(compareQueueOrder).map((e) => e.i);
}

describe('waiting room fairness (pure rules)', () => {
  it('admits those who joined before the opening in a random order unrelated to their join order (seeded shuffle, rank correlation near 0)', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 2 ** 31 - 1 }), (seed) => {
      const n = 300;
      const order = admissionOrder(n, opensAt - 10_000, seeded(seed));
      // A permutation: everyone once.
      expect([...order].sort((a, b) => a - b)).toEqual(Array.from({ length: n }, (_, i) => i));
      const rank = new Array<number>(n);
      order.forEach((joiner, position) => {
        rank[joiner] = position;
      });
      // |rho| of a random permutation of 300 has a standard deviation of 1/sqrt(299) ~ 0.058: 0.3 is > 5 of them.
      expect(Math.abs(spearman(rank))).toBeLessThan(0.3);
    }), { numRuns: 50 });
  });

  it('the same seed gives the same order, another seed another (the randomness is the injected source, nothing else)', () => {
    expect(admissionOrder(50, opensAt - 1_000, seeded(7))).toEqual(admissionOrder(50, opensAt - 1_000, seeded(7)));
    expect(admissionOrder(50, opensAt - 1_000, seeded(7))).not.toEqual(admissionOrder(50, opensAt - 1_000, seeded(8)));
  });

  it('admits every early joiner before any later arrival, and later arrivals in arrival order', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 2 ** 31 - 1 }), fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 40 }), (seed, early, late) => {
      const order = admissionOrder(early + late, opensAt - early, seeded(seed));
      expect(order.slice(0, early).every((i) => i < early)).toBe(true);
      expect(order.slice(early)).toEqual(Array.from({ length: late }, (_, k) => early + k));
    }), { numRuns: 100 });
  });

  it('admits at the set rate over any pattern of passes, never before opening, while paused, or with nothing left', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 6_000 }), fc.array(fc.integer({ min: 1, max: 3_000 }), { minLength: 1, maxLength: 200 }), (rate, gaps) => {
      let carry = 0;
      let admitted = 0;
      let elapsed = 0;
      for (const gap of gaps) {
        const due = admissionsDue({ admitPerMinute: rate, elapsedMs: gap, carried: carry, open: true, leftToSell: true });
        expect(due.admit).toBeGreaterThanOrEqual(0);
        expect(due.admit).toBeLessThanOrEqual(waitingRoomBounds.admitPerPassMax);
        admitted += due.admit;
        carry = due.carry;
        elapsed += gap;
      }
      // Gaps stay under the catch-up bound and no pass hits its cap: exactly the rate, within one place.
      const expected = (rate * elapsed) / 60_000;
      if (expected / gaps.length < waitingRoomBounds.admitPerPassMax) expect(Math.abs(admitted - expected)).toBeLessThanOrEqual(1);
    }));
    for (const closed of [{ open: false, leftToSell: true, admitPerMinute: 600 }, { open: true, leftToSell: false, admitPerMinute: 600 }, { open: true, leftToSell: true, admitPerMinute: 0 }]) {
      expect(admissionsDue({ ...closed, elapsedMs: 60_000, carried: 0.9 })).toEqual({ admit: 0, carry: 0 });
    }
    // A long gap (a paused admitter) is made up for at most catchUpMsMax: no burst.
    expect(admissionsDue({ admitPerMinute: 600, elapsedMs: 3_600_000, carried: 0, open: true, leftToSell: true }).admit).toBe(50);
  });

  it('checks the bounds, tells the wait, and moves places only along the machine', () => {
    expect(checkWaitingRoomSettings({ enabled: true, admitPerMinute: 0, admissionSeconds: 30 }).ok).toBe(true);
    for (const bad of [{ admitPerMinute: -1, admissionSeconds: 600 }, { admitPerMinute: 60_001, admissionSeconds: 600 }, { admitPerMinute: 1, admissionSeconds: 29 }, { admitPerMinute: 1, admissionSeconds: 3_601 }, { admitPerMinute: 0.5, admissionSeconds: 600 }]) {
      const r = checkWaitingRoomSettings({ enabled: true, ...bad });
      expect(r.ok ? null : r.error.code).toBe('INVALID_WAITING_ROOM');
    }
    expect(estimatedWaitSeconds(600, 600)).toBe(60);
    expect(estimatedWaitSeconds(1, 0)).toBeNull();
    expect(queueEntryMachine.can('WAITING', 'ADMIT')).toBe(true);
    expect(queueEntryMachine.can('ADMITTED', 'ADMIT')).toBe(false);
    expect(queueEntryMachine.can('BLOCKED', 'REJOIN')).toBe(false);
    expect(queueEntryMachine.can('SOLD_OUT', 'REJOIN')).toBe(false);
    expect(queueEntryMachine.transition('LEFT', 'REJOIN')).toEqual({ ok: true, value: 'WAITING' });
  });
});
