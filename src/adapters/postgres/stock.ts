import type pg from 'pg';
import type { BucketState, SeatChange, StockChange } from '../../ports/engine/index.js';
import { Rollback } from './transaction.js';

/**
 * The inventory steps that claims, lapses and settlements share. Each is conditional SQL whose
 * row count or returned rows say whether it held; none reads first and writes later. Lock order,
 * the same in every operation so that none waits on another in a cycle: the hold row (lapse,
 * settle), then seats or stock buckets (in key order), then the buyer's counter
 * (user_show_units). The one-statement claims (claim-statements.ts) lock seats or a bucket before
 * the counter by construction, so the transactions do too: a buyer's two claims at once, one a
 * statement and one a transaction, would otherwise wait on each other until lock_timeout.
 */

/** The per-user counter: +n when units + n <= max (a missing row counts as 0). */
export async function takeUserUnits(c: pg.ClientBase, userId: string, showId: string, n: number, max: number): Promise<{ ok: true } | { ok: false; claimed: number }> {
  // The upsert locks the buyer's counter row, so one buyer's claims on a show queue on it (a few
  // ms each) and every one sees the count the previous one committed: the cap holds however many
  // of them run at once. Other buyers never touch this row.
  const { rowCount } = await c.query(
    `INSERT INTO user_show_units AS u (user_id, show_id, units) SELECT $1::text, $2::text, $3::int WHERE $3::int <= $4::int
     ON CONFLICT (user_id, show_id) DO UPDATE SET units = u.units + EXCLUDED.units WHERE u.units + EXCLUDED.units <= $4::int`,
    [userId, showId, n, max]);
  if (rowCount === 1) return { ok: true };
  const { rows } = await c.query<{ units: number }>('SELECT units FROM user_show_units WHERE user_id = $1 AND show_id = $2', [userId, showId]);
  return { ok: false, claimed: rows[0]?.units ?? 0 };
}

/** Adds `delta` (negative: gives back) without a cap; CHECK units >= 0 refuses a double give-back. */
export async function moveUserUnits(c: pg.ClientBase, userId: string, showId: string, delta: number): Promise<void> {
  if (delta === 0) return;
  // A give-back updates the existing row (an INSERT of a negative count would fail its CHECK
  // before ON CONFLICT is considered); a late sale may have to create it.
  if (delta < 0) {
    await c.query('UPDATE user_show_units SET units = units + $3::int WHERE user_id = $1 AND show_id = $2', [userId, showId, delta]);
    return;
  }
  await c.query(
    `INSERT INTO user_show_units AS u (user_id, show_id, units) VALUES ($1, $2, $3::int)
     ON CONFLICT (user_id, show_id) DO UPDATE SET units = u.units + EXCLUDED.units`,
    [userId, showId, delta]);
}

/**
 * Seats AVAILABLE -> `status` for `holdId`, only those still AVAILABLE. The rows are locked in
 * seat-id order (the sub-select's FOR UPDATE), so two claims of overlapping seats never deadlock:
 * the second waits (at most lock_timeout) for the first, then sees the committed status. Returns
 * the seats taken, as they are after the change.
 */
export async function takeSeats(c: pg.ClientBase, showId: string, holdId: string, seatIds: readonly string[], status: 'HELD' | 'SOLD'): Promise<SeatChange[]> {
  const { rows } = await c.query<{ seat_id: string; version: number }>(
    `WITH locked AS MATERIALIZED (
       SELECT seat_id FROM seats WHERE show_id = $1 AND seat_id = ANY($2::text[]) ORDER BY seat_id COLLATE "C" FOR UPDATE)
     UPDATE seats s SET status = $4, hold_id = $3, version = s.version + 1
     FROM locked WHERE s.show_id = $1 AND s.seat_id = locked.seat_id AND s.status = 'AVAILABLE'
     RETURNING s.seat_id, s.version`,
    [showId, seatIds, holdId, status]);
  return rows.map((r) => ({ seatId: r.seat_id, status, holdId, version: r.version }));
}

/**
 * Takes `quantity` units of a counted section from its buckets, all or nothing. First one bucket
 * with enough, starting at a random one and skipping buckets other claims have locked (SKIP
 * LOCKED): concurrent claims on one section spread over the buckets instead of queueing on one
 * row. When no unlocked bucket has enough (stock low, or every bucket busy), every bucket of the
 * section is locked in bucket order and the sum decides: take from several, or refuse with what
 * is left. CHECK available BETWEEN 0 AND capacity is the storage's last word.
 */
