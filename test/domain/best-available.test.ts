import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { candidateRows, chooseBestAvailable, formsAdjacentRun, seatIdOf, type SeatedSectionSpec, type SeatMapSpec, type SeatPosition } from '../../src/domain/index.js';

const sections: SeatedSectionSpec[] = [
  { id: 'A', name: 'Stalls', kind: 'SEATED', rows: 4, seatsPerRow: 9, priceCents: 100, sellBy: 'SEAT', accessible: [{ row: 4, number: 1 }, { row: 4, number: 2 }] },
  { id: 'B', name: 'Circle', kind: 'SEATED', rows: 2, seatsPerRow: 5, priceCents: 50, sellBy: 'SEAT', accessible: [] },
];
const seatMap: SeatMapSpec = { sections };

function layout(taken: ReadonlySet<string> = new Set()): SeatPosition[] {
  return sections.flatMap((s) =>
    Array.from({ length: s.rows * s.seatsPerRow }, (_, i) => {
      const row = Math.floor(i / s.seatsPerRow) + 1;
      const number = (i % s.seatsPerRow) + 1;
      const seatId = seatIdOf(s.id, row, number);
      return { seatId, section: s.id, row, number, available: !taken.has(seatId), accessible: s.accessible.some((a) => a.row === row && a.number === number) };
    }),
  );
}

describe('best-available seats', () => {
  it('picks N adjacent seats in the front row, centred', () => {
    expect(chooseBestAvailable(seatMap, layout(), { quantity: 3, section: 'A', adjacentOnly: true })).toMatchObject({ seatIds: ['A-1-4', 'A-1-5', 'A-1-6'], adjacent: true });
  });

  it('sits nearest a preferred seat when the buyer names one', () => {
    const choice = chooseBestAvailable(seatMap, layout(), { quantity: 2, near: { section: 'B', row: 2, number: 1 }, adjacentOnly: true });
    expect(choice).toMatchObject({ seatIds: ['B-2-1', 'B-2-2'], adjacent: true });
  });

  it('moves back a row rather than split a party', () => {
    const choice = chooseBestAvailable(seatMap, layout(new Set(['A-1-3', 'A-1-4', 'A-1-5', 'A-1-6'])), { quantity: 4, section: 'A', adjacentOnly: true });
    expect(choice).toMatchObject({ seatIds: ['A-2-3', 'A-2-4', 'A-2-5', 'A-2-6'], adjacent: true });
  });

  it('prefers a row further back to leaving a single orphan seat nobody can sell', () => {
    // With A-1-4 taken, any four of A-1-5..9 strand one seat; row 2 strands none.
    const choice = chooseBestAvailable(seatMap, layout(new Set(['A-1-4'])), { quantity: 4, section: 'A', adjacentOnly: true });
    expect(choice?.seatIds.every((id) => id.startsWith('A-2-'))).toBe(true);
    // A pair fits A-1-5..9 without an orphan only at the block's edge or leaving two: still row 1.
    expect(chooseBestAvailable(seatMap, layout(new Set(['A-1-4'])), { quantity: 2, section: 'A', adjacentOnly: true })?.seatIds[0]?.startsWith('A-1-')).toBe(true);
  });

  it('refuses scattered seats unless the buyer allows them, then says they are not together', () => {
    // Leave only every other seat free in section B.
    const taken = new Set(layout().filter((s) => s.section === 'B' && s.number % 2 === 0).map((s) => s.seatId));
    expect(chooseBestAvailable(seatMap, layout(taken), { quantity: 2, section: 'B', adjacentOnly: true })).toBeNull();
    const split = chooseBestAvailable(seatMap, layout(taken), { quantity: 2, section: 'B', adjacentOnly: false });
    expect(split?.adjacent).toBe(false);
    expect(split?.seatIds).toHaveLength(2);
  });

  it('finds accessible seats when asked, and reads rows nearest the point first', () => {
    const choice = chooseBestAvailable(seatMap, layout(), { quantity: 2, section: 'A', adjacentOnly: true, accessibleMin: 2 });
    expect(choice?.seatIds.sort()).toEqual(['A-4-1', 'A-4-2']);
    expect(chooseBestAvailable(seatMap, layout(new Set(['A-4-1'])), { quantity: 2, section: 'A', adjacentOnly: false, accessibleMin: 2 })).toBeNull();
    const rows = candidateRows(seatMap, { section: 'A' });
    expect(rows.map((r) => r.row)).toEqual([1, 2, 3, 4]);
    expect(rows.every((r, i) => i === 0 || (rows[i - 1] as { minDistance: number }).minDistance <= r.minDistance)).toBe(true);
  });

  it('never returns a taken, duplicate or missing seat, and "adjacent" is true only for one unbroken run', () => {
    const ids = layout().map((s) => s.seatId);
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.constantFrom(...ids), { maxLength: ids.length }),
        fc.integer({ min: 1, max: 6 }),
        fc.boolean(),
        fc.option(fc.constantFrom('A', 'B'), { nil: undefined }),
        (takenIds, quantity, allowSplit, section) => {
          const seats = layout(new Set(takenIds));
          const choice = chooseBestAvailable(seatMap, seats, { quantity, adjacentOnly: !allowSplit, ...(section === undefined ? {} : { section }) });
          const free = seats.filter((s) => s.available && (section === undefined || s.section === section));
          if (choice === null) {
            // Refused only when there are too few seats, or no run and no permission to split.
            if (allowSplit) expect(free.length).toBeLessThan(quantity);
            else expect(longestRun(free)).toBeLessThan(quantity);
            return;
          }
          const byId = new Map(seats.map((s) => [s.seatId, s]));
          const picked = choice.seatIds.map((id) => byId.get(id));
          expect(new Set(choice.seatIds).size).toBe(quantity);
          expect(picked.every((s) => s?.available === true && (section === undefined || s.section === section))).toBe(true);
          expect(choice.adjacent).toBe(formsAdjacentRun(picked.flatMap((s) => s ?? [])));
          if (!allowSplit) expect(choice.adjacent).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('stops at the rows that cannot beat its choice, and answers what looking at every run answers, in any input order', () => {
    const ids = layout().map((s) => s.seatId);
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.constantFrom(...ids), { maxLength: ids.length }),
        fc.integer({ min: 1, max: 5 }),
        fc.option(fc.record({ section: fc.constantFrom('A', 'B'), row: fc.integer({ min: 1, max: 4 }), number: fc.integer({ min: 1, max: 9 }) }), { nil: undefined }),
        fc.integer({ min: 0, max: 2 }),
        fc.infiniteStream(fc.double({ min: 0, max: 1, noNaN: true })),
        (takenIds, quantity, near, accessibleMin, shuffle) => {
          const ordered = layout(new Set(takenIds));
          // Free seats only, as adapters pass them, shuffled (the chooser must not depend on row order).
          const keys = ordered.map(() => shuffle.next().value as number);
          const seats = ordered.filter((s) => s.available).map((s, i) => ({ s, k: keys[i] as number })).sort((a, b) => a.k - b.k).map(({ s }) => s);
          const request = { quantity, adjacentOnly: true, accessibleMin, ...(near === undefined ? {} : { near }) };
          const choice = chooseBestAvailable(seatMap, seats, request);
          expect(choice?.seatIds ?? null).toEqual(everyRunBest(seats, request));
        },
      ),
      { numRuns: 400 },
    );
  });
});

