import { settledOutbox } from './settled-outbox.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Show } from '../../src/domain/index.js';
import type { OfferWaitlistOutcome, Store } from '../../src/ports/engine/index.js';
import { storeFactories, type TestStoreHandle } from '../support/stores.js';
import { audit, claimBase, ga, held, id, minute, newShow, newUser, seated, T0 } from './fixtures.js';

/**
 * Conformance of the waitlist operations (issue 25 item 5) on every adapter this run covers:
 * one live entry per buyer and show (a partial unique index), and the offer as ONE operation that
 * picks the next WAITING entry in order of joining and creates its hold on seats still free.
 */
const offerInput = (show: Show, now = T0 + minute) => ({ showId: show.showId, holdId: id('hold'), now, claimUntil: now + 15 * minute, userUnitsMax: 10 });

async function join(store: Store, show: Show, userId: string, quantity = 1, sectionId: string | null = null, now = T0) {
  const joined = await store.joinWaitlist({ entryId: id('wle'), showId: show.showId, userId, sectionId, quantity, now });
  if (!joined.ok) throw new Error(`join refused: ${JSON.stringify(joined)}`);
  return joined.entry;
}

function offered(outcome: OfferWaitlistOutcome) {
  if (!outcome.ok) throw new Error(`nothing offered: ${JSON.stringify(outcome)}`);
  return outcome;
}