export async function takeUnits(c: pg.ClientBase, showId: string, sectionId: string, quantity: number): Promise<{ ok: true; takes: { bucket: number; quantity: number }[]; buckets: BucketState[] } | { ok: false; available: number }> {
  const start = Math.floor(Math.random() * 1024);
  // The pick is a CTE: evaluated once, so exactly one bucket is locked and decremented.
  const one = await c.query<BucketState>(
    `WITH pick AS MATERIALIZED (
       SELECT bucket FROM stock_buckets WHERE show_id = $1 AND section_id = $2 AND available >= $3::int
       ORDER BY (bucket + $4::int) % 1024 LIMIT 1 FOR UPDATE SKIP LOCKED)
     UPDATE stock_buckets b SET available = b.available - $3::int, version = b.version + 1
     FROM pick WHERE b.show_id = $1 AND b.section_id = $2 AND b.bucket = pick.bucket
     RETURNING b.bucket, b.available, b.version`,
    [showId, sectionId, quantity, start]);
  if (one.rows[0] !== undefined) return { ok: true, takes: [{ bucket: one.rows[0].bucket, quantity }], buckets: one.rows };
  const { rows } = await c.query<{ bucket: number; available: number }>(
    'SELECT bucket, available FROM stock_buckets WHERE show_id = $1 AND section_id = $2 ORDER BY bucket FOR UPDATE', [showId, sectionId]);
  const available = rows.reduce((sum, r) => sum + r.available, 0);
  if (available < quantity) return { ok: false, available };
  const takes: { bucket: number; quantity: number }[] = [];
  let left = quantity;
  for (const row of [...rows].sort((a, b) => b.available - a.available)) {
    if (left === 0) break;
    const n = Math.min(left, row.available);
    if (n > 0) takes.push({ bucket: row.bucket, quantity: n });
    left -= n;
  }
  const taken = await c.query<BucketState>(
    `UPDATE stock_buckets b SET available = b.available - t.q, version = b.version + 1
     FROM unnest($3::int[], $4::int[]) AS t(bucket, q)
     WHERE b.show_id = $1 AND b.section_id = $2 AND b.bucket = t.bucket
     RETURNING b.bucket, b.available, b.version`,
    [showId, sectionId, takes.map((t) => t.bucket), takes.map((t) => t.quantity)]);
  return { ok: true, takes, buckets: taken.rows };
}

/**
 * Puts `n` units of a counted section back into its buckets, each up to its capacity less what
 * live holds took from it (issue 32): a
 * unit freed by a refund or an exchange is not tied to the bucket its claim took it from, since an
 * earlier partial refund or a spread claim may already have filled that one (PostgreSQL refused
 * an exchange after a partial refund with stock_within_capacity). Every bucket of the section is
 * locked in bucket order (the lock order of takeUnits), the ones with most room filled first.
 * More units than room is a corrupt count: the CHECK refuses it and the transaction rolls back.
 */
