import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeFactories, type TestStoreHandle } from '../support/stores.js';
import { claimBase, ga, held, minute, newShow, newUser, orderAwaitingPayment, seated, T0 } from './fixtures.js';

/**
 * activeHoldsOfUser: the buyer's live holds, so a page can resume a hold after a reload. Only the
 * caller's, only ACTIVE, only not yet due, soonest to expire first, one page at a time.
 */
describe.each(storeFactories)('activeHoldsOfUser on $name', (factory) => {
  let h: TestStoreHandle;
  beforeAll(async () => {
    h = await factory.open();
  });
  afterAll(async () => h?.close());

  it("lists only the user's ACTIVE holds that are not due, soonest to expire first, with their lines", async () => {
    const show = await newShow(h.store, [seated('A', 2, 10), ga('GA', 20)]);
    const [alice, bob] = [await newUser(h.store), await newUser(h.store)];
    const later = held(await h.store.claimSeats({ ...claimBase(show, alice, { ttl: 9 * minute }), seatIds: ['A-1-1', 'A-1-2'] }));
    const sooner = held(await h.store.claimUnits({ ...claimBase(show, alice, { ttl: 3 * minute }), sectionId: 'GA', quantity: 3 }));
    const released = held(await h.store.claimSeats({ ...claimBase(show, alice, { ttl: 5 * minute }), seatIds: ['A-2-1'] }));
    const overdue = held(await h.store.claimSeats({ ...claimBase(show, alice, { ttl: 1 }), seatIds: ['A-2-2'] }));
    held(await h.store.claimSeats({ ...claimBase(show, bob), seatIds: ['A-1-5'] }));
    expect(await h.store.lapseHold({ holdId: released.holdId, event: 'RELEASE', expectedExpiresAt: released.expiresAt, now: T0 + 1 })).toMatchObject({ ok: true });

    const now = T0 + 1000;
    const mine = await h.store.activeHoldsOfUser(alice, now, { limit: 10, offset: 0 });
    expect(mine.map((x) => x.holdId)).toEqual([sooner.holdId, later.holdId]);
    expect(mine[0]).toEqual(sooner);
    expect(mine[1]).toMatchObject({ status: 'ACTIVE', lines: [{ kind: 'SEATS', sectionId: 'A', seatIds: ['A-1-1', 'A-1-2'] }], totalPriceCents: 10_000 });
    // The overdue one is still ACTIVE in storage (not swept yet) but cannot be resumed: not listed.
    expect((await h.store.getHold(overdue.holdId))?.status).toBe('ACTIVE');
    // A hold stops being listed the moment it is due.
    expect((await h.store.activeHoldsOfUser(alice, sooner.expiresAt, { limit: 10, offset: 0 })).map((x) => x.holdId)).toEqual([later.holdId]);
    expect(await h.store.activeHoldsOfUser('user_nobody', now, { limit: 10, offset: 0 })).toEqual([]);
  });

  it('pages with limit and offset, keeps a hold whose order awaits payment, and drops it once it lapses with its order', async () => {
    const show = await newShow(h.store, [seated('A', 1, 10)]);
    const carol = await newUser(h.store);
    const holds = [];
    for (let i = 1; i <= 5; i++) holds.push(held(await h.store.claimSeats({ ...claimBase(show, carol, { ttl: i * minute }), seatIds: [`A-1-${i}`] })));
    const ids = holds.map((x) => x.holdId);
    expect((await h.store.activeHoldsOfUser(carol, T0, { limit: 2, offset: 0 })).map((x) => x.holdId)).toEqual(ids.slice(0, 2));
    expect((await h.store.activeHoldsOfUser(carol, T0, { limit: 2, offset: 2 })).map((x) => x.holdId)).toEqual(ids.slice(2, 4));
    expect((await h.store.activeHoldsOfUser(carol, T0, { limit: 2, offset: 4 })).map((x) => x.holdId)).toEqual(ids.slice(4));
    // An order awaiting payment keeps its hold ACTIVE: still listed, so the buyer can get back to it.
    const first = holds[0]!;
    await orderAwaitingPayment(h.store, first);
    expect((await h.store.activeHoldsOfUser(carol, T0 + 2, { limit: 10, offset: 0 })).map((x) => x.holdId)).toContain(first.holdId);
    expect(await h.store.lapseHold({ holdId: first.holdId, event: 'RELEASE', expectedExpiresAt: first.expiresAt, now: T0 + 3 })).toMatchObject({ ok: true, cancelledOrder: { status: 'CANCELLED' } });
    expect((await h.store.activeHoldsOfUser(carol, T0 + 4, { limit: 10, offset: 0 })).map((x) => x.holdId)).toEqual(ids.slice(1));
  });
});
