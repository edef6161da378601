import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RelayBackoff, pruneOutboxOnce, relayOnce, type RelayContext } from '../../src/app/outbox-relay.js';
import type { OutboxEvent, OutboxSink } from '../../src/ports/engine/index.js';
import { silentTelemetry } from '../../src/ports/telemetry.js';
import { claimBase, ga, held, id, newShow, newUser } from '../contract/fixtures.js';
import { storeFactories, type TestStoreHandle } from '../support/stores.js';

/** The relay: at least once, in order, cursors only forward, backoff on a failing sink, the lag gauge. */
describe.each(storeFactories)('outbox relay on $name', (factory) => {
  let h: TestStoreHandle;
  let now = Date.now();
  const lags: [string, number][] = [];
  const ctx = (): RelayContext => ({ store: h.store, clock: { now: () => now }, telemetry: { ...silentTelemetry, outboxRelayLag: (sink, s) => lags.push([sink, s]) } } as RelayContext);
  beforeAll(async () => {
    h = await factory.open();
  });
  afterAll(async () => h?.close());

  /** Claims `n` units now; PostgreSQL shows them once older transactions finish, so wait until the store does. */
  async function rows(n: number): Promise<string> {
    const show = await newShow(h.store, [ga('G', 1000)]);
    const u = await newUser(h.store);
    for (let i = 0; i < n; i++) held(await h.store.claimUnits({ ...claimBase(show, u, { now }), sectionId: 'G', quantity: 1 }));
    return show.showId;
  }

  /** Passes until the sink is caught up (bounded). */
  async function drain(sinks: OutboxSink[], backoff: RelayBackoff): Promise<void> {
    for (let i = 0; i < 200; i++) {
      const passes = await relayOnce(ctx(), sinks, backoff);
      if (passes.every((p) => p.state === 'caught-up')) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  it('delivers every row once, in order, after a failing sink\'s backoff; the cursor never goes back', async () => {
    const showId = await rows(5);
    const got: OutboxEvent[] = [];
    let failures = 1;
    const name = id('sink');
    const sink: OutboxSink = {
      name,
      async deliver(events) {
        if (failures-- > 0) throw new Error('receiver down');
        got.push(...events);
      },
    };
    const backoff = new RelayBackoff();
    // Wait until PostgreSQL hands the rows out, then the first pass fails.
    for (let i = 0; i < 250 && (await h.store.readOutbox(null, 10_000)).events.filter((e) => e.showId === showId).length < 5; i++) await new Promise((r) => setTimeout(r, 20));
    const first = await relayOnce(ctx(), [sink], backoff);
    expect(first[0]?.state).toBe('failed');
    expect(await h.store.relayCursor(name)).toBeNull();
    expect(lags.filter(([s]) => s === name).at(-1)?.[1]).toBeGreaterThanOrEqual(0);
    // Backing off: nothing is tried until the retry time.
    expect((await relayOnce(ctx(), [sink], backoff))[0]?.state).toBe('waiting');
    now += 120_000;
    await drain([sink], backoff);
    const mine = got.filter((e) => e.showId === showId);
    expect(mine.map((e) => e.type)).toEqual(['show.changed', 'hold.created', 'hold.created', 'hold.created', 'hold.created', 'hold.created'].slice(-mine.length));
    expect(mine.filter((e) => e.type === 'hold.created')).toHaveLength(5);
    expect(new Set(got.map((e) => e.eventId)).size).toBe(got.length);
    expect(lags.filter(([s]) => s === name).at(-1)).toEqual([name, 0]);
    // Two relays (two processes) on one cursor: each delivers, the cursor only moves forward.
    const more = await rows(3);
    const seen: string[] = [];
    const twin = (): OutboxSink => ({ name, deliver: async (events) => void seen.push(...events.filter((e) => e.showId === more).map((e) => e.eventId)) });
    // The show's row and its three holds.
    for (let i = 0; i < 250 && new Set(seen).size < 4; i++) {
      await Promise.all([relayOnce(ctx(), [twin()]), relayOnce(ctx(), [twin()])]);
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(new Set(seen).size).toBe(4);
    // The relay whose move was stale delivered rows the cursor is not past yet: they come again
    // (at least once), and then the cursor is past them all.
    await drain([twin()], new RelayBackoff());
    const cursor = await h.store.relayCursor(name);
    const after = await h.store.readOutbox(cursor, 10_000);
    expect(after.events.filter((e) => e.showId === more)).toHaveLength(0);
  });

  it('prunes delivered rows past retention, never undelivered ones', async () => {
    const name = id('sink');
    const old = now;
    // This sink has seen nothing of what follows: its cursor holds those rows.
    expect(await h.store.advanceRelayCursor(name, null, await h.store.outboxHead())).toEqual({ ok: true });
    const showId = await rows(2);
    now = old + 100 * 3_600_000;
    await pruneOutboxOnce(ctx(), 72 * 3_600_000);
    expect((await h.store.readOutbox(null, 100_000)).events.filter((e) => e.showId === showId).length).toBeGreaterThan(0);
  });
});