describe.each(storeFactories)('waitlist on $name', (factory) => {
  let h: TestStoreHandle;
  beforeAll(async () => {
    h = await factory.open();
  });
  afterAll(async () => h?.close());

  it('keeps one live entry per buyer and show (guard: the partial unique index), even among 10 parallel joins; after leaving, joins again', async () => {
    const show = await newShow(h.store, [seated('A', 1, 2)]);
    const alice = await newUser(h.store);
    const race = await Promise.all(Array.from({ length: 10 }, () => h.store.joinWaitlist({ entryId: id('wle'), showId: show.showId, userId: alice, sectionId: null, quantity: 1, now: T0 })));
    expect(race.filter((r) => r.ok)).toHaveLength(1);
    const first = race.find((r) => r.ok);
    for (const r of race.filter((x) => !x.ok)) expect(r).toMatchObject({ ok: false, code: 'WAITLIST_ALREADY_JOINED', entry: { entryId: first?.ok === true ? first.entry.entryId : '' } });
    expect(await h.store.waitingCount(show.showId)).toBe(1);
    const left = await h.store.leaveWaitlist({ showId: show.showId, userId: alice, now: T0 + 1 });
    expect(left).toMatchObject({ ok: true, entry: { status: 'LEFT' } });
    expect(await h.store.leaveWaitlist({ showId: show.showId, userId: alice, now: T0 + 2 })).toEqual({ ok: false, code: 'WAITLIST_NOT_FOUND' });
    await join(h.store, show, alice, 1, null, T0 + 3);
    const mine = await h.store.waitlistOfUser(alice, 10);
    expect(mine.map((e) => e.status)).toEqual(['WAITING', 'LEFT']);
  });

  it('offers freed seats in order of joining, first fit, as an ACTIVE hold with the claim window, and writes hold.created + waitlist.offered', async () => {
    const show = await newShow(h.store, [seated('A', 1, 3)]);
    const buyer = await newUser(h.store);
    const taken = held(await h.store.claimSeats({ ...claimBase(show, buyer), seatIds: ['A-1-1', 'A-1-2', 'A-1-3'] }));
    const [first, second, third] = [await newUser(h.store), await newUser(h.store), await newUser(h.store)];
    await join(h.store, show, first, 3, null, T0 + 1);
    await join(h.store, show, second, 1, 'A', T0 + 2);
    await join(h.store, show, third, 1, null, T0 + 3);
    expect(await h.store.offerWaitlist(offerInput(show))).toEqual({ ok: false, code: 'NOTHING_TO_OFFER' });
    const head = await h.store.outboxHead();
    // One seat comes back: the first entry wants 3 (does not fit), the second gets it.
    const lapsed = await h.store.lapseHold({ holdId: taken.holdId, event: 'RELEASE', expectedExpiresAt: taken.expiresAt, now: T0 + minute });
    expect(lapsed.ok).toBe(true);
    const again = held(await h.store.claimSeats({ ...claimBase(show, buyer, { now: T0 + minute }), seatIds: ['A-1-1', 'A-1-2'] }));
    const input = offerInput(show, T0 + 2 * minute);
    const o = offered(await h.store.offerWaitlist(input));
    expect(o.entry).toMatchObject({ userId: second, status: 'OFFERED', holdId: input.holdId, claimUntil: input.claimUntil });
    expect(o.hold).toMatchObject({ holdId: input.holdId, userId: second, status: 'ACTIVE', expiresAt: input.claimUntil, lines: [{ kind: 'SEATS', sectionId: 'A', seatIds: ['A-1-3'] }], totalPriceCents: 5000 });
    expect(o.changes.seats).toEqual([expect.objectContaining({ seatId: 'A-1-3', status: 'HELD', holdId: input.holdId })]);
    expect(await h.store.getHold(input.holdId)).toMatchObject({ status: 'ACTIVE', userId: second });
    const a = await audit(h.store, show.showId);
    expect(a.userUnits.find((u) => u.userId === second)?.units).toBe(1);
    const events = await settledOutbox(h.store, head, 1, (e) => e.type === 'waitlist.offered' && e.showId === show.showId);
    expect(events.map((e) => e.data)).toEqual([{ entryId: o.entry.entryId, userId: second, showId: show.showId, holdId: input.holdId, claimUntil: input.claimUntil }]);
    // Nothing free now: nothing offered; the offer lapses and is settled LAPSED, then the next gets the seat.
    expect(await h.store.offerWaitlist(offerInput(show))).toEqual({ ok: false, code: 'NOTHING_TO_OFFER' });
    const lapse = await h.store.lapseHold({ holdId: input.holdId, event: 'EXPIRE', expectedExpiresAt: input.claimUntil, now: input.claimUntil });
    expect(lapse.ok).toBe(true);
    expect(await h.store.settleWaitlistOffer({ holdId: input.holdId, event: 'LAPSE', now: input.claimUntil })).toMatchObject({ status: 'LAPSED', userId: second });
    expect(await h.store.settleWaitlistOffer({ holdId: input.holdId, event: 'LAPSE', now: input.claimUntil })).toBeNull();
    const next = offered(await h.store.offerWaitlist(offerInput(show, input.claimUntil + 1)));
    expect(next.entry.userId).toBe(third);
    void again;
  });

  it('offers units of a counted section back from stock', async () => {
    const show = await newShow(h.store, [ga('G', 2)]);
    const buyer = await newUser(h.store);
    const taken = held(await h.store.claimUnits({ ...claimBase(show, buyer), sectionId: 'G', quantity: 2 }));
    const waiting = await newUser(h.store);
    await join(h.store, show, waiting, 2, 'G');
    await h.store.lapseHold({ holdId: taken.holdId, event: 'RELEASE', expectedExpiresAt: taken.expiresAt, now: T0 + 1 });
    const o = offered(await h.store.offerWaitlist(offerInput(show)));
    expect(o.hold.lines).toEqual([{ kind: 'UNITS', sectionId: 'G', quantity: 2 }]);
    expect((await h.store.availability(show.showId))?.find((s) => s.sectionId === 'G')?.available).toBe(0);
  });

  it('offer atomicity: one freed seat, 6 offers and 6 buyers at once: exactly one hold gets it, never two, and one entry at most is OFFERED', async () => {
    const show = await newShow(h.store, [seated('A', 1, 1)]);
    const buyer = await newUser(h.store);
    const taken = held(await h.store.claimSeats({ ...claimBase(show, buyer), seatIds: ['A-1-1'] }));
    for (let i = 0; i < 4; i++) await join(h.store, show, await newUser(h.store), 1, null, T0 + i);
    await h.store.lapseHold({ holdId: taken.holdId, event: 'RELEASE', expectedExpiresAt: taken.expiresAt, now: T0 + minute });
    const buyers = await Promise.all(Array.from({ length: 6 }, () => newUser(h.store)));
    const race = await Promise.all([
      ...Array.from({ length: 6 }, () => h.store.offerWaitlist(offerInput(show, T0 + 2 * minute))),
      ...buyers.map((b) => h.store.claimSeats({ ...claimBase(show, b, { now: T0 + 2 * minute }), seatIds: ['A-1-1'] })),
    ]);
    expect(race.filter((r) => r.ok)).toHaveLength(1);
    const entries = (await Promise.all((await audit(h.store, show.showId)).userUnits.map((u) => h.store.waitlistOfUser(u.userId, 5)))).flat();
    expect(entries.filter((e) => e.status === 'OFFERED').length).toBeLessThanOrEqual(1);
    expect((await audit(h.store, show.showId)).userUnits.reduce((n, u) => n + u.units, 0)).toBe(1);
  });

  it('offer atomicity: 4 offers at once with 4 seats free and ONE entry waiting: the entry gets one hold, the other offers find nobody', async () => {
    const show = await newShow(h.store, [seated('A', 1, 4)]);
    const alice = await newUser(h.store);
    await join(h.store, show, alice, 1);
    const race = await Promise.all(Array.from({ length: 4 }, () => h.store.offerWaitlist(offerInput(show))));
    expect(race.filter((r) => r.ok)).toHaveLength(1);
    expect((await audit(h.store, show.showId)).userUnits.find((u) => u.userId === alice)?.units).toBe(1);
    expect((await h.store.availability(show.showId))?.find((s) => s.sectionId === 'A')?.available).toBe(3);
  });

  it('skips an entry whose buyer is at the cap, and settles CLAIM only for an OFFERED entry of that hold', async () => {
    const show = await newShow(h.store, [seated('A', 1, 4)], 2);
    const capped = await newUser(h.store);
    held(await h.store.claimSeats({ ...claimBase(show, capped, { userUnitsMax: 2 }), seatIds: ['A-1-1', 'A-1-2'] }));
    const other = await newUser(h.store);
    await join(h.store, show, capped, 1, null, T0 + 1);
    await join(h.store, show, other, 1, null, T0 + 2);
    const o = offered(await h.store.offerWaitlist({ ...offerInput(show), userUnitsMax: 2 }));
    expect(o.entry.userId).toBe(other);
    expect(await h.store.settleWaitlistOffer({ holdId: o.hold.holdId, event: 'CLAIM', now: T0 + 2 * minute })).toMatchObject({ status: 'CLAIMED' });
    expect(await h.store.settleWaitlistOffer({ holdId: id('hold'), event: 'CLAIM', now: T0 + 2 * minute })).toBeNull();
  });
});
