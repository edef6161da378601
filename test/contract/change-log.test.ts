import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detailsOf } from '../../src/domain/index.js';
import type { AuditEntryDraft, Webhook } from '../../src/ports/engine/index.js';
import { storeFactories, type TestStoreHandle } from '../support/stores.js';
import { id, newShow, newUser, seated, T0 } from './fixtures.js';

/**
 * The audit trail on every store: the entry is written by the operation that makes the change, in
 * its transaction, so a change that commits has its entry and one refused or stale has none; and
 * the log reads back newest first with every filter.
 */
const draft = (overrides: Partial<AuditEntryDraft> = {}): AuditEntryDraft => ({
  entryId: id('aud'), actorId: 'usr_admin', actorRole: 'ADMIN', action: 'show.edited', entityType: 'show', entityId: 'shw_x', showId: 'shw_x',
  before: { title: 'a' }, after: { title: 'b' }, at: T0, ...overrides,
});

describe.each(storeFactories)('audit trail on $name', (factory) => {
  let h: TestStoreHandle;
  beforeAll(async () => {
    h = await factory.open();
  });
  afterAll(async () => h?.close());

  const entriesOf = async (entityId: string) => h.store.listAuditEntries({ entityId, limit: 100, offset: 0 });

  it('writes a show edit\'s entry with the edit, and none when the edit is stale', async () => {
    const show = await newShow(h.store, [seated('A', 1, 2)]);
    const details = { ...detailsOf(show), title: 'Renamed' };
    const stale = draft({ entityId: show.showId, showId: show.showId });
    expect(await h.store.updateShow({ showId: show.showId, expectedVersion: show.version + 7, details, audit: stale })).toEqual({ ok: false, stale: 'show' });
    expect(await entriesOf(show.showId)).toEqual([]);
    const missing = draft({ entityId: 'shw_missing' });
    expect(await h.store.updateShow({ showId: 'shw_missing', expectedVersion: 0, details, audit: missing })).toEqual({ ok: false, code: 'SHOW_NOT_FOUND' });
    expect(await entriesOf('shw_missing')).toEqual([]);
    const good = draft({ entityId: show.showId, showId: show.showId, before: { title: show.title }, after: { title: 'Renamed' } });
    expect((await h.store.updateShow({ showId: show.showId, expectedVersion: show.version, details, audit: good })).ok).toBe(true);
    expect(await entriesOf(show.showId)).toEqual([good]);
  });

  it('writes a show creation\'s entry with the show', async () => {
    const user = await newUser(h.store);
    const show = await newShow(h.store, [seated('A', 1, 1)]);
    // newShow writes no entry; a second show created with one:
    expect(await entriesOf(show.showId)).toEqual([]);
    const other = { ...show, showId: id('show') };
    const entry = draft({ action: 'show.created', actorId: user, entityId: other.showId, showId: other.showId, before: null, after: { title: other.title } });
    await h.store.createShow({ show: other, audit: entry });
    expect(await entriesOf(other.showId)).toEqual([entry]);
  });

  it('writes a role change\'s entry only when the role changes (none for LAST_ADMIN or a stale role)', async () => {
    const admins = await h.store.listUsers({ keyPrefix: '', limit: 1000, offset: 0 });
    for (const a of admins.filter((u) => u.role === 'ADMIN')) await h.store.setRole({ userId: a.userId, expectedRole: 'ADMIN', role: 'BUYER' });
    const only = await newUser(h.store);
    expect((await h.store.setRole({ userId: only, expectedRole: 'BUYER', role: 'ADMIN', audit: draft({ entityType: 'user', entityId: only, showId: null, action: 'user.role_granted' }) })).ok).toBe(true);
    expect(await entriesOf(only)).toHaveLength(1);
    const refused = draft({ entityType: 'user', entityId: only, showId: null, action: 'user.role_withdrawn' });
    expect(await h.store.setRole({ userId: only, expectedRole: 'ADMIN', role: 'BUYER', audit: refused })).toEqual({ ok: false, code: 'LAST_ADMIN' });
    expect(await h.store.setRole({ userId: only, expectedRole: 'STAFF', role: 'BUYER', audit: refused })).toEqual({ ok: false, stale: 'user' });
    expect((await entriesOf(only)).map((e) => e.action)).toEqual(['user.role_granted']);
  });

  it('writes a webhook\'s entries with its creation and deletion, none when the cap refuses it or it is unknown', async () => {
    const hook = (): Webhook => ({ webhookId: id('whk'), url: 'http://127.0.0.1:9/h', events: ['order.paid'], secret: 's', status: 'ACTIVE', createdAt: T0, disabledReason: null });
    const existing = (await h.store.listWebhooks({ limit: 1000, offset: 0 })).length;
    const refused = hook();
    expect(await h.store.insertWebhook(refused, existing, draft({ entityType: 'webhook', entityId: refused.webhookId, showId: null }))).toEqual({ ok: false, code: 'WEBHOOK_LIMIT_REACHED' });
    expect(await entriesOf(refused.webhookId)).toEqual([]);
    const w = hook();
    expect(await h.store.insertWebhook(w, existing + 1, draft({ action: 'webhook.created', entityType: 'webhook', entityId: w.webhookId, showId: null, at: T0 }))).toEqual({ ok: true });
    expect(await h.store.deleteWebhook(w.webhookId, draft({ action: 'webhook.deleted', entityType: 'webhook', entityId: w.webhookId, showId: null, at: T0 + 1 }))).toBe(true);
    expect(await h.store.deleteWebhook(w.webhookId, draft({ action: 'webhook.deleted', entityType: 'webhook', entityId: w.webhookId, showId: null, at: T0 + 2 }))).toBe(false);
    expect((await entriesOf(w.webhookId)).map((e) => e.action)).toEqual(['webhook.deleted', 'webhook.created']);
  });

  it('reads the log newest first with each filter, paged', async () => {
    const base = T0 + 1_000_000;
    const actor = id('usr');
    const entity = id('shw');
    const rows = [
      draft({ actorId: actor, entityId: entity, showId: entity, at: base + 1 }),
      draft({ actorId: actor, entityId: entity, showId: entity, at: base + 2, action: 'show.created' }),
      draft({ actorId: actor, entityType: 'user', entityId: id('usr'), showId: null, at: base + 3, action: 'user.role_granted' }),
      draft({ actorId: id('usr'), entityId: entity, showId: entity, at: base + 4 }),
    ];
    // Written through operations that carry them (show edits on a real show would need versions; a webhook's pair is simplest).
    for (const r of rows) {
      const w: Webhook = { webhookId: id('whk'), url: 'http://127.0.0.1:9/h', events: ['order.paid'], secret: 's', status: 'ACTIVE', createdAt: T0, disabledReason: null };
      await h.store.insertWebhook(w, 1_000_000, r);
      await h.store.deleteWebhook(w.webhookId);
    }
    const ids = (list: readonly AuditEntryDraft[]) => list.map((e) => e.entryId);
    expect(ids(await h.store.listAuditEntries({ actorId: actor, limit: 100, offset: 0 }))).toEqual([rows[2], rows[1], rows[0]].map((r) => r!.entryId));
    expect(ids(await h.store.listAuditEntries({ actorId: actor, entityType: 'user', limit: 100, offset: 0 }))).toEqual([rows[2]!.entryId]);
    expect(ids(await h.store.listAuditEntries({ entityId: entity, limit: 100, offset: 0 }))).toEqual([rows[3], rows[1], rows[0]].map((r) => r!.entryId));
    expect(ids(await h.store.listAuditEntries({ entityId: entity, from: base + 2, until: base + 4, limit: 100, offset: 0 }))).toEqual([rows[1]!.entryId]);
    expect(ids(await h.store.listAuditEntries({ actorId: actor, withShowOnly: true, limit: 100, offset: 0 }))).toEqual([rows[1], rows[0]].map((r) => r!.entryId));
    expect(ids(await h.store.listAuditEntries({ actorId: actor, limit: 1, offset: 1 }))).toEqual([rows[1]!.entryId]);
    expect(await h.store.listAuditEntries({ actorId: actor, limit: 100, offset: 0 }).then((l) => l[2])).toEqual(rows[0]);
  });
});