/**
 * The reference the chooser must match: score every run of `quantity` consecutive free seats in
 * every row; fewest orphans, then nearest, then the row met first in the input, then the first run.
 */
function everyRunBest(seats: readonly SeatPosition[], request: { quantity: number; accessibleMin: number; near?: { section: string; row: number; number: number } }): string[] | null {
  const rowOrder: string[] = [];
  const rows = new Map<string, SeatPosition[]>();
  for (const seat of seats) {
    const key = `${seat.section}/${seat.row}`;
    if (!rows.has(key)) rowOrder.push(key);
    rows.set(key, [...(rows.get(key) ?? []), seat]);
  }
  const width = (section: string) => (sections.find((s) => s.id === section) as SeatedSectionSpec).seatsPerRow;
  const distance = (section: string, row: number, number: number) => {
    const { near } = request;
    if (near !== undefined && section === near.section) return Math.abs(row - near.row) * 2 + Math.abs(number - near.number);
    return (near === undefined ? 0 : 1_000_000) + (row - 1) * 2 + Math.abs(number - (width(section) + 1) / 2);
  };
  let best: { ids: string[]; key: number[] } | null = null;
  rowOrder.forEach((rowKey, order) => {
    const row = [...(rows.get(rowKey) as SeatPosition[])].sort((a, b) => a.number - b.number);
    const blocks: SeatPosition[][] = [];
    for (const seat of row) {
      const last = blocks.at(-1);
      if (last !== undefined && (last.at(-1) as SeatPosition).number + 1 === seat.number) last.push(seat);
      else blocks.push([seat]);
    }
    for (const block of blocks) {
      for (let start = 0; start + request.quantity <= block.length; start++) {
        const run = block.slice(start, start + request.quantity);
        if (run.filter((s) => s.accessible).length < request.accessibleMin) continue;
        const orphans = (start === 1 ? 1 : 0) + (block.length - start - request.quantity === 1 ? 1 : 0);
        const first = run[0] as SeatPosition;
        const key = [orphans, distance(first.section, first.row, (first.number + (run.at(-1) as SeatPosition).number) / 2), order];
        if (best === null || lexicallyBelow(key, best.key)) best = { ids: run.map((s) => s.seatId), key };
      }
    }
  });
  return best === null ? null : (best as { ids: string[] }).ids;
}

function lexicallyBelow(a: readonly number[], b: readonly number[]): boolean {
  const i = a.findIndex((x, j) => x !== b[j]);
  return i >= 0 && (a[i] as number) < (b[i] as number);
}

/** The most free seats side by side in one row of one section. */
function longestRun(free: readonly { section: string; row: number; number: number }[]): number {
  const rows = new Map<string, number[]>();
  for (const s of free) rows.set(`${s.section}/${s.row}`, [...(rows.get(`${s.section}/${s.row}`) ?? []), s.number]);
  let longest = 0;
  for (const numbers of rows.values()) {
    numbers.sort((a, b) => a - b);
    let run = 0;
    numbers.forEach((n, i) => {
      run = i > 0 && n === (numbers[i - 1] as number) + 1 ? run + 1 : 1;
      longest = Math.max(longest, run);
    });
  }
  return longest;
}