export async function returnUnits(c: pg.ClientBase, showId: string, sectionId: string, n: number): Promise<StockChange | null> {
  if (n <= 0) return null;
  const { rows: locked } = await c.query<{ bucket: number; room: number }>(
    'SELECT bucket, capacity - available AS room FROM stock_buckets WHERE show_id = $1 AND section_id = $2 ORDER BY bucket FOR UPDATE', [showId, sectionId]);
  if (locked.length === 0) return null;
  // Room that an ACTIVE hold took is not room to fill: that hold gives its units back to its own
  // bucket when it lapses (giveBack), which must then fit (the money simulation, seed 2008: a hold
  // released after a refund had filled its bucket broke stock_within_capacity). Stable while the
  // section's buckets are locked: a claim or a give-back needs its bucket's lock. Live holds are
  // few, and holds_active_by_expiry finds them.
  const { rows: reserved } = await c.query<{ bucket: number; q: number }>(
    `SELECT l.bucket, sum(l.quantity)::int AS q FROM holds h JOIN hold_lines l ON l.hold_id = h.hold_id
     WHERE h.status = 'ACTIVE' AND h.show_id = $1 AND l.section_id = $2 AND l.claim AND l.bucket IS NOT NULL GROUP BY l.bucket`, [showId, sectionId]);
  const held = new Map(reserved.map((r) => [r.bucket, r.q]));
  const rows = locked.map((r) => ({ bucket: r.bucket, room: r.room - (held.get(r.bucket) ?? 0) }));
  const gives: { bucket: number; q: number }[] = [];
  let left = n;
  for (const row of [...rows].sort((a, b) => b.room - a.room || a.bucket - b.bucket)) {
    if (left === 0) break;
    const q = Math.min(left, Math.max(0, row.room));
    if (q > 0) gives.push({ bucket: row.bucket, q });
    left -= q;
  }
  // No room left anywhere: give the rest to the first bucket, for the CHECK to refuse.
  if (left > 0) gives.push({ bucket: (rows[0] as { bucket: number }).bucket, q: left });
  const given = await c.query<BucketState>(
    `UPDATE stock_buckets b SET available = b.available + t.q, version = b.version + 1
     FROM (SELECT bucket, sum(q)::int AS q FROM unnest($3::int[], $4::int[]) AS g(bucket, q) GROUP BY bucket) AS t
     WHERE b.show_id = $1 AND b.section_id = $2 AND b.bucket = t.bucket
     RETURNING b.bucket, b.available, b.version`,
    [showId, sectionId, gives.map((g) => g.bucket), gives.map((g) => g.q)]);
  return { sectionId, delta: n, buckets: given.rows.map((r) => ({ bucket: r.bucket, available: r.available, version: Number(r.version) })).sort((a, b) => a.bucket - b.bucket) };
}

interface LiveLine { section_id: string; seat_id: string | null; bucket: number | null; quantity: number }

/**
 * Gives back everything the hold still claims, exactly once: clearing the claims of its lines is
 * the step that can happen only once (claim true -> NULL), and the seats and buckets follow
 * from the rows it cleared. Seats return only if this hold still owns them. The caller has
 * already moved the hold row out of ACTIVE/CONFIRMED under its row lock.
 */
export async function giveBack(c: pg.ClientBase, showId: string, holdId: string): Promise<{ seats: SeatChange[]; stock: StockChange[] }> {
  const { rows } = await c.query<LiveLine>(
    'UPDATE hold_lines SET claim = NULL WHERE hold_id = $1 AND claim RETURNING section_id, seat_id, bucket, quantity', [holdId]);
  const seatIds = rows.flatMap((r) => (r.seat_id === null ? [] : [r.seat_id]));
  const units = rows.filter((r) => r.seat_id === null);
  let seats: SeatChange[] = [];
  if (seatIds.length > 0) {
    const freed = await c.query<{ seat_id: string; version: number }>(
      `WITH locked AS MATERIALIZED (
         SELECT seat_id FROM seats WHERE show_id = $1 AND seat_id = ANY($3::text[]) ORDER BY seat_id COLLATE "C" FOR UPDATE)
       UPDATE seats s SET status = 'AVAILABLE', hold_id = NULL, version = s.version + 1
       FROM locked WHERE s.show_id = $1 AND s.seat_id = locked.seat_id AND s.hold_id = $2
       RETURNING s.seat_id, s.version`,
      [showId, holdId, seatIds]);
    seats = freed.rows.map((r) => ({ seatId: r.seat_id, status: 'AVAILABLE', holdId: null, version: r.version }));
  }
  const stock = new Map<string, { delta: number; buckets: BucketState[] }>();
  if (units.length > 0) {
    // One row per bucket (a hold's lines may take twice from one bucket), so each bucket's version goes up once.
    const perBucket = new Map<string, { section_id: string; bucket: number; q: number }>();
    for (const u of units) {
      const key = `${u.section_id}\u0000${u.bucket ?? 0}`;
      const row = perBucket.get(key);
      if (row === undefined) perBucket.set(key, { section_id: u.section_id, bucket: u.bucket ?? 0, q: u.quantity });
      else row.q += u.quantity;
    }
    const sorted = [...perBucket.values()].sort((a, b) => a.section_id.localeCompare(b.section_id) || a.bucket - b.bucket);
    const given = await c.query<BucketState & { section_id: string }>(
      `UPDATE stock_buckets b SET available = b.available + t.q, version = b.version + 1
       FROM unnest($2::text[], $3::int[], $4::int[]) AS t(section_id, bucket, q)
       WHERE b.show_id = $1 AND b.section_id = t.section_id AND b.bucket = t.bucket
       RETURNING b.section_id, b.bucket, b.available, b.version`,
      [showId, sorted.map((u) => u.section_id), sorted.map((u) => u.bucket), sorted.map((u) => u.q)]);
    for (const u of units) {
      const entry = stock.get(u.section_id) ?? { delta: 0, buckets: [] };
      entry.delta += u.quantity;
      stock.set(u.section_id, entry);
    }
    for (const r of given.rows) stock.get(r.section_id)?.buckets.push({ bucket: r.bucket, available: r.available, version: r.version });
  }
  return { seats, stock: [...stock].map(([sectionId, { delta, buckets }]) => ({ sectionId, delta, buckets })) };
}

