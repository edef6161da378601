import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createUndiciSender } from '../../src/adapters/webhooks/undici-sender.js';
import { defaultWebhookDeliveryPolicy, WebhookDelivery, type WebhookDeliveryPolicy } from '../../src/app/webhook-delivery.js';
import { createWebhookSink } from '../../src/app/webhook-sink.js';
import { verifyWebhook } from '../../src/lib/webhook-signature.js';
import type { OutboxEvent, OutboxEventType, OutboxSink, Webhook, WebhookStore } from '../../src/ports/engine/index.js';
import type { JobName, JobOptions, JobPayloads, JobQueue } from '../../src/ports/jobs.js';
import type { WebhookSender } from '../../src/ports/webhook-sender.js';
import { id, T0 } from '../contract/fixtures.js';
import { storeFactories, type TestStoreHandle } from '../support/stores.js';
import { eventually } from '../support/wait.js';
import { startWebhookReceiver, type ReceiverAnswer, type WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * Webhook deliveries end to end against real local receivers (node:http on 127.0.0.1), with the
 * clock and the jitter driven by the test: signatures a receiver can verify, retries with backoff,
 * 410 Gone, a receiver that never answers, and an event relayed twice.
 */
const event = (type: OutboxEventType = 'order.paid', data: Record<string, unknown> = { orderId: id('order'), amountCents: 5000, currency: 'CNY', username: 'ann' }): OutboxEvent => ({
  position: '1', eventId: id('evt'), type, showId: 'show_1', createdAt: T0 - 1000, origin: 'test', data, changes: null,
});

describe.each(storeFactories)('webhook deliveries to a real receiver on $name', (factory) => {
  let h: TestStoreHandle;
  let now = T0;
  const clock = { now: () => now };
  const sender: WebhookSender = createUndiciSender();
  const receivers: WebhookReceiver[] = [];
  const hooks: string[] = [];
  const enqueued: { name: JobName; data: unknown; options: JobOptions }[] = [];
  const jobs: JobQueue = {
    async enqueue<N extends JobName>(name: N, data: JobPayloads[N], options: JobOptions) {
      enqueued.push({ name, data, options });
    },
    async cancel() {},
  };
  const errors: unknown[] = [];
  const policy: WebhookDeliveryPolicy = { ...defaultWebhookDeliveryPolicy, timeoutMs: 1_000, concurrency: 4, leaseMs: 5_000 };
  let delivery: WebhookDelivery;
  let sink: OutboxSink;

  beforeAll(async () => {
    h = await factory.open();
    delivery = new WebhookDelivery({ store: h.store, clock, random: () => 0.5, sender, jobs, policy, onError: (_what, error) => errors.push(error) });
    sink = createWebhookSink({ store: h.store, clock, newDeliveryId: () => id('dlv'), jobs, wake: () => {}, onError: (_what, error) => errors.push(error) });
  });
  afterEach(async () => {
    // Each case's endpoints go, so the next case's due pass sees only its own deliveries.
    for (const webhookId of hooks.splice(0)) await h.store.deleteWebhook(webhookId);
    for (const r of receivers.splice(0)) await r.close();
    enqueued.length = 0;
    expect(errors.splice(0)).toEqual([]);
  });
  afterAll(async () => {
    await sender.close();
    await h?.close();
  });

  async function endpoint(answer: (n: number) => ReceiverAnswer, events: readonly OutboxEventType[] = ['order.paid']): Promise<{ webhook: Webhook; receiver: WebhookReceiver }> {
    const receiver = await startWebhookReceiver(answer);
    receivers.push(receiver);
    const webhook: Webhook = { webhookId: id('whk'), url: receiver.url, events, secret: `whsec_${id('s')}`, status: 'ACTIVE', createdAt: now, disabledReason: null };
    await h.store.insertWebhook(webhook, 1_000);
    hooks.push(webhook.webhookId);
    return { webhook, receiver };
  }

  it('POSTs the event signed with the endpoint secret and its id in X-TicketRush-Event-Id; only subscribed types', async () => {
    const { webhook, receiver } = await endpoint(() => 200);
    const paid = event('order.paid');
    await sink.deliver([paid, event('hold.created')]);
    const [row] = await h.store.listDeliveries(webhook.webhookId, { limit: 10, offset: 0 });
    expect(enqueued).toEqual([{ name: 'deliver-webhook', data: { deliveryId: row!.delivery.deliveryId, attempt: 1 }, options: { key: `deliver-webhook:${row!.delivery.deliveryId}:1` } }]);
    expect(await delivery.deliverDue()).toBe(1);
    expect(receiver.received).toHaveLength(1);
    const got = receiver.received[0]!;
    expect(verifyWebhook(webhook.secret, got.headers['x-ticketrush-signature'] as string, got.body, Math.floor(now / 1000), 300)).toBe('VALID');
    expect(verifyWebhook('another secret', got.headers['x-ticketrush-signature'] as string, got.body, Math.floor(now / 1000), 300)).toBe('BAD_SIGNATURE');
    expect(got.headers['x-ticketrush-event-id']).toBe(paid.eventId);
    expect(got.headers['content-type']).toBe('application/json');
    expect(JSON.parse(got.body)).toEqual({ id: paid.eventId, type: 'order.paid', createdAt: new Date(paid.createdAt).toISOString(), data: paid.data });
    const [done] = await h.store.listDeliveries(webhook.webhookId, { limit: 10, offset: 0 });
    expect(done).toMatchObject({ delivery: { status: 'DELIVERED', attempts: 1, lastStatusCode: 200 }, attempts: [{ attempt: 1, statusCode: 200, outcome: 'DELIVERED' }] });
    expect(await delivery.deliverDue()).toBe(0);
  });

  it('retries a 500 after a jittered backoff (not before), then a 200 delivers it; every attempt is listed', async () => {
    const { webhook, receiver } = await endpoint((n) => (n === 0 ? 500 : 200));
    await sink.deliver([event()]);
    enqueued.length = 0;
    expect(await delivery.deliverDue()).toBe(1);
    const [first] = await h.store.listDeliveries(webhook.webhookId, { limit: 10, offset: 0 });
    // Full jitter, random 0.5 of the first ceiling (10 s).
    const retryAt = now + 5_000;
    expect(first).toMatchObject({ delivery: { status: 'PENDING', attempts: 1, nextAttemptAt: retryAt, lastStatusCode: 500 } });
    expect(enqueued).toEqual([{ name: 'deliver-webhook', data: { deliveryId: first!.delivery.deliveryId, attempt: 2 }, options: { key: `deliver-webhook:${first!.delivery.deliveryId}:2`, runAt: retryAt } }]);
    now = retryAt - 1;
    expect(await delivery.deliverDue()).toBe(0);
    await delivery.runJob({ deliveryId: first!.delivery.deliveryId, attempt: 2 });
    expect(receiver.received).toHaveLength(1);
    now = retryAt;
    // The job of an attempt already made does nothing; the due one sends.
    await delivery.runJob({ deliveryId: first!.delivery.deliveryId, attempt: 1 });
    expect(receiver.received).toHaveLength(1);
    await delivery.runJob({ deliveryId: first!.delivery.deliveryId, attempt: 2 });
    expect(receiver.received).toHaveLength(2);
    expect(receiver.received[1]!.body).toBe(receiver.received[0]!.body);
    const [done] = await h.store.listDeliveries(webhook.webhookId, { limit: 10, offset: 0 });
    expect(done!.delivery).toMatchObject({ status: 'DELIVERED', attempts: 2, nextAttemptAt: null });
    expect(done!.attempts.map((a) => [a.attempt, a.statusCode, a.outcome, a.nextAttemptAt])).toEqual([[1, 500, 'RETRY', retryAt], [2, 200, 'DELIVERED', null]]);
  });

  it('gives a failing delivery up (FAILED) once the next try would fall past the retry window', async () => {
    const shortWindow = new WebhookDelivery({
      store: h.store, clock, random: () => 1, sender, jobs: null, onError: (_what, error) => errors.push(error),
      policy: { ...policy, retry: { baseDelayMs: 1_000, maxDelayMs: 4_000, windowMs: 10_000 } },
    });
    const { webhook, receiver } = await endpoint(() => 503);
    const start = now;
    await sink.deliver([{ ...event(), createdAt: start }]);
    const seen: number[] = [];
    for (let i = 0; i < 10; i++) {
      await shortWindow.deliverDue();
      const [row] = await h.store.listDeliveries(webhook.webhookId, { limit: 1, offset: 0 });
      if (row!.delivery.status !== 'PENDING') break;
      seen.push(row!.delivery.nextAttemptAt! - now);
      now = row!.delivery.nextAttemptAt!;
    }
    // Waits 1 s, 2 s, 4 s, 4 s (capped); the next would end past 10 s after the event.
    expect(seen).toEqual([1_000, 2_000, 4_000]);
    const [row] = await h.store.listDeliveries(webhook.webhookId, { limit: 1, offset: 0 });
    expect(row!.delivery).toMatchObject({ status: 'FAILED', attempts: 4, nextAttemptAt: null });
    expect(row!.attempts.map((a) => a.outcome)).toEqual(['RETRY', 'RETRY', 'RETRY', 'FAILED']);
    expect(receiver.received).toHaveLength(4);
  });

  it('410 Gone disables the endpoint: its other pending deliveries stop and new events make none', async () => {
    const { webhook, receiver } = await endpoint(() => 410);
    await sink.deliver([event()]);
    await delivery.deliverDue();
    expect(receiver.received).toHaveLength(1);
    expect(await h.store.getWebhook(webhook.webhookId)).toMatchObject({ status: 'DISABLED', disabledReason: expect.stringContaining('410') });
    await sink.deliver([event()]);
    expect(await delivery.deliverDue()).toBe(0);
    expect(receiver.received).toHaveLength(1);
    const rows = await h.store.listDeliveries(webhook.webhookId, { limit: 10, offset: 0 });
    expect(rows.map((r) => [r.delivery.status, r.attempts.map((a) => a.outcome)])).toEqual([['DISABLED', ['GONE']]]);
  });

  it('a receiver that never answers is cut at the timeout and retried, and holds up neither other receivers nor the relay', async () => {
    const hung = await endpoint(() => 'hang');
    const fine = await endpoint(() => 200);
    const started = performance.now();
    await sink.deliver([event()]);
    // The sink only writes rows: the relay (and so no sale) ever waits for a receiver.
    expect(performance.now() - started).toBeLessThan(policy.timeoutMs);
    const pass = delivery.deliverDue();
    await eventually(async () => fine.receiver.received[0], policy.timeoutMs);
    // A pass while the hung attempt still holds its slot: the good receiver gets the next event at once.
    await sink.deliver([event()]);
    const second = delivery.deliverDue();
    await eventually(async () => fine.receiver.received[1], policy.timeoutMs);
    const secondAt = performance.now() - started;
    await Promise.all([pass, second]);
    const passMs = performance.now() - started;
    expect(secondAt).toBeLessThan(policy.timeoutMs);
    expect(fine.receiver.received).toHaveLength(2);
    expect(hung.receiver.received).toHaveLength(2);
    expect(passMs).toBeGreaterThanOrEqual(policy.timeoutMs - 50);
    expect(passMs).toBeLessThan(2 * policy.timeoutMs + 2_000);
    const [cut] = await h.store.listDeliveries(hung.webhook.webhookId, { limit: 1, offset: 0 });
    expect(cut!.attempts).toHaveLength(1);
    expect(cut!.delivery).toMatchObject({ status: 'PENDING', attempts: 1, lastStatusCode: null, lastError: expect.stringContaining('timed out') });
    expect(cut!.attempts[0]!.durationMs).toBeGreaterThanOrEqual(policy.timeoutMs - 50);
    const [ok] = await h.store.listDeliveries(fine.webhook.webhookId, { limit: 1, offset: 0 });
    expect(ok!.delivery.status).toBe('DELIVERED');
  });

  it('sends at most `concurrency` attempts at once', async () => {
    const narrow = new WebhookDelivery({ store: h.store, clock, random: () => 0.5, sender, jobs: null, policy: { ...policy, concurrency: 2 }, onError: (_what, error) => errors.push(error) });
    const { webhook, receiver } = await endpoint(() => ({ status: 200, delayMs: 60 }));
    await sink.deliver(Array.from({ length: 8 }, () => event()));
    // A pass leases only what the free slots take; each finished attempt leases the next.
    expect(await narrow.deliverDue()).toBe(2);
    await eventually(async () => {
      const rows = await h.store.listDeliveries(webhook.webhookId, { limit: 10, offset: 0 });
      return rows.every((r) => r.delivery.status === 'DELIVERED') ? rows : undefined;
    });
    expect(receiver.received).toHaveLength(8);
    expect(receiver.inFlightMax()).toBe(2);
  });

  it('a wake while a lease runs asks for one more lease and returns: it never spins on the microtask queue', async () => {
    // A lease that waits until released, answering without I/O, so that even a spinning wake
    // (which starves timers and sockets) ends once it is released and the test cannot hang.
    let open = false;
    let leases = 0;
    const waiting: (() => void)[] = [];
    const store = new Proxy(h.store, {
      get(target, prop) {
        if (prop === 'leaseDueDeliveries') {
          return async () => {
            leases++;
            if (!open) await new Promise<void>((resolve) => waiting.push(resolve));
            return [];
          };
        }
        const value = Reflect.get(target, prop, target) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    }) as WebhookStore;
    const d = new WebhookDelivery({ store, clock, random: () => 0.5, sender, jobs: null, policy, onError: (_what, error) => errors.push(error) });
    const wakes = vi.spyOn(d, 'wake');
    d.wake();
    d.wake();
    d.wake();
    for (let tick = 0; tick < 500; tick++) await Promise.resolve();
    const calls = wakes.mock.calls.length;
    open = true;
    for (const release of waiting.splice(0)) release();
    // The three calls and nothing else while the first lease ran (the livelock: thousands).
    expect(calls).toBe(3);
    // Then exactly one more pass, for what the two later wakes may have missed.
    await eventually(async () => (leases === 2 ? true : undefined));
    await d.idle();
    expect(leases).toBe(2);
  });

  it('an event relayed twice (at least once) is delivered once', async () => {
    const { webhook, receiver } = await endpoint(() => 200);
    const paid = event();
    await sink.deliver([paid]);
    await sink.deliver([paid]);
    await Promise.all([delivery.deliverDue(), delivery.deliverDue()]);
    await sink.deliver([paid]);
    await delivery.deliverDue();
    expect(receiver.received).toHaveLength(1);
    expect(await h.store.listDeliveries(webhook.webhookId, { limit: 10, offset: 0 })).toHaveLength(1);
    expect(enqueued).toHaveLength(1);
  });
});
