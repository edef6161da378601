import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Show } from '../../src/domain/index.js';
import { storeFactories, type TestStoreHandle } from '../support/stores.js';
import { audit, claimBase, ga, held, newShow, newUser, seated } from './fixtures.js';
import { rawSql, type RawSql } from './raw-sql.js';

/**
 * The storage guards that back each other up, on every store: each is checked with the other one
 * out of the way (state bent through a second connection), so removing either alone turns a test
 * red. They ran on one store each before (test/adapters/sqlite-guards.test.ts, postgres-store).
 */
describe.each(storeFactories)('storage guards on $name', (factory) => {
  let h: TestStoreHandle;
  let sql: RawSql;
  beforeAll(async () => {
    h = await factory.open();
    sql = await rawSql(h);
  });
  afterAll(async () => {
    await sql?.close();
    await h?.close();
  });

  async function seatHeld(): Promise<{ show: Show; holdId: string }> {
    const show = await newShow(h.store, [seated('A', 1, 4), ga('GA', 10)]);
    const hold = held(await h.store.claimSeats({ ...claimBase(show, await newUser(h.store)), seatIds: ['A-1-1'] }));
    return { show, holdId: hold.holdId };
  }

  it("never takes a seat that is not AVAILABLE, even when its live claim row is gone (the seat's AVAILABLE condition)", async () => {
    const { show, holdId } = await seatHeld();
    // The index has nothing to refuse: only the conditional take on the seat's status is left.
    expect(await sql.run(`UPDATE hold_lines SET claim = NULL WHERE hold_id = '${holdId}'`)).toBe('ok');
    expect(await h.store.claimSeats({ ...claimBase(show, await newUser(h.store)), seatIds: ['A-1-1'] })).toEqual({ ok: false, code: 'SEAT_UNAVAILABLE', seatIds: ['A-1-1'] });
    expect((await audit(h.store, show.showId)).seats.find((s) => s.seatId === 'A-1-1')).toMatchObject({ status: 'HELD', holdId });
  });

  it('never gives a seat a second live claim, even when the seat row says AVAILABLE (the one-live-claim index)', async () => {
    const { show, holdId } = await seatHeld();
    // The seat's condition has nothing to refuse: only the partial unique index is left.
    expect(await sql.run(`UPDATE seats SET status = 'AVAILABLE', hold_id = NULL WHERE show_id = '${show.showId}' AND seat_id = 'A-1-1'`)).toBe('ok');
    const bob = await newUser(h.store);
    expect(await h.store.claimSeats({ ...claimBase(show, bob), seatIds: ['A-1-1'] })).toEqual({ ok: false, code: 'SEAT_UNAVAILABLE', seatIds: ['A-1-1'] });
    expect((await audit(h.store, show.showId)).userUnits.find((u) => u.userId === bob)?.units ?? 0).toBe(0);
    // And a second live line written directly is refused by the index itself.
    expect(await sql.run({
      sqlite: `INSERT INTO hold_lines (hold_id, line_no, show_id, section_id, seat_id, quantity, claim) VALUES ('${holdId}', 7, '${show.showId}', 'A', 'A-1-1', 1, 1)`,
      postgres: `INSERT INTO hold_lines (hold_id, line_no, show_id, section_id, seat_id, bucket, quantity, claim) VALUES ('${holdId}', 7, '${show.showId}', 'A', 'A-1-1', NULL, 1, true)`,
    })).toBe('unique');
  });

  it('keeps counted stock between 0 and its capacity whatever writes it (the stock CHECK)', async () => {
    const { show } = await seatHeld();
    const stock = (to: string) => ({
      sqlite: `UPDATE sections SET available = ${to} WHERE show_id = '${show.showId}' AND section_id = 'GA'`,
      postgres: `UPDATE stock_buckets SET available = ${to} WHERE show_id = '${show.showId}' AND section_id = 'GA'`,
    });
    expect(await sql.run(stock('available - 11'))).toBe('check');
    expect(await sql.run(stock('capacity + 1'))).toBe('check');
    expect(await sql.run(stock('0'))).toBe('ok');
    // With the section emptied behind its back, the claim is refused, not taken below zero.
    expect(await h.store.claimUnits({ ...claimBase(show, await newUser(h.store)), sectionId: 'GA', quantity: 1 })).toMatchObject({ ok: false, code: 'NOT_ENOUGH_SEATS' });
    expect((await audit(h.store, show.showId)).sections.find((s) => s.sectionId === 'GA')?.available).toBe(0);
  });

  it("keeps a buyer's units at or above zero and a seat owned exactly when it is not AVAILABLE (the counter and ownership CHECKs)", async () => {
    const { show } = await seatHeld();
    expect(await sql.run(`UPDATE user_show_units SET units = units - 100 WHERE show_id = '${show.showId}'`)).toBe('check');
    expect(await sql.run(`UPDATE seats SET hold_id = NULL WHERE show_id = '${show.showId}' AND seat_id = 'A-1-1'`)).toBe('check');
    expect(await sql.run(`UPDATE seats SET status = 'AVAILABLE' WHERE show_id = '${show.showId}' AND seat_id = 'A-1-1'`)).toBe('check');
  });
});
