import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeFactories, type TestStoreHandle } from '../support/stores.js';
import { audit, claimBase, ga, held, newShow, newUser, seated } from './fixtures.js';

/**
 * Conformance of the check-and-take claims, on every adapter this run covers. Each guard named in
 * a test's title is one the storage keeps (an index, a check, a conditional update): the test goes
 * red when that guard is removed.
 */
describe.each(storeFactories)('claims on $name', (factory) => {
  let h: TestStoreHandle;
  beforeAll(async () => {
    h = await factory.open();
  });
  afterAll(async () => h?.close());

  it('refuses a second live claim on a seat (one live claim per seat), also among 50 parallel claims', async () => {
    const show = await newShow(h.store, [seated('A', 2, 10)]);
    const alice = await newUser(h.store);
    const bob = await newUser(h.store);
    held(await h.store.claimSeats({ ...claimBase(show, alice), seatIds: ['A-1-1', 'A-1-2'] }));
    const second = await h.store.claimSeats({ ...claimBase(show, bob), seatIds: ['A-1-2', 'A-1-3'] });
    expect(second).toMatchObject({ ok: false, code: 'SEAT_UNAVAILABLE', seatIds: ['A-1-2'] });

    const users = await Promise.all(Array.from({ length: 50 }, () => newUser(h.store)));
    const race = await Promise.all(users.map((u) => h.store.claimSeats({ ...claimBase(show, u), seatIds: ['A-2-5', 'A-2-6'] })));
    expect(race.filter((r) => r.ok)).toHaveLength(1);
    for (const r of race.filter((x) => !x.ok)) expect(r).toMatchObject({ ok: false, code: 'SEAT_UNAVAILABLE' });
    const a = await audit(h.store, show.showId);
    expect(a.seats.filter((s) => s.status === 'HELD').map((s) => s.seatId).sort()).toEqual(['A-1-1', 'A-1-2', 'A-2-5', 'A-2-6']);
    // Bob's refused claim took nothing from his count either.
    expect(a.userUnits.find((u) => u.userId === bob)?.units ?? 0).toBe(0);
  });

  it('names missing seats SEAT_NOT_FOUND before anything else, and writes nothing', async () => {
    const show = await newShow(h.store, [seated('A', 1, 4)]);
    const alice = await newUser(h.store);
    expect(await h.store.claimSeats({ ...claimBase(show, alice), seatIds: ['A-1-1', 'A-9-9'] })).toMatchObject({ ok: false, code: 'SEAT_NOT_FOUND', seatIds: ['A-9-9'] });
    expect((await audit(h.store, show.showId)).seats.every((s) => s.status === 'AVAILABLE')).toBe(true);
  });

  it('gives 40 parallel best-available buyers different seats, pairs side by side while pairs are left', async () => {
    const show = await newShow(h.store, [seated('A', 10, 12)]);
    const users = await Promise.all(Array.from({ length: 40 }, () => newUser(h.store)));
    const outcomes = await Promise.all(users.map((u) => h.store.claimBestAvailable({ ...claimBase(show, u), quantity: 2, adjacentOnly: false })));
    const holds = outcomes.map(held);
    const seats = holds.flatMap((x) => x.lines.flatMap((l) => (l.kind === 'SEATS' ? l.seatIds : [])));
    expect(new Set(seats).size).toBe(80);
    expect(outcomes.every((o) => o.ok && o.adjacent)).toBe(true);
  });

  it('best-available near a seat reads each row once, though the rows nearest the seat are not one range (distinct seats, never one twice)', async () => {
    // Rows nearest A-5 come 5, 4, 6, 3, ...: a later window of rows (6, 3, 7, 2, ...) spans rows 4
    // and 5 read before. Only rows 4 and 5 have free seats, every other one, so the pick is scattered.
    const show = await newShow(h.store, [seated('A', 10, 6)]);
    const taker = await newUser(h.store);
    const taken = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].flatMap((row) => [1, 2, 3, 4, 5, 6].filter((n) => (row !== 4 && row !== 5) || n % 2 === 0).map((n) => `A-${row}-${n}`));
    held(await h.store.claimSeats({ ...claimBase(show, taker), seatIds: taken }));
    const buyer = await newUser(h.store);
    const hold = held(await h.store.claimBestAvailable({ ...claimBase(show, buyer), quantity: 2, adjacentOnly: false, near: { section: 'A', row: 5, number: 3 } }));
    const seats = hold.lines.flatMap((l) => (l.kind === 'SEATS' ? l.seatIds : []));
    expect(seats).toHaveLength(2);
    expect(new Set(seats).size).toBe(2);
    expect(seats).toContain('A-5-3');
    const a = await audit(h.store, show.showId);
    expect(a.seats.filter((s) => s.status === 'AVAILABLE')).toHaveLength(4);
  });

  it('keeps the per-user cap under 100 parallel seat claims (conditional increment of the user counter)', async () => {
    const show = await newShow(h.store, [seated('A', 10, 10)]);
    const alice = await newUser(h.store);
    const seatIds = Array.from({ length: 100 }, (_, i) => `A-${Math.floor(i / 10) + 1}-${(i % 10) + 1}`);
    const outcomes = await Promise.all(seatIds.map((s) => h.store.claimSeats({ ...claimBase(show, alice, { userUnitsMax: 5 }), seatIds: [s] })));
    expect(outcomes.filter((o) => o.ok)).toHaveLength(5);
    for (const o of outcomes.filter((x) => !x.ok)) expect(o).toMatchObject({ ok: false, code: 'PURCHASE_LIMIT_REACHED', limit: 5 });
    const a = await audit(h.store, show.showId);
    expect(a.userUnits.find((u) => u.userId === alice)?.units).toBe(5);
    expect(a.seats.filter((s) => s.status === 'HELD')).toHaveLength(5);
  });

  it('keeps the per-user cap under 100 parallel unit claims', async () => {
    const show = await newShow(h.store, [ga('GA', 1_000)]);
    const alice = await newUser(h.store);
    const outcomes = await Promise.all(Array.from({ length: 100 }, () => h.store.claimUnits({ ...claimBase(show, alice, { userUnitsMax: 7 }), sectionId: 'GA', quantity: 2 })));
    expect(outcomes.filter((o) => o.ok)).toHaveLength(3);
    const a = await audit(h.store, show.showId);
    expect(a.userUnits.find((u) => u.userId === alice)?.units).toBe(6);
    expect(a.sections.find((s) => s.sectionId === 'GA')?.available).toBe(994);
  });

  it('never takes counted stock below zero: 100 parallel claims of 1-3 units on 50 places (CHECK available >= 0 / conditional decrement)', async () => {
    const show = await newShow(h.store, [ga('GA', 50)]);
    const users = await Promise.all(Array.from({ length: 100 }, () => newUser(h.store)));
    const outcomes = await Promise.all(users.map((u, i) => h.store.claimUnits({ ...claimBase(show, u), sectionId: 'GA', quantity: 1 + (i % 3) })));
    const taken = outcomes.reduce((n, o) => n + (o.ok ? o.hold.lines.reduce((m, l) => m + (l.kind === 'UNITS' ? l.quantity : 0), 0) : 0), 0);
    for (const o of outcomes.filter((x) => !x.ok)) expect(o).toMatchObject({ ok: false, code: 'NOT_ENOUGH_SEATS' });
    expect(taken).toBeLessThanOrEqual(50);
    expect(taken).toBeGreaterThanOrEqual(48); // all-or-nothing claims of 1-3 leave at most 2 behind
    const section = (await audit(h.store, show.showId)).sections.find((s) => s.sectionId === 'GA');
    expect(section).toMatchObject({ capacity: 50, available: 50 - taken });
    // And one more than what is left is refused whole.
    const more = await h.store.claimUnits({ ...claimBase(show, users[0] as string), sectionId: 'GA', quantity: 50 - taken + 1 });
    expect(more).toMatchObject({ ok: false, code: 'NOT_ENOUGH_SEATS' });
  });

  it('claims units of a seated section sold by QUANTITY without touching its seats', async () => {
    const show = await newShow(h.store, [seated('Q', 4, 10, 'QUANTITY')]);
    const alice = await newUser(h.store);
    const hold = held(await h.store.claimUnits({ ...claimBase(show, alice), sectionId: 'Q', quantity: 3 }));
    expect(hold.lines).toEqual([{ kind: 'UNITS', sectionId: 'Q', quantity: 3 }]);
    expect(hold.totalPriceCents).toBe(3 * 5000);
    const a = await audit(h.store, show.showId);
    expect(a.sections.find((s) => s.sectionId === 'Q')).toMatchObject({ capacity: 40, available: 37 });
    expect(a.seats.every((s) => s.status === 'AVAILABLE')).toBe(true);
  });
});
