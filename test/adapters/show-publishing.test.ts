import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/adapters/sqlite/sqlite-store.js';
import { SeatLayout } from '../../src/domain/index.js';
import { createShow } from './sqlite-fixtures.js';

// Issue 14: SQLite writes a big show in chunks (other commits run in between), so the show is
// published by its last chunk; until then nothing sees it, and a crash mid-way leaves nothing behind.
const dir = mkdtempSync(join(tmpdir(), 'ticketrush-publish-'));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const seatMap = { sections: [{ id: 'A', name: 'Stalls', kind: 'SEATED' as const, rows: 60, seatsPerRow: 100, priceCents: 100, sellBy: 'SEAT' as const, accessible: [{ row: 2, number: 3 }] }] };

it('writes every seat of the layout in its canonical order and pages the seat states by seat id', async () => {
  const store = openSqliteStore({ filename: join(dir, 'a.db') });
  try {
    await createShow(store, 'shw', seatMap);
    const layout = new SeatLayout(seatMap);
    const states: string[] = [];
    for (let after: string | null = null; ;) {
      const page = await store.seatStates('shw', after, 1_000);
      states.push(...page.map((s) => s.seatId));
      if (page.length < 1_000) break;
      after = page[page.length - 1]?.seatId ?? null;
    }
    expect(states).toHaveLength(6_000);
    expect(new Set(states).size).toBe(6_000);
    expect([...states].sort()).toEqual(states);
    expect(states.map((id) => layout.indexOf(id)).every((i) => i >= 0)).toBe(true);
    expect(layout.seatAt(layout.indexOf('A-2-3'))).toMatchObject({ seatId: 'A-2-3', row: 2, number: 3, accessible: true });
    expect(layout.indexOf('A-61-1')).toBe(-1);
    expect(layout.indexOf('A-01-1')).toBe(-1);
    expect((await store.loadSeatMap('shw'))?.sections).toEqual([{ sectionId: 'A', kind: 'SEATED', sellBy: 'SEAT', capacity: 6_000, available: 6_000, sold: 0 }]);
  } finally {
    await store.close();
  }
});

it('shows nothing of a show whose creation a crash cut short, and removes it at the next start', async () => {
  const file = join(dir, 'b.db');
  await openSqliteStore({ filename: file }).close();
  // What a crash after the first chunk leaves: the show row unpublished, some of its seats written.
  const raw = new Database(file);
  raw.prepare(`INSERT INTO shows (show_id, title, venue, city, starts_at, sale_starts_at, sale_ends_at, seat_map, capacity, created_at, ready)
    VALUES ('cut', 'T', 'V', 'C', 2e9, 0, 1e9, ?, 6000, 0, 0)`).run(JSON.stringify(seatMap));
  raw.prepare(`INSERT INTO sections (show_id, section_id, position, name, kind, sell_by, price_cents, rows_count, seats_per_row, capacity, available)
    VALUES ('cut', 'A', 0, 'Stalls', 'SEATED', 'SEAT', 100, 60, 100, 6000, 6000)`).run();
  raw.prepare(`INSERT INTO seats (show_id, seat_id, section, row_no, seat_no, accessible, status, hold_id, version) VALUES ('cut', 'A-1-1', 'A', 1, 1, 0, 'AVAILABLE', NULL, 0)`).run();
  raw.close();
  const reopened = openSqliteStore({ filename: file });
  try {
    expect(await reopened.getShow('cut')).toBeNull();
    expect(await reopened.listShows({ limit: 10, offset: 0 }, 1)).toEqual([]);
    const check = new Database(file, { readonly: true });
    expect(check.prepare("SELECT count(*) AS n FROM seats WHERE show_id = 'cut'").get()).toEqual({ n: 0 });
    expect(check.prepare("SELECT count(*) AS n FROM shows WHERE show_id = 'cut'").get()).toEqual({ n: 0 });
    check.close();
  } finally {
    await reopened.close();
  }
});

it('keeps an unpublished show out of reads, lists and claims', async () => {
  const file = join(dir, 'c.db');
  const store = openSqliteStore({ filename: file });
  try {
    await createShow(store, 'live', seatMap);
    const raw = new Database(file);
    raw.prepare("UPDATE shows SET ready = 0 WHERE show_id = 'live'").run();
    raw.close();
    expect(await store.getShow('live')).toBeNull();
    expect(await store.loadSeatMap('live')).toBeNull();
    expect(await store.listShows({ limit: 10, offset: 0 }, 1)).toEqual([]);
  } finally {
    await store.close();
  }
});
