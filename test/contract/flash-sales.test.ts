import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeFactories, type TestStoreHandle } from '../support/stores.js';
import { audit, minute, newFlashSale, newUser, T0, takeInput } from './fixtures.js';
import { settledOutbox } from './settled-outbox.js';

/**
 * Conformance of the flash-sale step (takeFlashSaleUnits) on every adapter this run covers: the
 * stock check, the per-user cap and the order key are storage guards; each test named for one
 * goes red when that guard is removed.
 */
describe.each(storeFactories)('flash sales on $name', (factory) => {
  let h: TestStoreHandle;
  beforeAll(async () => {
    h = await factory.open();
  });
  afterAll(async () => h?.close());

  it('takes the units and opens an INIT order of kind FLASH_SALE in one step, priced by the item', async () => {
    const saleId = await newFlashSale(h.store);
    const alice = await newUser(h.store);
    const input = takeInput(saleId, alice, { quantity: 2 });
    const taken = await h.store.takeFlashSaleUnits(input);
    expect(taken).toMatchObject({ ok: true, order: { orderId: input.orderId, kind: 'FLASH_SALE', activityId: saleId, status: 'INIT', amountCents: 3000 }, hold: { status: 'ACTIVE', expiresAt: input.expiresAt } });
    const stored = await h.store.getOrder(input.orderId);
    expect(stored).toMatchObject({ kind: 'FLASH_SALE', activityId: saleId, holdId: input.holdId, lines: [{ kind: 'UNITS', sectionId: 'TEA', quantity: 2 }] });
    expect((await h.store.availability(saleId))?.find((s) => s.sectionId === 'TEA')?.available).toBe(8);
    expect(await h.store.hasOrderOfActivity(alice, saleId)).toBe(true);
    expect(await h.store.hasOrderOfActivity(await newUser(h.store), saleId)).toBe(false);
    // The sale is not a show of the catalog; it is a flash-sale activity.
    expect((await h.store.listShows({ limit: 1000, offset: 0 }, T0)).some((s) => s.showId === saleId)).toBe(false);
    expect((await h.store.listFlashSaleActivities(1000, T0, false)).some((a) => a.activityId === saleId)).toBe(true);
  });

  it('never sells below zero (the stock check): 40 parallel buyers on 10 units get exactly 10, the rest SOLD_OUT, and nothing else is written', async () => {
    const saleId = await newFlashSale(h.store, { stock: 10, maxPerUser: 1 });
    const users = await Promise.all(Array.from({ length: 40 }, () => newUser(h.store)));
    const race = await Promise.all(users.map((u) => h.store.takeFlashSaleUnits(takeInput(saleId, u))));
    expect(race.filter((r) => r.ok)).toHaveLength(10);
    for (const r of race.filter((x) => !x.ok)) expect(r).toMatchObject({ ok: false, code: 'SOLD_OUT', available: 0 });
    const a = await audit(h.store, saleId);
    expect(a.userUnits.reduce((sum, u) => sum + u.units, 0)).toBe(10);
    expect((await h.store.availability(saleId))?.find((s) => s.sectionId === 'TEA')?.available).toBe(0);
    // One unit asked beyond what is left: refused with what is left.
    const saleTwo = await newFlashSale(h.store, { stock: 3, maxPerUser: 5 });
    const bob = await newUser(h.store);
    expect(await h.store.takeFlashSaleUnits(takeInput(saleTwo, bob, { quantity: 4 }))).toEqual({ ok: false, code: 'SOLD_OUT', available: 3 });
    expect((await audit(h.store, saleTwo)).userUnits.find((u) => u.userId === bob)?.units ?? 0).toBe(0);
  });

  it('holds the per-user cap (maxPerUser across live orders of the sale), also among 20 parallel calls of one buyer', async () => {
    const saleId = await newFlashSale(h.store, { stock: 100, maxPerUser: 3 });
    const alice = await newUser(h.store);
    const race = await Promise.all(Array.from({ length: 20 }, () => h.store.takeFlashSaleUnits(takeInput(saleId, alice))));
    expect(race.filter((r) => r.ok)).toHaveLength(3);
    for (const r of race.filter((x) => !x.ok)) expect(r).toMatchObject({ ok: false, code: 'PURCHASE_LIMIT_REACHED', limit: 3, claimed: 3 });
    expect((await h.store.availability(saleId))?.find((s) => s.sectionId === 'TEA')?.available).toBe(97);
    // A lapsed order gives its units and the buyer's count back exactly once.
    const first = race.find((r) => r.ok);
    if (first === undefined || !first.ok) throw new Error('no order');
    const lapse = { holdId: first.hold.holdId, event: 'EXPIRE' as const, expectedExpiresAt: first.hold.expiresAt, now: first.hold.expiresAt };
    const lapsed = await h.store.lapseHold(lapse);
    expect(lapsed).toMatchObject({ ok: true, cancelledOrder: { orderId: first.order.orderId, status: 'CANCELLED' } });
    expect(await h.store.lapseHold(lapse)).toMatchObject({ ok: false });
    expect((await h.store.availability(saleId))?.find((s) => s.sectionId === 'TEA')?.available).toBe(98);
    expect((await audit(h.store, saleId)).userUnits.find((u) => u.userId === alice)?.units).toBe(2);
    expect((await h.store.takeFlashSaleUnits(takeInput(saleId, alice))).ok).toBe(true);
  });

  it('refuses one key twice (the order key index), an offline sale, a closed window, and unknown sales and items', async () => {
    const saleId = await newFlashSale(h.store);
    const alice = await newUser(h.store);
    const first = await h.store.takeFlashSaleUnits(takeInput(saleId, alice, { key: 'same' }));
    expect(first.ok).toBe(true);
    const again = await h.store.takeFlashSaleUnits(takeInput(saleId, alice, { key: 'same' }));
    expect(again).toMatchObject({ ok: false, code: 'KEY_TAKEN', orderId: first.ok ? first.order.orderId : '' });
    expect(await h.store.takeFlashSaleUnits(takeInput(saleId, alice, { now: T0 - 2 * minute }))).toEqual({ ok: false, code: 'SALE_NOT_OPEN' });
    expect(await h.store.takeFlashSaleUnits(takeInput(saleId, alice, { now: T0 + 60 * minute }))).toEqual({ ok: false, code: 'SALE_NOT_OPEN' });
    expect(await h.store.takeFlashSaleUnits(takeInput(saleId, alice, { itemId: 'NOPE' }))).toEqual({ ok: false, code: 'ITEM_NOT_FOUND' });
    expect(await h.store.takeFlashSaleUnits(takeInput('fls_missing', alice))).toEqual({ ok: false, code: 'FLASH_SALE_NOT_FOUND' });
    const sale = await h.store.getFlashSale(saleId);
    if (sale === null) throw new Error('no sale');
    const details = { title: 'Down', description: '', imageUrl: null, saleStartsAt: sale.show.saleStartsAt, saleEndsAt: sale.show.saleEndsAt, offline: true };
    const head = await h.store.outboxHead();
    const down = await h.store.updateCampaign({ activityId: saleId, expectedVersion: sale.show.version, details, now: T0 + 3 * minute });
    expect(down).toMatchObject({ ok: true, sale: { show: { title: 'Down' }, record: { offline: true } } });
    // The change row other processes' read models refresh from (issue 33): 'show.changed' with the new version.
    // (The row the sale's creation wrote may come after a PostgreSQL head: its version tells it apart.)
    const changed = await settledOutbox(h.store, head, 1, (e) => e.type === 'show.changed' && e.showId === saleId && e.data.version !== sale.show.version);
    expect(changed.map((e) => ({ data: e.data, createdAt: e.createdAt }))).toEqual([{ data: { showId: saleId, version: sale.show.version + 1 }, createdAt: T0 + 3 * minute }]);
    // The same version again is stale: no lost update.
    expect(await h.store.updateCampaign({ activityId: saleId, expectedVersion: sale.show.version, details })).toEqual({ ok: false, stale: 'show' });
    expect(await h.store.takeFlashSaleUnits(takeInput(saleId, alice))).toEqual({ ok: false, code: 'ACTIVITY_OFFLINE' });
    expect((await h.store.listFlashSaleActivities(1000, T0, false)).some((a) => a.activityId === saleId)).toBe(false);
    expect((await h.store.listFlashSaleActivities(1000, T0, true)).find((a) => a.activityId === saleId)).toMatchObject({ offline: true, title: 'Down' });
  });
});
