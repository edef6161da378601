import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { claimSeatsStatement, claimUnitsStatement } from './claim-statements.js';
import { readFreeRows } from './free-rows.js';
import { FreeSeats } from '../shared/free-seats.js';

/**
 * Before a fresh process listens: every connection of the pool opened, and on each the hot
 * claims' named statements prepared (parsed and planned once per connection, see pool.ts). Left
 * to the first requests, a herd on a fresh process first waited for its connections to be opened
 * one by one behind the pool's queue (a fork of a PostgreSQL backend each) and then paid each
 * statement's first planning, all inside the onsale's first second.
 *
 * Preparing is not all: the first claim that really writes on a connection cost 10-57 ms against
 * 1 ms for the next ones (measured on a fresh backend: the foreign-key checks plan their queries
 * and the insert targets' indexes are opened once per backend). So each connection also makes one
 * real claim of a free seat, for a user that exists only inside that transaction, and rolls it
 * all back: nothing is written, and the seat is locked for that millisecond only (other claims
 * skip it, they do not wait).
 */
export async function warmPool(pool: pg.Pool, connections: number, hot: boolean): Promise<void> {
  const clients: pg.PoolClient[] = [];
  try {
    // All at once: the pool opens a connection per waiting checkout, up to its max.
    for (const client of await Promise.all(Array.from({ length: connections }, () => pool.connect()))) clients.push(client);
    await Promise.all(clients.map((c, i) => (hot ? prepareHot(c, i) : c.query('SELECT 1'))));
  } finally {
    for (const c of clients) c.release();
  }
}

const nowhere = { holdId: '', showId: '', userId: '', now: 0, expiresAt: 0, userUnitsMax: 0 };

async function prepareHot(c: pg.PoolClient, index: number): Promise<void> {
  await claimSeatsStatement(c, nowhere, [''], 'warm-up');
  await claimUnitsStatement(c, { ...nowhere, sectionId: '', quantity: 1 }, 'warm-up');
  await readFreeRows(c, new FreeSeats(), '', [{ section: '', row: 0, minDistance: 0 }]);
  // Best effort: a warm-up that fails (no free seat, a timeout) leaves the connection as cold as before, nothing more.
  await warmClaim(c, index).catch(() => undefined);
}

async function warmClaim(c: pg.PoolClient, index: number): Promise<void> {
  const { rows } = await c.query<{ show_id: string; seat_id: string }>(
    `SELECT s.show_id, s.seat_id FROM seats s JOIN sections c ON c.show_id = s.show_id AND c.section_id = s.section_id AND c.sell_by = 'SEAT'
     WHERE s.status = 'AVAILABLE' LIMIT 1 OFFSET $1`, [index]);
  const seat = rows[0];
  if (seat === undefined) return;
  const userId = `warm-up-${randomUUID()}`;
  await c.query('BEGIN');
  try {
    await c.query("INSERT INTO users (user_id, username, username_key, password_hash, role, created_at) VALUES ($1, $1, $1, '', 'BUYER', 0)", [userId]);
    await claimSeatsStatement(c, { holdId: userId, showId: seat.show_id, userId, now: 0, expiresAt: 1, userUnitsMax: 1 }, [seat.seat_id], 'warm-up');
  } finally {
    await c.query('ROLLBACK');
  }
}