/** Inserts the hold and its line rows (claim true). */
export async function insertHold(
  c: pg.ClientBase,
  hold: { holdId: string; showId: string; userId: string; totalPriceCents: number; units: number; createdAt: number; expiresAt: number },
  lines: readonly { sectionId: string; seatId: string | null; bucket: number | null; quantity: number }[],
): Promise<void> {
  await c.query(
    `INSERT INTO holds (hold_id, show_id, user_id, total_price_cents, units, status, created_at, expires_at, extensions)
     VALUES ($1, $2, $3, $4, $5, 'ACTIVE', $6, $7, 0)`,
    [hold.holdId, hold.showId, hold.userId, hold.totalPriceCents, hold.units, hold.createdAt, hold.expiresAt]);
  await insertLines(c, hold.holdId, hold.showId, lines, 0);
}

export async function insertLines(c: pg.ClientBase, holdId: string, showId: string, lines: readonly { sectionId: string; seatId: string | null; bucket: number | null; quantity: number }[], firstLineNo: number): Promise<void> {
  await c.query(
    `INSERT INTO hold_lines (hold_id, line_no, show_id, section_id, seat_id, bucket, quantity, claim)
     SELECT $1, $3 + n - 1, $2, section_id, seat_id, bucket, q, true
     FROM unnest($4::text[], $5::text[], $6::int[], $7::int[]) WITH ORDINALITY AS t(section_id, seat_id, bucket, q, n)`,
    [holdId, showId, firstLineNo, lines.map((l) => l.sectionId), lines.map((l) => l.seatId), lines.map((l) => l.bucket), lines.map((l) => l.quantity)]);
}

/**
 * Takes exactly these chosen seats or none: the seats still AVAILABLE are locked with SKIP LOCKED
 * (a seat another transaction is taking right now is treated as lost, never waited for) and
 * updated in one statement. When any is lost the statement is undone by ROLLBACK TO SAVEPOINT
 * (which also releases its row locks) and the lost seat ids are returned, for the caller to
 * choose again. The caller set `SAVEPOINT pick` before.
 */
export async function takeChosenSeats(c: pg.ClientBase, showId: string, holdId: string, seatIds: readonly string[], status: 'HELD' | 'SOLD'): Promise<{ ok: true; seats: SeatChange[] } | { ok: false; lost: string[] }> {
  const { rows } = await c.query<{ seat_id: string; version: number }>(
    `WITH locked AS MATERIALIZED (
       SELECT seat_id FROM seats WHERE show_id = $1 AND seat_id = ANY($2::text[]) AND status = 'AVAILABLE'
       ORDER BY seat_id COLLATE "C" FOR UPDATE SKIP LOCKED)
     UPDATE seats s SET status = $4, hold_id = $3, version = s.version + 1
     FROM locked WHERE s.show_id = $1 AND s.seat_id = locked.seat_id
     RETURNING s.seat_id, s.version`,
    [showId, seatIds, holdId, status]);
  if (rows.length === seatIds.length) {
    const byId = new Map(rows.map((r) => [r.seat_id, r.version]));
    return { ok: true, seats: seatIds.map((seatId) => ({ seatId, status, holdId, version: byId.get(seatId) as number })) };
  }
  await c.query('ROLLBACK TO SAVEPOINT pick');
  const got = new Set(rows.map((r) => r.seat_id));
  return { ok: false, lost: seatIds.filter((id) => !got.has(id)) };
}

/** Rolls the transaction back and answers `value` (see Rollback in transaction.ts). */
export function refuse<T>(value: T): never {
  throw new Rollback(value);
}
