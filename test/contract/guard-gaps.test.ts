import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeFactories, type TestStoreHandle } from '../support/stores.js';
import { audit, claimBase, held, minute, newShow, newUser, seated } from './fixtures.js';

/**
 * Guards that no other test turned red when they were removed one at a time (issue 13, item 5).
 * Each test names the storage guard it pins; removing that guard alone turns it red.
 */
describe.each(storeFactories)('guard gaps on $name', (factory) => {
  let h: TestStoreHandle;
  beforeAll(async () => {
    h = await factory.open();
  });
  afterAll(async () => h?.close());

  it('refuses an extension whose expected expiry is stale, even when the extension count matches (expected-expiry condition)', async () => {
    const show = await newShow(h.store, [seated('A', 1, 10)]);
    const alice = await newUser(h.store);
    const hold = held(await h.store.claimSeats({ ...claimBase(show, alice, { ttl: minute }), seatIds: ['A-1-1'] }));
    // The caller read another expiry than the stored one: a stale version, refused whole.
    for (const expectedExpiresAt of [hold.expiresAt - 1, hold.expiresAt + 1]) {
      expect(await h.store.extendHold({ holdId: hold.holdId, expectedExpiresAt, expectedExtensions: 0, expiresAt: hold.expiresAt + 5 * minute, extensions: 1 }))
        .toEqual({ ok: false, stale: 'hold' });
    }
    expect(await h.store.getHold(hold.holdId)).toMatchObject({ status: 'ACTIVE', expiresAt: hold.expiresAt, extensions: 0 });
    // The read that matches goes through.
    expect(await h.store.extendHold({ holdId: hold.holdId, expectedExpiresAt: hold.expiresAt, expectedExtensions: 0, expiresAt: hold.expiresAt + minute, extensions: 1 }))
      .toMatchObject({ ok: true, hold: { expiresAt: hold.expiresAt + minute, extensions: 1 } });
  });

  it('never takes a seat someone else holds for best-available, even when its choice was made on a stale read (conditional take in the best-available statement)', async () => {
    const show = await newShow(h.store, [seated('A', 2, 4)]);
    const [first, second, third] = [await newUser(h.store), await newUser(h.store), await newUser(h.store)];
    const all = ['A-1-1', 'A-1-2', 'A-1-3', 'A-1-4', 'A-2-1', 'A-2-2', 'A-2-3', 'A-2-4'];
    // A best-available claim reads the show, then a buyer takes every seat but the two back corners
    // by explicit claim: a best-available claim right after may choose from what the first read.
    const one = held(await h.store.claimBestAvailable({ ...claimBase(show, first as string), quantity: 2, adjacentOnly: false }));
    const taken = new Set(one.lines.flatMap((l) => (l.kind === 'SEATS' ? l.seatIds : [])));
    const corners = ['A-2-1', 'A-2-4'].filter((s) => !taken.has(s));
    const rest = all.filter((s) => !taken.has(s) && !corners.includes(s));
    const two = held(await h.store.claimSeats({ ...claimBase(show, second as string), seatIds: rest }));
    const three = await h.store.claimBestAvailable({ ...claimBase(show, third as string), quantity: 2, adjacentOnly: false });
    expect(three).toMatchObject({ ok: true });
    const got = three.ok ? three.hold.lines.flatMap((l) => (l.kind === 'SEATS' ? l.seatIds : [])) : [];
    expect(got.sort()).toEqual([...corners].sort());
    const a = await audit(h.store, show.showId);
    for (const seatId of rest) expect(a.seats.find((s) => s.seatId === seatId)).toMatchObject({ status: 'HELD', holdId: two.holdId });
    expect(a.seats.filter((s) => s.status === 'HELD')).toHaveLength(8);
  });

  it('never lets a buyer name a seat of a section sold by quantity, even when every seat named is free (sold-by-seat condition of the claim)', async () => {
    const show = await newShow(h.store, [seated('A', 1, 4), seated('Q', 1, 4, 'QUANTITY')]);
    const alice = await newUser(h.store);
    expect(await h.store.claimSeats({ ...claimBase(show, alice), seatIds: ['Q-1-1'] })).toEqual({ ok: false, code: 'SEAT_NOT_FOUND', seatIds: ['Q-1-1'] });
    expect(await h.store.claimSeats({ ...claimBase(show, alice), seatIds: ['A-1-1', 'Q-1-2'] })).toEqual({ ok: false, code: 'SEAT_NOT_FOUND', seatIds: ['Q-1-2'] });
    const a = await audit(h.store, show.showId);
    expect(a.seats.filter((s) => s.status !== 'AVAILABLE')).toEqual([]);
    // The count of the quantity section is untouched, and a seat sold by seat can still be had.
    expect(held(await h.store.claimSeats({ ...claimBase(show, alice), seatIds: ['A-1-1'] })).lines).toEqual([{ kind: 'SEATS', sectionId: 'A', seatIds: ['A-1-1'] }]);
    // Nor can best-available pick them: that section is claimed by count.
    expect(await h.store.claimBestAvailable({ ...claimBase(show, alice), quantity: 2, sectionId: 'Q', adjacentOnly: false })).toEqual({ ok: false, code: 'NOT_ENOUGH_SEATS' });
    expect((await audit(h.store, show.showId)).seats.filter((s) => s.status !== 'AVAILABLE').map((s) => s.seatId)).toEqual(['A-1-1']);
  });
});
