import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewDelivery, OutboxEventType, Webhook } from '../../src/ports/engine/index.js';
import { storeFactories, type TestStoreHandle } from '../support/stores.js';
import { id, minute, T0 } from './fixtures.js';

/**
 * The webhook operations on every store: one delivery per (endpoint, event), leases that two
 * senders never share, attempts recorded once each, 410 Gone disabling an endpoint and its
 * pending deliveries in one step.
 */
const hook = (events: readonly OutboxEventType[] = ['order.paid'], overrides: Partial<Webhook> = {}): Webhook => ({
  webhookId: id('whk'), url: 'http://127.0.0.1:9/hook', events, secret: 'whsec_test', status: 'ACTIVE', createdAt: T0, disabledReason: null, ...overrides,
});
const delivery = (webhookId: string, eventId = id('evt'), now = T0): NewDelivery => ({
  deliveryId: id('dlv'), webhookId, eventId, type: 'order.paid', body: JSON.stringify({ id: eventId }), now,
});

describe.each(storeFactories)('webhook store operations on $name', (factory) => {
  let h: TestStoreHandle;
  beforeAll(async () => {
    h = await factory.open();
  });
  afterAll(async () => h?.close());

  it('stores endpoints, lists them oldest first with their events, finds the subscribed ACTIVE ones, deletes', async () => {
    const a = hook(['order.paid', 'hold.created'], { createdAt: T0 + 1 });
    const b = hook(['ticket.checked_in'], { createdAt: T0 + 2 });
    await h.store.insertWebhook(a, 1_000);
    await h.store.insertWebhook(b, 1_000);
    expect(await h.store.getWebhook(a.webhookId)).toEqual(a);
    const listed = await h.store.listWebhooks({ limit: 100, offset: 0 });
    expect(listed.map((w) => w.webhookId)).toEqual(expect.arrayContaining([a.webhookId, b.webhookId]));
    expect(listed.findIndex((w) => w.webhookId === a.webhookId)).toBeLessThan(listed.findIndex((w) => w.webhookId === b.webhookId));
    const forHold = (await h.store.activeWebhooksFor(['hold.created'])).map((w) => w.webhookId);
    expect(forHold).toContain(a.webhookId);
    expect(forHold).not.toContain(b.webhookId);
    expect(await h.store.deleteWebhook(b.webhookId)).toBe(true);
    expect(await h.store.deleteWebhook(b.webhookId)).toBe(false);
    expect(await h.store.getWebhook(b.webhookId)).toBeNull();
  });

  it('never stores more endpoints than the cap, even when added at once', async () => {
    const existing = (await h.store.listWebhooks({ limit: 1_000, offset: 0 })).length;
    const candidates = Array.from({ length: 10 }, () => hook());
    const outcomes = await Promise.all(candidates.map((w) => h.store.insertWebhook(w, existing + 3)));
    expect(outcomes.filter((o) => o.ok)).toHaveLength(3);
    expect(outcomes.filter((o) => !o.ok)).toEqual(Array(7).fill({ ok: false, code: 'WEBHOOK_LIMIT_REACHED' }));
    const all = await h.store.listWebhooks({ limit: 1_000, offset: 0 });
    expect(all).toHaveLength(existing + 3);
    for (const w of candidates) await h.store.deleteWebhook(w.webhookId);
  });

  it('makes one delivery per (endpoint, event) however often the event comes, and none for an endpoint not ACTIVE', async () => {
    const w = hook();
    const off = hook(['order.paid'], { status: 'DISABLED', disabledReason: 'gone' });
    await h.store.insertWebhook(w, 1_000);
    await h.store.insertWebhook(off, 1_000);
    const first = delivery(w.webhookId);
    expect(await h.store.recordDeliveries([first, delivery(off.webhookId, first.eventId)])).toEqual([first.deliveryId]);
    // The same event relayed again (a new delivery id, as the sink makes one per call): no second row.
    const again = { ...first, deliveryId: id('dlv') };
    expect(await h.store.recordDeliveries([again])).toEqual([]);
    // ... also within one call.
    const other = delivery(w.webhookId);
    expect(await h.store.recordDeliveries([other, { ...other, deliveryId: id('dlv') }])).toEqual([other.deliveryId]);
    const listed = await h.store.listDeliveries(w.webhookId, { limit: 10, offset: 0 });
    expect(listed.map((d) => d.delivery.eventId).sort()).toEqual([first.eventId, other.eventId].sort());
    expect(listed[0]?.delivery).toMatchObject({ status: 'PENDING', attempts: 0, nextAttemptAt: T0 });
  });

  it('leases a due delivery to one sender at a time, until the lease runs out', async () => {
    const w = hook();
    await h.store.insertWebhook(w, 1_000);
    const d = delivery(w.webhookId, id('evt'), T0 + 10 * minute);
    await h.store.recordDeliveries([d]);
    const now = T0 + 10 * minute;
    expect((await h.store.leaseDueDeliveries({ now: now - 1, leaseMs: minute, limit: 1000 })).map((x) => x.delivery.deliveryId)).not.toContain(d.deliveryId);
    // Two senders at once: the delivery goes to exactly one.
    const [one, two] = await Promise.all([
      h.store.leaseDueDeliveries({ now, leaseMs: minute, limit: 1000 }),
      h.store.leaseDueDeliveries({ now, leaseMs: minute, limit: 1000 }),
    ]);
    const leased = [...one, ...two].filter((x) => x.delivery.deliveryId === d.deliveryId);
    expect(leased).toHaveLength(1);
    expect(leased[0]).toMatchObject({ url: w.url, secret: w.secret, delivery: { body: d.body, attempts: 0 } });
    expect(await h.store.leaseDelivery({ deliveryId: d.deliveryId, attempts: 0, now: now + 1, leaseMs: minute })).toBeNull();
    // The sender died: once the lease runs out, another takes it.
    expect(await h.store.leaseDelivery({ deliveryId: d.deliveryId, attempts: 1, now: now + minute, leaseMs: minute })).toBeNull();
    expect(await h.store.leaseDelivery({ deliveryId: d.deliveryId, attempts: 0, now: now + minute, leaseMs: minute })).toMatchObject({ delivery: { deliveryId: d.deliveryId } });
  });

  it('shares due deliveries among senders leasing at once: each leased by exactly one', async () => {
    const w = hook();
    await h.store.insertWebhook(w, 1_000);
    for (let round = 0; round < 5; round++) {
      const now = T0 + (20 + round) * minute;
      const ours = Array.from({ length: 40 }, () => delivery(w.webhookId, id('evt'), now));
      await h.store.recordDeliveries(ours);
      const leases = await Promise.all(Array.from({ length: 4 }, () => h.store.leaseDueDeliveries({ now, leaseMs: 10 * minute, limit: 25 })));
      const leased = leases.flat().map((x) => x.delivery.deliveryId).filter((d) => ours.some((o) => o.deliveryId === d));
      expect(new Set(leased).size).toBe(leased.length);
      expect(leased.length).toBe(ours.length);
    }
  });

  it('records each attempt once, retries at the time given, lists every attempt, and ends DELIVERED', async () => {
    const w = hook();
    await h.store.insertWebhook(w, 1_000);
    const d = delivery(w.webhookId);
    await h.store.recordDeliveries([d]);
    const retry = { deliveryId: d.deliveryId, attempt: 1, now: T0 + 100, statusCode: 500, durationMs: 12, error: null, outcome: 'RETRY' as const, nextAttemptAt: T0 + 5_000 };
    expect(await h.store.recordAttempt(retry)).toMatchObject({ ok: true, delivery: { status: 'PENDING', attempts: 1, nextAttemptAt: T0 + 5_000, lastStatusCode: 500 } });
    // A second sender recording the same attempt hears stale, writes nothing.
    expect(await h.store.recordAttempt({ ...retry, statusCode: 502 })).toEqual({ ok: false, stale: true });
    expect(await h.store.leaseDelivery({ deliveryId: d.deliveryId, attempts: 1, now: T0 + 4_999, leaseMs: minute })).toBeNull();
    expect(await h.store.leaseDelivery({ deliveryId: d.deliveryId, attempts: 1, now: T0 + 5_000, leaseMs: minute })).not.toBeNull();
    expect(await h.store.recordAttempt({ ...retry, attempt: 2, now: T0 + 5_100, statusCode: 204, durationMs: 3, outcome: 'DELIVERED', nextAttemptAt: null }))
      .toMatchObject({ ok: true, delivery: { status: 'DELIVERED', attempts: 2, nextAttemptAt: null } });
    expect(await h.store.recordAttempt({ ...retry, attempt: 3, now: T0 + 5_200 })).toEqual({ ok: false, stale: true });
    const [listed] = await h.store.listDeliveries(w.webhookId, { limit: 10, offset: 0 });
    expect(listed?.attempts).toEqual([
      { deliveryId: d.deliveryId, attempt: 1, at: T0 + 100, statusCode: 500, durationMs: 12, error: null, outcome: 'RETRY', nextAttemptAt: T0 + 5_000 },
      { deliveryId: d.deliveryId, attempt: 2, at: T0 + 5_100, statusCode: 204, durationMs: 3, error: null, outcome: 'DELIVERED', nextAttemptAt: null },
    ]);
    expect(await h.store.leaseDueDeliveries({ now: T0 + 10 * 86_400_000, leaseMs: minute, limit: 1000 }).then((l) => l.map((x) => x.delivery.deliveryId))).not.toContain(d.deliveryId);
  });

  it('410 Gone disables the endpoint and stops its other pending deliveries, in the same step', async () => {
    const w = hook();
    await h.store.insertWebhook(w, 1_000);
    const [a, b] = [delivery(w.webhookId), delivery(w.webhookId)];
    await h.store.recordDeliveries([a!, b!]);
    expect(await h.store.recordAttempt({ deliveryId: a!.deliveryId, attempt: 1, now: T0 + 1, statusCode: 410, durationMs: 2, error: null, outcome: 'GONE', nextAttemptAt: null }))
      .toMatchObject({ ok: true, delivery: { status: 'DISABLED' } });
    expect(await h.store.getWebhook(w.webhookId)).toMatchObject({ status: 'DISABLED', disabledReason: expect.stringContaining('410') });
    const listed = await h.store.listDeliveries(w.webhookId, { limit: 10, offset: 0 });
    expect(listed.map((x) => x.delivery.status)).toEqual(['DISABLED', 'DISABLED']);
    expect(await h.store.leaseDelivery({ deliveryId: b!.deliveryId, attempts: 0, now: T0 + 2, leaseMs: minute })).toBeNull();
    expect(await h.store.activeWebhooksFor(['order.paid']).then((l) => l.map((x) => x.webhookId))).not.toContain(w.webhookId);
    expect(await h.store.recordDeliveries([delivery(w.webhookId)])).toEqual([]);
  });

  it('gives up a delivery (FAILED) and pages deliveries newest first; deleting the endpoint removes them', async () => {
    const w = hook();
    await h.store.insertWebhook(w, 1_000);
    const ds = [delivery(w.webhookId, id('evt'), T0 + 1), delivery(w.webhookId, id('evt'), T0 + 2), delivery(w.webhookId, id('evt'), T0 + 3)];
    await h.store.recordDeliveries(ds);
    expect(await h.store.recordAttempt({ deliveryId: ds[0]!.deliveryId, attempt: 1, now: T0 + 9, statusCode: null, durationMs: 10_000, error: 'timed out', outcome: 'FAILED', nextAttemptAt: null }))
      .toMatchObject({ ok: true, delivery: { status: 'FAILED', lastError: 'timed out', lastStatusCode: null, lastDurationMs: 10_000 } });
    const page1 = await h.store.listDeliveries(w.webhookId, { limit: 2, offset: 0 });
    const page2 = await h.store.listDeliveries(w.webhookId, { limit: 2, offset: 2 });
    expect([...page1, ...page2].map((x) => x.delivery.deliveryId)).toEqual([ds[2]!.deliveryId, ds[1]!.deliveryId, ds[0]!.deliveryId]);
    expect(await h.store.deleteWebhook(w.webhookId)).toBe(true);
    expect(await h.store.listDeliveries(w.webhookId, { limit: 10, offset: 0 })).toEqual([]);
  });
});
