import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, expect, it } from 'vitest';
import { migrate, migrations } from '../../src/adapters/sqlite/migrations.js';
import { openSqliteStore } from '../../src/adapters/sqlite/sqlite-store.js';

/**
 * A database from before the inventory engine (v5: seat ids on holds and orders, price on the seat,
 * every ticket on a seat) migrates with its holds, orders and tickets: sections from the seat map,
 * hold lines with their live claims, each buyer's units, tickets with their section. And the
 * migrated database keeps every guard.
 */
const dir = mkdtempSync(join(tmpdir(), 'ticketrush-migrate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const seatMap = {
  sections: [
    { id: 'A', name: 'Stalls', rows: 2, seatsPerRow: 3, priceCents: 5000 },
    { id: 'B', name: 'Box', rows: 1, seatsPerRow: 2, priceCents: 7000 },
  ],
};

function v5Database(file: string): void {
  const db = new Database(file);
  db.pragma('foreign_keys = ON');
  db.transaction(() => {
    for (const step of migrations.slice(0, 5)) {
      if (typeof step === 'string') db.exec(step);
      else if (typeof step === 'function') step(db);
      else step.run(db);
    }
    db.pragma('user_version = 5');
    const user = db.prepare("INSERT INTO users (user_id, username, username_key, password_hash, role, created_at) VALUES (?, ?, ?, 'h', 'BUYER', 1)");
    user.run('u1', 'ann', 'ann');
    user.run('u2', 'bob', 'bob');
    db.prepare(`INSERT INTO shows (show_id, title, venue, city, starts_at, sale_starts_at, sale_ends_at, seat_map, capacity, created_at)
      VALUES ('shw', 'Old', 'Hall', 'Town', 3000, 1000, 2000, ?, 8, 0)`).run(JSON.stringify(seatMap));
    // An empty seat map (a test fixture of an earlier migration) has no sections and still migrates.
    db.prepare(`INSERT INTO shows (show_id, title, venue, city, starts_at, sale_starts_at, sale_ends_at, seat_map, capacity, created_at)
      VALUES ('shw_empty', 'Empty', 'Hall', 'Town', 3, 1, 2, '{"sections":[]}', 400, 0)`).run();
    const seat = db.prepare(`INSERT INTO seats (show_id, seat_id, section, row_no, seat_no, price_cents, status, hold_id, version)
      VALUES ('shw', ?, ?, ?, ?, ?, ?, ?, 1)`);
    const held: Record<string, [string, string]> = { 'A-1-1': ['HELD', 'h1'], 'A-1-2': ['HELD', 'h1'], 'B-1-1': ['SOLD', 'h2'], 'B-1-2': ['SOLD', 'h2'] };
    for (const s of seatMap.sections) {
      for (let r = 1; r <= s.rows; r++) {
        for (let n = 1; n <= s.seatsPerRow; n++) {
          const id = `${s.id}-${r}-${n}`;
          const [status, holdId] = held[id] ?? ['AVAILABLE', null];
          seat.run(id, s.id, r, n, s.priceCents, status, holdId);
        }
      }
    }
    const hold = db.prepare(`INSERT INTO holds (hold_id, show_id, user_id, seat_ids, total_price_cents, status, created_at, expires_at, extensions)
      VALUES (?, 'shw', ?, ?, ?, ?, 1000, ?, 0)`);
    const claim = db.prepare('INSERT INTO hold_seats (hold_id, show_id, seat_id, claim) VALUES (?, ?, ?, ?)');
    hold.run('h1', 'u1', '["A-1-1","A-1-2"]', 10000, 'ACTIVE', 999_999);
    claim.run('h1', 'shw', 'A-1-1', 1);
    claim.run('h1', 'shw', 'A-1-2', 1);
    hold.run('h2', 'u1', '["B-1-2","B-1-1"]', 14000, 'CONFIRMED', 1500);
    claim.run('h2', 'shw', 'B-1-2', 1);
    claim.run('h2', 'shw', 'B-1-1', 1);
    hold.run('h3', 'u2', '["A-2-1"]', 5000, 'EXPIRED', 1200);
    claim.run('h3', 'shw', 'A-2-1', null);
    const order = db.prepare(`INSERT INTO orders (order_id, user_id, show_id, hold_id, idempotency_key, seat_ids, amount_cents, status, payment_id, created_at, updated_at)
      VALUES (?, ?, 'shw', ?, ?, ?, ?, ?, ?, 1100, 1100)`);
    order.run('o2', 'u1', 'h2', 'k2', '["B-1-2","B-1-1"]', 14000, 'TICKETED', 'p2');
    order.run('o3', 'u2', 'h3', 'k3', '["A-2-1"]', 5000, 'CANCELLED', null);
    db.prepare("INSERT INTO payments (payment_id, order_id, amount_cents, status, updated_at) VALUES ('p2', 'o2', 14000, 'SUCCEEDED', 1100)").run();
    const ticket = db.prepare(`INSERT INTO tickets (ticket_id, order_id, user_id, show_id, seat_id, code, status, issued_at, used_at, checkin_nonce)
      VALUES (?, 'o2', 'u1', 'shw', ?, ?, ?, 1200, NULL, NULL)`);
    ticket.run('t2', 'B-1-2', 'code-2', 'USED');
    ticket.run('t1', 'B-1-1', 'code-1', 'VALID');
  })();
  db.close();
}

it('carries holds, orders and tickets of a v5 database into sections, hold lines, buyer units and section tickets', () => {
  const file = join(dir, 'v5.db');
  v5Database(file);
  const db = new Database(file);
  db.pragma('foreign_keys = ON');
  try {
    expect(migrate(db)).toBe(migrations.length);
    expect(db.pragma('foreign_key_check')).toEqual([]);
    expect(db.prepare('SELECT section_id, position, kind, sell_by, price_cents, capacity, available FROM sections WHERE show_id = ? ORDER BY position').all('shw')).toEqual([
      { section_id: 'A', position: 0, kind: 'SEATED', sell_by: 'SEAT', price_cents: 5000, capacity: 6, available: 4 },
      { section_id: 'B', position: 1, kind: 'SEATED', sell_by: 'SEAT', price_cents: 7000, capacity: 2, available: 0 },
    ]);
    expect(db.prepare("SELECT count(*) AS n FROM sections WHERE show_id = 'shw_empty'").get()).toEqual({ n: 0 });
    expect(db.prepare('SELECT hold_id, line_no, section_id, seat_id, quantity, claim FROM hold_lines ORDER BY hold_id, line_no').all()).toEqual([
      { hold_id: 'h1', line_no: 0, section_id: 'A', seat_id: 'A-1-1', quantity: 1, claim: 1 },
      { hold_id: 'h1', line_no: 1, section_id: 'A', seat_id: 'A-1-2', quantity: 1, claim: 1 },
      { hold_id: 'h2', line_no: 0, section_id: 'B', seat_id: 'B-1-2', quantity: 1, claim: 1 },
      { hold_id: 'h2', line_no: 1, section_id: 'B', seat_id: 'B-1-1', quantity: 1, claim: 1 },
      { hold_id: 'h3', line_no: 0, section_id: 'A', seat_id: 'A-2-1', quantity: 1, claim: null },
    ]);
    expect(db.prepare('SELECT hold_id, units FROM holds ORDER BY hold_id').all()).toEqual([
      { hold_id: 'h1', units: 2 }, { hold_id: 'h2', units: 2 }, { hold_id: 'h3', units: 1 },
    ]);
    // u1: two held (h1) and two bought (h2); u2's hold expired and its order was cancelled.
    expect(db.prepare('SELECT user_id, show_id, units FROM user_show_units ORDER BY user_id').all()).toEqual([{ user_id: 'u1', show_id: 'shw', units: 4 }]);
    expect(db.prepare('SELECT ticket_id, section_id, seat_id, seq, status FROM tickets ORDER BY ticket_id').all()).toEqual([
      { ticket_id: 't1', section_id: 'B', seat_id: 'B-1-1', seq: 1, status: 'VALID' },
      { ticket_id: 't2', section_id: 'B', seat_id: 'B-1-2', seq: 2, status: 'USED' },
    ]);
    // v8: the door's counters and each ticket's buyer key come from the tickets already there.
    expect(db.prepare('SELECT show_id, admitting, checked_in FROM show_door_counts').all()).toEqual([{ show_id: 'shw', admitting: 2, checked_in: 1 }]);
    expect(db.prepare('SELECT DISTINCT t.buyer_key = u.username_key AS same FROM tickets t JOIN users u ON u.user_id = t.user_id').all()).toEqual([{ same: 1 }]);
    expect(db.prepare("SELECT accessible FROM seats WHERE seat_id = 'A-1-1'").get()).toEqual({ accessible: 0 });
    const spec = JSON.parse((db.prepare("SELECT seat_map FROM shows WHERE show_id = 'shw'").get() as { seat_map: string }).seat_map) as unknown;
    expect(spec).toEqual({ sections: seatMap.sections.map((s) => ({ ...s, kind: 'SEATED', sellBy: 'SEAT', accessible: [] })) });
  } finally {
    db.close();
  }
});

it('keeps every guard on the migrated database', () => {
  const file = join(dir, 'v5-guards.db');
  v5Database(file);
  const db = new Database(file);
  try {
    migrate(db);
    const refused = (sql: string, ...params: unknown[]) => expect(() => db.prepare(sql).run(...params)).toThrow(/constraint/i);
    // A second live claim on a seat held by h1.
    db.prepare("INSERT INTO holds (hold_id, show_id, user_id, total_price_cents, status, created_at, expires_at, extensions, units) VALUES ('h9', 'shw', 'u2', 5000, 'ACTIVE', 1, 2, 0, 1)").run();
    refused("INSERT INTO hold_lines (hold_id, line_no, show_id, section_id, seat_id, quantity, claim) VALUES ('h9', 0, 'shw', 'A', 'A-1-1', 1, 1)");
    // A second admitting ticket for a seat.
    refused("INSERT INTO tickets (ticket_id, order_id, user_id, show_id, section_id, seat_id, seq, code, status, issued_at) VALUES ('t9', 'o3', 'u2', 'shw', 'B', 'B-1-1', 1, 'c9', 'VALID', 1)");
    // A second live order on a hold.
    refused("INSERT INTO orders (order_id, user_id, show_id, hold_id, idempotency_key, amount_cents, status, created_at, updated_at) VALUES ('o9', 'u1', 'shw', 'h2', 'k9', 1, 'INIT', 1, 1)");
    // Stock below zero or above capacity, buyer units below zero.
    refused("UPDATE sections SET available = available - 1 WHERE show_id = 'shw' AND section_id = 'B'");
    refused("UPDATE sections SET available = available + 3 WHERE show_id = 'shw' AND section_id = 'A'");
    refused("UPDATE user_show_units SET units = units - 5 WHERE user_id = 'u1'");
    // A seat is AVAILABLE exactly when no hold owns it.
    refused("UPDATE seats SET hold_id = 'h1' WHERE show_id = 'shw' AND seat_id = 'A-2-2'");
    refused("UPDATE seats SET status = 'AVAILABLE' WHERE show_id = 'shw' AND seat_id = 'A-1-1'");
  } finally {
    db.close();
  }
});

it('serves the migrated holds, orders and tickets through the port, and the booking loop goes on from them', async () => {
  const file = join(dir, 'v5-port.db');
  v5Database(file);
  const store = openSqliteStore({ filename: file });
  try {
    expect((await store.getHold('h1'))?.lines).toEqual([{ kind: 'SEATS', sectionId: 'A', seatIds: ['A-1-1', 'A-1-2'] }]);
    expect(await store.getOrder('o2')).toMatchObject({ status: 'TICKETED', amountCents: 14000, lines: [{ kind: 'SEATS', sectionId: 'B', seatIds: ['B-1-2', 'B-1-1'] }] });
    expect((await store.ticketsByOrder('o2')).map((t) => [t.ticketId, t.sectionId, t.seatId])).toEqual([['t1', 'B', 'B-1-1'], ['t2', 'B', 'B-1-2']]);
    expect((await store.getShow('shw'))?.seatMap.sections[0]).toMatchObject({ kind: 'SEATED', sellBy: 'SEAT', accessible: [] });
    expect(await store.availability('shw')).toEqual([
      { sectionId: 'A', kind: 'SEATED', sellBy: 'SEAT', capacity: 6, available: 4, sold: 0 },
      { sectionId: 'B', kind: 'SEATED', sellBy: 'SEAT', capacity: 2, available: 0, sold: 0 },
    ]);
    const claim = { holdId: 'h10', showId: 'shw', userId: 'u2', now: 5000, expiresAt: 9000, userUnitsMax: 4 };
    expect(await store.claimSeats({ ...claim, seatIds: ['A-1-1'] })).toEqual({ ok: false, code: 'SEAT_UNAVAILABLE', seatIds: ['A-1-1'] });
    // u1 holds 2 and bought 2 under a limit of 4.
    expect(await store.claimSeats({ ...claim, userId: 'u1', seatIds: ['A-2-2'] })).toEqual({ ok: false, code: 'PURCHASE_LIMIT_REACHED', limit: 4, claimed: 4 });
    expect(await store.lapseHold({ holdId: 'h1', event: 'EXPIRE', expectedExpiresAt: 999_999, now: 1_000_000 })).toMatchObject({ ok: true, hold: { status: 'EXPIRED' } });
    expect(await store.claimSeats({ ...claim, seatIds: ['A-1-1', 'A-1-2'] })).toMatchObject({ ok: true, hold: { totalPriceCents: 10000 } });
    const audit = await store.audit('shw');
    expect(audit?.userUnits).toEqual([{ userId: 'u1', units: 2 }, { userId: 'u2', units: 2 }]);
    expect(audit?.sections.find((x) => x.sectionId === 'A')?.available).toBe(4);
  } finally {
    await store.close();
  }
});
