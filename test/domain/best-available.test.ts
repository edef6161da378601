import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  candidateRows, chooseBestAvailable, formsAdjacentRun, seatIdOf, venueGeometry, type SeatedSectionSpec, type SeatMapSpec, type SeatPosition,
} from '../../src/domain/index.js';

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

/** The demo show (src/app/catalog.ts ensureDemoShow): the stalls in front, the balcony behind. */
const demoSections: SeatedSectionSpec[] = [
  { id: 'A', name: 'Stalls', kind: 'SEATED', rows: 10, seatsPerRow: 20, priceCents: 12800, sellBy: 'SEAT', accessible: [{ row: 1, number: 1 }, { row: 1, number: 20 }] },
  { id: 'B', name: 'Balcony', kind: 'SEATED', rows: 5, seatsPerRow: 16, priceCents: 6800, sellBy: 'SEAT', accessible: [] },
];
const demoMap: SeatMapSpec = { sections: demoSections };
const demoSeats = (taken: ReadonlySet<string>): SeatPosition[] => demoSections.flatMap((s) =>
  Array.from({ length: s.rows * s.seatsPerRow }, (_, i) => {
    const row = Math.floor(i / s.seatsPerRow) + 1;
    const number = (i % s.seatsPerRow) + 1;
    const seatId = seatIdOf(s.id, row, number);
    return { seatId, section: s.id, row, number, available: !taken.has(seatId), accessible: s.accessible.some((a) => a.row === row && a.number === number) };
  }));
/** The centre of the stalls behind the first rows (seats 5-16 of rows 4-10): the front rows may all be gone. */
const centreStalls = (seat: SeatPosition) => seat.section === 'A' && seat.row >= 4 && seat.number >= 5 && seat.number <= 16;

