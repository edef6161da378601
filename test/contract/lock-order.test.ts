import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeFactories, type TestStoreHandle } from '../support/stores.js';
import { claimBase, newShow, newUser, seated } from './fixtures.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * PostgreSQL runs operations side by side, so the order they take row locks in matters: every
 * operation locks seats (or buckets) before the buyer's counter (src/adapters/postgres/stock.ts).
 * A claim whose one-statement path did so while its transaction path locked the counter first made
 * two claims of one buyer wait on each other until lock_timeout: a 503 for a question with an
 * answer. (Found by review; SQLite runs one unit at a time and has no such order.)
 */
const postgres = storeFactories.find((f) => f.name === 'postgres');

describe.skipIf(postgres === undefined)('lock order on postgres', () => {
  let h: TestStoreHandle;
  beforeAll(async () => {
    h = await (postgres as (typeof storeFactories)[number]).open();
  });
  afterAll(async () => h?.close());

  it('answers two claims of one buyer at once, one by statement and one by transaction, without a lock cycle', async () => {
    const show = await newShow(h.store, [seated('A', 1, 4)]);
    const buyer = await newUser(h.store);
    // Another session holds A-1-1 for a moment, as a claim in progress does.
    const other = new pg.Client({ connectionString: h.database.env.TICKETRUSH_DATABASE_URL });
    await other.connect();
    try {
      await other.query(`SET search_path = "${h.database.env.TICKETRUSH_DATABASE_SCHEMA}"`);
      await other.query('BEGIN');
      await other.query("SELECT 1 FROM seats WHERE show_id = $1 AND seat_id = 'A-1-1' FOR UPDATE", [show.showId]);
      // First claim: its statement cannot have A-1-1, so its transaction runs and waits for A-1-1.
      const first = h.store.claimSeats({ ...claimBase(show, buyer), seatIds: ['A-1-1', 'A-1-2'] }).then((x) => x, (e: unknown) => e);
      await sleep(150);
      // Second claim, same buyer: its statement takes A-1-2 and the buyer's counter.
      const second = h.store.claimSeats({ ...claimBase(show, buyer), seatIds: ['A-1-2'] }).then((x) => x, (e: unknown) => e);
      await sleep(150);
      await other.query('ROLLBACK');
      const [a, b] = await Promise.all([first, second]);
      expect(a).not.toBeInstanceOf(Error);
      expect(b).not.toBeInstanceOf(Error);
      // Exactly one of them has A-1-2.
      const got = [a, b].filter((r) => (r as { ok: boolean }).ok);
      expect(got).toHaveLength(1);
    } finally {
      await other.end();
    }
  });
});
