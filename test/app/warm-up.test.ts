import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SeatMapCache } from '../../src/app/seat-map-cache.js';
import { warmReadModels } from '../../src/app/warm-up.js';
import { createShow } from '../../src/domain/index.js';
import { storeFactories, type TestStoreHandle } from '../support/stores.js';
import { seated, T0 } from '../contract/fixtures.js';

/**
 * A fresh process loads the read models of the shows on sale (and opening within the hour)
 * before it listens, so the first onsale after a deploy does not load them inside its herd.
 */
describe.each(storeFactories)('warm-up of the read models on $name', (factory) => {
  let h: TestStoreHandle;
  beforeAll(async () => {
    h = await factory.open();
  });
  afterAll(async () => h?.close());

  const hour = 3_600_000;
  async function show(title: string, saleStartsAt: number, saleEndsAt: number): Promise<string> {
    const made = createShow({
      showId: `show_${title}`, title, venue: 'Hall', city: 'Town', startsAt: T0 + 30 * 24 * hour, saleStartsAt, saleEndsAt,
      seatMap: { sections: [seated('A', 2, 5)] }, maxSeatsPerUser: null,
    }, T0 - 100 * 24 * hour);
    if (!made.ok) throw new Error(made.error.message);
    await h.store.createShow(made.value);
    return made.value.show.showId;
  }

  it('loads the shows on sale and those opening within the hour, not the ended or the later ones', async () => {
    const onSale = await show('on_sale', T0 - hour, T0 + hour);
    const soon = await show('opening_soon', T0 + 30 * 60_000, T0 + 2 * hour);
    const later = await show('opening_later', T0 + 3 * hour, T0 + 4 * hour);
    const ended = await show('ended', T0 - 3 * hour, T0 - hour);
    const seatMaps = new SeatMapCache(h.store, () => T0);
    expect(await warmReadModels({ store: h.store, seatMaps, clock: { now: () => T0 } })).toBe(2);
    expect(seatMaps.loaded(onSale)?.show.showId).toBe(onSale);
    expect(seatMaps.loaded(soon)?.show.showId).toBe(soon);
    expect(seatMaps.loaded(later)).toBeNull();
    expect(seatMaps.loaded(ended)).toBeNull();
  });
});