describe('best available by distance to the stage, as the seat map draws it', () => {
  it('takes the second row of the stalls, not the balcony\'s first, when the stalls\' front row is gone', () => {
    const taken = new Set(demoSeats(new Set()).filter((s) => s.section === 'A' && s.row === 1).map((s) => s.seatId));
    expect(chooseBestAvailable(demoMap, demoSeats(taken).filter((s) => s.available), { quantity: 2, adjacentOnly: true })?.seatIds).toEqual(['A-2-10', 'A-2-11']);
    // The rows are read in that order too: the stalls' rows before the balcony's first.
    const rows = candidateRows(demoMap, {});
    expect(rows.findIndex((r) => r.section === 'B')).toBe(10);
  });

  it('never picks the balcony while the centre stalls are free', () => {
    const others = demoSeats(new Set()).filter((s) => !centreStalls(s)).map((s) => s.seatId);
    fc.assert(
      fc.property(someTaken(others), fc.integer({ min: 1, max: 10 }), fc.boolean(), (taken, quantity, allowSplit) => {
        const free = demoSeats(taken).filter((s) => s.available);
        const choice = chooseBestAvailable(demoMap, free, { quantity, adjacentOnly: !allowSplit });
        expect(choice?.seatIds.every((id) => id.startsWith('A-'))).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it('never chooses a run farther from the stage than another free run that strands no seat, and reading rows nearest first with the early stop changes nothing', () => {
    const ids = demoSeats(new Set()).map((s) => s.seatId);
    fc.assert(
      fc.property(someTaken(ids), fc.integer({ min: 1, max: 8 }), fc.option(fc.constantFrom('A', 'B'), { nil: undefined }), (taken, quantity, section) => {
        const seats = demoSeats(taken).filter((s) => s.available && (section === undefined || s.section === section));
        const request = { quantity, adjacentOnly: true, ...(section === undefined ? {} : { section }) };
        const choice = chooseBestAvailable(demoMap, seats, request);
        const runs = orphanFreeRuns(seats, quantity);
        if (runs.length === 0) return;
        // An orphan-free run exists: the choice is one, and none is nearer the stage.
        expect(choice).not.toBeNull();
        const picked = seats.filter((s) => choice?.seatIds.includes(s.seatId)).sort((a, b) => a.number - b.number);
        const mid = (run: readonly SeatPosition[]) => drawnDistance(demoMap, (run[0] as SeatPosition).section, (run[0] as SeatPosition).row, ((run[0] as SeatPosition).number + (run.at(-1) as SeatPosition).number) / 2);
        expect(runs.some((run) => run.map((s) => s.seatId).join() === picked.map((s) => s.seatId).join())).toBe(true);
        const nearest = Math.min(...runs.map(mid));
        expect(mid(picked)).toBeLessThanOrEqual(nearest);
        // What the adapters do: read candidateRows a window at a time, then only the rows whose
        // minDistance is below the choice's score. Same answer as reading every row.
        expect(windowedChoice(demoMap, seats, request)).toEqual(choice?.seatIds);
      }),
      { numRuns: 300 },
    );
  });
});

/** A share of these seats taken, from none to nearly all (a plain uniqueArray is mostly near empty). */
function someTaken(ids: readonly string[]): fc.Arbitrary<ReadonlySet<string>> {
  return fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: ids.length, maxLength: ids.length }))
    .map(([share, draws]) => new Set(ids.filter((_, i) => (draws[i] as number) < share)));
}

/** Runs of `quantity` free seats side by side that leave no single seat alone in their block. */
function orphanFreeRuns(free: readonly SeatPosition[], quantity: number): SeatPosition[][] {
  const rows = new Map<string, SeatPosition[]>();
  for (const s of free) rows.set(`${s.section}/${s.row}`, [...(rows.get(`${s.section}/${s.row}`) ?? []), s]);
  const runs: SeatPosition[][] = [];
  for (const row of rows.values()) {
    row.sort((a, b) => a.number - b.number);
    const blocks: SeatPosition[][] = [];
    for (const seat of row) {
      const last = blocks.at(-1);
      if (last !== undefined && (last.at(-1) as SeatPosition).number + 1 === seat.number) last.push(seat);
      else blocks.push([seat]);
    }
    for (const block of blocks) {
      for (let start = 0; start + quantity <= block.length; start++) {
        if (start !== 1 && block.length - start - quantity !== 1) runs.push(block.slice(start, start + quantity));
      }
    }
  }
  return runs;
}

/** The adapters' loop (sqlite choose-seats.ts), over seats in memory: windows of 2, 4, 8 rows, then the rows that could still win. */
function windowedChoice(map: SeatMapSpec, free: readonly SeatPosition[], request: { quantity: number; adjacentOnly: boolean; section?: string }): string[] | undefined {
  const rows = candidateRows(map, request);
  const seen: SeatPosition[] = [];
  const read = (from: number, to: number) => {
    for (const r of rows.slice(from, to)) seen.push(...free.filter((s) => s.section === r.section && s.row === r.row));
  };
  let done = 0;
  for (let step = 2; done < rows.length; step *= 2) {
    read(done, done + step);
    done = Math.min(done + step, rows.length);
    const choice = chooseBestAvailable(map, seen, request);
    if (choice === null) continue;
    let more = done;
    while (more < rows.length && (rows[more]?.minDistance ?? Infinity) < choice.score) more++;
    read(done, more);
    return (chooseBestAvailable(map, seen, request) ?? choice).seatIds;
  }
  return undefined;
}

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
  const distance = (section: string, row: number, number: number) => drawnDistance(seatMap, section, row, number, request.near);
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

/**
 * Distance on the map as drawn, worked out here from the geometry alone: from the stage's
 * front-centre, or from the seat named (a seat of another section after every seat of its own);
 * a row counts as two seats aside.
 */
function drawnDistance(map: SeatMapSpec, section: string, row: number, number: number, near?: { section: string; row: number; number: number }): number {
  const geometry = venueGeometry(map);
  const at = (id: string) => geometry.sections.find((p) => p.id === id) as { x: number; y: number };
  const target = near === undefined ? { x: geometry.cols / 2, y: geometry.stage.y } : { x: at(near.section).x + near.number - 0.5, y: at(near.section).y + near.row - 0.5 };
  const dx = at(section).x + number - 0.5 - target.x;
  const dy = (at(section).y + row - 0.5 - target.y) * 2;
  return (near !== undefined && near.section !== section ? 1_000_000 : 0) + Math.sqrt(dx * dx + dy * dy);
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
