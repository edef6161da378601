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
 * The statements run for a show that does not exist, so they match nothing and write nothing.
 */
export async function warmPool(pool: pg.Pool, connections: number, hot: boolean): Promise<void> {
  const clients: pg.PoolClient[] = [];
  try {
    // All at once: the pool opens a connection per waiting checkout, up to its max.
    for (const client of await Promise.all(Array.from({ length: connections }, () => pool.connect()))) clients.push(client);
    await Promise.all(clients.map((c) => (hot ? prepareHot(c) : c.query('SELECT 1'))));
  } finally {
    for (const c of clients) c.release();
  }
}

const nowhere = { holdId: '', showId: '', userId: '', now: 0, expiresAt: 0, userUnitsMax: 0 };

async function prepareHot(c: pg.PoolClient): Promise<void> {
  await claimSeatsStatement(c, nowhere, ['']);
  await claimUnitsStatement(c, { ...nowhere, sectionId: '', quantity: 1 });
  await readFreeRows(c, new FreeSeats(), '', [{ section: '', row: 0, minDistance: 0 }]);
}
