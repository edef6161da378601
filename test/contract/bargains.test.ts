import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeFactories, type TestStoreHandle } from '../support/stores.js';
import { audit, bargainOrderInput, cutInput, minute, newBargain, newUser, startedBargain, T0 } from './fixtures.js';
import { settledOutbox } from './settled-outbox.js';

/**
 * Conformance of bargains (issue 23 item 4, seed 001 砍价) on every adapter this run covers. The
 * storage guards each have a test named for them that goes red when the guard is removed: the
 * floor clamp, one cut per helper, one bargain order per buyer, the stock check, one order per
 * bargain order.
 */
describe.each(storeFactories)('bargains on $name', (factory) => {
  let h: TestStoreHandle;
  beforeAll(async () => {
    h = await factory.open();
  });
  afterAll(async () => h?.close());

  it('starts one bargain order per buyer at the original price (the one-per-buyer index), even when started twice at once', async () => {
    const bargainId = await newBargain(h.store);
    const alice = await newUser(h.store);
    const starts = await Promise.all(Array.from({ length: 5 }, (_, i) => h.store.startBargain({ bargainId, userId: alice, bargainOrderId: `bgo_race_${bargainId}_${i}`, now: T0 })));
    const ids = new Set(starts.map((s) => (s.ok ? s.bargainOrder.bargainOrderId : 'refused')));
    expect(ids.size).toBe(1);
    expect(starts.filter((s) => s.ok && s.created)).toHaveLength(1);
    expect(starts[0]).toMatchObject({ ok: true, bargainOrder: { bargainId, userId: alice, currentPriceCents: 10_000, cuts: 0, orderId: null } });
    expect(await h.store.startBargain({ bargainId: 'brg_missing', userId: alice, bargainOrderId: 'bgo_x', now: T0 })).toEqual({ ok: false, code: 'BARGAIN_NOT_FOUND' });
    expect(await h.store.startBargain({ bargainId, userId: await newUser(h.store), bargainOrderId: 'bgo_late', now: T0 + 61 * minute })).toEqual({ ok: false, code: 'SALE_NOT_OPEN' });
    // A bargain is an activity of its own kind, never a show of the catalog.
    expect((await h.store.listShows({ limit: 1000, offset: 0 }, T0)).some((s) => s.showId === bargainId)).toBe(false);
    expect((await h.store.listBargainActivities(1000, T0, false)).find((a) => a.activityId === bargainId)).toMatchObject({ kind: 'BARGAIN', offline: false });
    expect(await h.store.getBargainOrderOf(bargainId, alice)).toMatchObject({ bargainId, userId: alice });
  });

  it('clamps a cut at the floor (the floor clamp): a draw past the floor takes only what is left, then FLOOR_REACHED', async () => {
    const bargainId = await newBargain(h.store, { originalPriceCents: 1_000, floorPriceCents: 700, cutMinCents: 100, cutMaxCents: 250 });
    const alice = await newUser(h.store);
    const bo = await startedBargain(h.store, bargainId, alice);
    const [b, c, d] = [await newUser(h.store), await newUser(h.store), await newUser(h.store)];
    expect(await h.store.cutBargain(cutInput(bo, b, 250))).toEqual({ ok: true, amountCents: 250, currentPriceCents: 750, cuts: 1 });
    expect(await h.store.cutBargain(cutInput(bo, c, 250))).toEqual({ ok: true, amountCents: 50, currentPriceCents: 700, cuts: 2 });
    expect(await h.store.cutBargain(cutInput(bo, d, 100))).toEqual({ ok: false, code: 'FLOOR_REACHED' });
    expect(await h.store.getBargainOrder(bo)).toMatchObject({ currentPriceCents: 700, cuts: 2 });
    const cuts = await h.store.listBargainCuts(bo, 100);
    expect(cuts.map((x) => [x.helperId, x.amountCents])).toEqual([[b, 250], [c, 50]]);
    expect(cuts[0]?.helperName.length).toBeGreaterThan(0);
  });

  it('takes one cut per helper (the one-cut-per-helper index), also among 10 parallel cuts of one helper, and never lets the buyer cut', async () => {
    const bargainId = await newBargain(h.store);
    const alice = await newUser(h.store);
    const bo = await startedBargain(h.store, bargainId, alice);
    const bob = await newUser(h.store);
    const race = await Promise.all(Array.from({ length: 10 }, () => h.store.cutBargain(cutInput(bo, bob, 200))));
    expect(race.filter((r) => r.ok)).toHaveLength(1);
    for (const r of race.filter((x) => !x.ok)) expect(r).toEqual({ ok: false, code: 'ALREADY_CUT' });
    expect(await h.store.getBargainOrder(bo)).toMatchObject({ currentPriceCents: 9_800, cuts: 1 });
    expect(await h.store.cutBargain(cutInput(bo, alice, 200))).toEqual({ ok: false, code: 'CANNOT_CUT_OWN' });
    expect(await h.store.cutBargain(cutInput('bgo_missing', bob, 200))).toEqual({ ok: false, code: 'BARGAIN_ORDER_NOT_FOUND' });
    // A bargain order lapses at saleEndsAt.
    expect(await h.store.cutBargain(cutInput(bo, await newUser(h.store), 200, T0 + 60 * minute))).toEqual({ ok: false, code: 'SALE_NOT_OPEN' });
  });

  it('keeps the sum of cuts equal to original minus current and the price at or above the floor under 60 parallel helpers', async () => {
    const bargainId = await newBargain(h.store, { originalPriceCents: 10_000, floorPriceCents: 6_000, cutMinCents: 100, cutMaxCents: 300 });
    const bo = await startedBargain(h.store, bargainId, await newUser(h.store));
    const helpers = await Promise.all(Array.from({ length: 60 }, () => newUser(h.store)));
    const race = await Promise.all(helpers.map((u, i) => h.store.cutBargain(cutInput(bo, u, 100 + ((i * 37) % 201)))));
    const after = await h.store.getBargainOrder(bo);
    const cuts = await h.store.listBargainCuts(bo, 1000);
    expect(after?.currentPriceCents).toBeGreaterThanOrEqual(6_000);
    expect(cuts.reduce((s, c) => s + c.amountCents, 0)).toBe(10_000 - (after?.currentPriceCents ?? 0));
    expect(cuts).toHaveLength(race.filter((r) => r.ok).length);
    expect(after?.cuts).toBe(cuts.length);
    expect(new Set(cuts.map((c) => c.helperId)).size).toBe(cuts.length);
    for (const r of race.filter((x) => !x.ok)) expect(r).toEqual({ ok: false, code: 'FLOOR_REACHED' });
  });

  it('orders once ready, at the price reached, taking one unit (kind BARGAIN); one order per bargain order; BARGAIN_NOT_READY before', async () => {
    const bargainId = await newBargain(h.store, { minCuts: 2 });
    const alice = await newUser(h.store);
    const bo = await startedBargain(h.store, bargainId, alice);
    expect(await h.store.orderBargain(bargainOrderInput(bo, alice))).toEqual({ ok: false, code: 'BARGAIN_NOT_READY' });
    await h.store.cutBargain(cutInput(bo, await newUser(h.store), 300));
    expect(await h.store.orderBargain(bargainOrderInput(bo, alice))).toEqual({ ok: false, code: 'BARGAIN_NOT_READY' });
    await h.store.cutBargain(cutInput(bo, await newUser(h.store), 200));
    expect(await h.store.orderBargain(bargainOrderInput(bo, await newUser(h.store)))).toEqual({ ok: false, code: 'BARGAIN_ORDER_NOT_FOUND' });
    const input = bargainOrderInput(bo, alice);
    const race = await Promise.all([input, bargainOrderInput(bo, alice), bargainOrderInput(bo, alice)].map((x) => h.store.orderBargain(x)));
    const won = race.filter((r) => r.ok);
    expect(won).toHaveLength(1);
    const first = won[0];
    if (first === undefined || !first.ok) throw new Error('no order');
    expect(first).toMatchObject({ order: { kind: 'BARGAIN', activityId: bargainId, status: 'INIT', amountCents: 9_500, lines: [{ kind: 'UNITS', sectionId: 'GOODS', quantity: 1 }] } });
    for (const r of race.filter((x) => !x.ok)) expect(r).toMatchObject({ ok: false, code: 'ALREADY_ORDERED', orderId: first.order.orderId });
    expect(await h.store.getOrder(first.order.orderId)).toMatchObject({ kind: 'BARGAIN', activityId: bargainId, amountCents: 9_500 });
    expect(await h.store.getBargainOrder(bo)).toMatchObject({ orderId: first.order.orderId });
    expect((await h.store.availability(bargainId))?.find((s) => s.sectionId === 'GOODS')?.available).toBe(4);
    expect(await h.store.cutBargain(cutInput(bo, await newUser(h.store), 100))).toEqual({ ok: false, code: 'BARGAIN_CLOSED' });
    expect(await h.store.hasOrderOfActivity(alice, bargainId)).toBe(true);
  });

  it('never sells below zero (the stock check): 8 ready bargain orders on 3 units get exactly 3 orders, the rest SOLD_OUT with nothing written', async () => {
    const bargainId = await newBargain(h.store, { stock: 3, minCuts: 1 });
    const buyers = await Promise.all(Array.from({ length: 8 }, () => newUser(h.store)));
    const orders = await Promise.all(buyers.map(async (u) => {
      const bo = await startedBargain(h.store, bargainId, u);
      await h.store.cutBargain(cutInput(bo, await newUser(h.store), 100));
      return { bo, u };
    }));
    const race = await Promise.all(orders.map(({ bo, u }) => h.store.orderBargain(bargainOrderInput(bo, u))));
    expect(race.filter((r) => r.ok)).toHaveLength(3);
    for (const r of race.filter((x) => !x.ok)) expect(r).toEqual({ ok: false, code: 'SOLD_OUT', available: 0 });
    expect((await h.store.availability(bargainId))?.find((s) => s.sectionId === 'GOODS')?.available).toBe(0);
    const a = await audit(h.store, bargainId);
    expect(a.userUnits.reduce((sum, x) => sum + x.units, 0)).toBe(3);
    // A refused buyer's bargain order stays open (not linked to anything).
    const refused = orders[race.findIndex((r) => !r.ok)];
    expect((await h.store.getBargainOrder(refused?.bo ?? ''))?.orderId).toBeNull();
  });

  it('takes a bargain offline and back (compare-and-set on the version): no start, cut or order while offline', async () => {
    const bargainId = await newBargain(h.store, { minCuts: 1 });
    const alice = await newUser(h.store);
    const bo = await startedBargain(h.store, bargainId, alice);
    const bargain = await h.store.getBargain(bargainId);
    if (bargain === null) throw new Error('no bargain');
    const details = { title: 'Down', description: '', imageUrl: null, saleStartsAt: bargain.show.saleStartsAt, saleEndsAt: bargain.show.saleEndsAt, offline: true };
    const head = await h.store.outboxHead();
    expect(await h.store.updateBargain({ bargainId, expectedVersion: bargain.show.version, details })).toMatchObject({ ok: true, bargain: { show: { title: 'Down' }, record: { offline: true } } });
    expect(await h.store.updateBargain({ bargainId, expectedVersion: bargain.show.version, details })).toEqual({ ok: false, stale: 'show' });
    // One change, one 'show.changed' row (issue 33): other processes' read models refresh from it.
    // (The row the bargain's creation wrote may come after a PostgreSQL head: its version tells it apart.)
    const changed = await settledOutbox(h.store, head, 1, (e) => e.type === 'show.changed' && e.showId === bargainId && e.data.version !== bargain.show.version);
    expect(changed.map((e) => e.data)).toEqual([{ showId: bargainId, version: bargain.show.version + 1 }]);
    expect(await h.store.cutBargain(cutInput(bo, await newUser(h.store), 100))).toEqual({ ok: false, code: 'ACTIVITY_OFFLINE' });
    expect(await h.store.startBargain({ bargainId, userId: await newUser(h.store), bargainOrderId: 'bgo_off', now: T0 })).toEqual({ ok: false, code: 'ACTIVITY_OFFLINE' });
    expect((await h.store.listBargainActivities(1000, T0, false)).some((a) => a.activityId === bargainId)).toBe(false);
    expect(await h.store.updateBargain({ bargainId: 'brg_missing', expectedVersion: 0, details })).toEqual({ ok: false, code: 'BARGAIN_NOT_FOUND' });
  });
});
