import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, ApiClient, createShow } from '../support/api-client.js';
import { adminCredentials, startTestNode, type TestNode } from '../support/backend.js';

/**
 * The audit trail through the API: organizer and admin changes recorded with who, when, what,
 * before and after; a refused change recorded nowhere; the log's filters, paging bounds and
 * access (admins only).
 */
let t: TestNode & { baseUrl: string };
let admin: ApiClient;
let adminId: string;
let buyer: ApiClient;

beforeAll(async () => {
  t = await startTestNode({ env: { TICKETRUSH_RATE_LIMITS: 'off', TICKETRUSH_WEBHOOK_ALLOW_HOSTS: '127.0.0.1:9' } });
  admin = await adminClient(t.node.app);
  adminId = (await admin.request('GET', '/api/v1/me')).body.userId;
  buyer = await new ApiClient(t.node.app).signUp('audit-buyer');
}, 60_000);
afterAll(async () => t?.close());

const log = async (query: string) => admin.request('GET', `/api/v1/admin/audit-log${query}`);

describe('the audit log', () => {
  it('records show creation and edits with who, when, before and after; a refused edit leaves no entry', async () => {
    const started = new Date().toISOString();
    const showId = await createShow(admin);
    expect((await admin.request('PATCH', `/api/v1/admin/shows/${showId}`, { title: 'Renamed Show' })).status).toBe(200);
    // Ending the sale in the past is refused (409 CHANGE_NOT_ALLOWED): no entry.
    const refused = await admin.request('PATCH', `/api/v1/admin/shows/${showId}`, { saleEndsAt: '2001-01-01T00:00:00.000Z' });
    expect(refused.status).toBe(409);
    const reply = await log(`?entityId=${showId}`);
    expect(reply.status).toBe(200);
    expect(reply.body.entries.map((e: { action: string }) => e.action)).toEqual(['show.edited', 'show.created']);
    const [edited, created] = reply.body.entries;
    // Who by name too (issue 35 item 9), not only the id.
    expect(edited).toMatchObject({ actorId: adminId, actorName: adminCredentials.username, actorRole: 'ADMIN', entityType: 'show', entityId: showId, showId, before: { title: 'Test Show' }, after: { title: 'Renamed Show' } });
    expect(created).toMatchObject({ before: null, after: { title: 'Test Show', capacity: 100 } });
    expect(Date.parse(edited.at)).toBeGreaterThanOrEqual(Date.parse(started));
    expect((await log(`?entityId=${showId}&from=${encodeURIComponent(edited.at)}`)).body.entries).toHaveLength(1);
    expect((await log(`?entityId=${showId}&until=${encodeURIComponent(edited.at)}`)).body.entries.map((e: { action: string }) => e.action)).toEqual(['show.created']);
  });

  it('records roles granted and withdrawn, webhooks created and deleted, and campaigns taken offline and back', async () => {
    expect((await admin.request('PUT', '/api/v1/admin/users/audit-buyer/role', { role: 'STAFF' })).status).toBe(200);
    expect((await admin.request('PUT', '/api/v1/admin/users/audit-buyer/role', { role: 'BUYER' })).status).toBe(200);
    const buyerId = (await buyer.request('GET', '/api/v1/me')).body.userId;
    const roles = (await log(`?entityType=user&entityId=${buyerId}`)).body.entries;
    expect(roles.map((e: { action: string; before: unknown; after: unknown }) => [e.action, e.before, e.after])).toEqual([
      ['user.role_withdrawn', { username: 'audit-buyer', role: 'STAFF' }, { username: 'audit-buyer', role: 'BUYER' }],
      ['user.role_granted', { username: 'audit-buyer', role: 'BUYER' }, { username: 'audit-buyer', role: 'STAFF' }],
    ]);
    // The last admin cannot be demoted: refused, no entry.
    expect((await admin.request('PUT', '/api/v1/admin/users/admin/role', { role: 'BUYER' })).status).toBe(409);
    expect((await log(`?entityType=user&entityId=${adminId}`)).body.entries).toEqual([]);

    const hook = await admin.request('POST', '/api/v1/admin/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['order.paid'] });
    expect(hook.status).toBe(201);
    expect((await admin.request('DELETE', `/api/v1/admin/webhooks/${hook.body.webhookId}`)).status).toBe(204);
    const hooks = (await log(`?entityType=webhook&entityId=${hook.body.webhookId}`)).body.entries;
    expect(hooks.map((e: { action: string }) => e.action)).toEqual(['webhook.deleted', 'webhook.created']);
    expect(JSON.stringify(hooks)).not.toContain(hook.body.secret);

    const now = Date.now();
    const sale = await admin.request('POST', '/api/v1/admin/flash-sales', {
      title: 'Audit sale', saleStartsAt: new Date(now - 60_000).toISOString(), saleEndsAt: new Date(now + 86_400_000).toISOString(),
      items: [{ itemId: 'item', name: 'Item', priceCents: 100, originalPriceCents: 200, stock: 5 }], maxPerUser: 1,
    });
    expect(sale.status).toBe(201);
    const id = sale.body.flashSaleId;
    expect((await admin.request('PATCH', `/api/v1/admin/activities/${id}`, { status: 'OFFLINE' })).status).toBe(200);
    expect((await admin.request('PATCH', `/api/v1/admin/activities/${id}`, { status: 'ON_SALE' })).status).toBe(200);
    const sales = (await log(`?entityId=${id}`)).body.entries;
    expect(sales.map((e: { action: string }) => e.action)).toEqual(['flash_sale.published', 'flash_sale.taken_offline', 'flash_sale.created']);
    expect(sales[1]).toMatchObject({ entityType: 'flash_sale', before: { offline: false }, after: { offline: true } });
  });

  it('records blocklist entries added and lifted; a second lift (refused) leaves no entry', async () => {
    await new ApiClient(t.node.app).signUp('audit-blocked');
    const blocked = await admin.request('POST', '/api/v1/admin/blocklist', { username: 'audit-blocked', reason: 'scalping' });
    expect(blocked.status).toBe(201);
    const blockId = blocked.body.blockId as string;
    expect((await admin.request('DELETE', `/api/v1/admin/blocklist/${blockId}`)).status).toBe(200);
    expect((await admin.request('DELETE', `/api/v1/admin/blocklist/${blockId}`)).status).toBe(404);
    const entries = (await log(`?entityId=${blockId}`)).body.entries;
    expect(entries.map((e: { action: string }) => e.action)).toEqual(['blocklist.lifted', 'blocklist.added']);
    expect(entries[1]).toMatchObject({ actorId: adminId, entityType: 'blocklist', before: null, after: { kind: 'USER', username: 'audit-blocked', reason: 'scalping' } });
    expect(entries[0]).toMatchObject({ before: { status: 'ACTIVE' }, after: { status: 'LIFTED' } });
  });

  it('records waiting-room settings with before and after; settings refused (400) leave no entry', async () => {
    const showId = await createShow(admin);
    const put = (body: object) => admin.request('PUT', `/api/v1/admin/activities/${showId}/waiting-room`, body);
    expect((await put({ enabled: true, admitPerMinute: 600, admissionSeconds: 600 })).status).toBe(200);
    expect((await put({ enabled: true, admitPerMinute: 0, admissionSeconds: 600 })).status).toBe(200);
    expect((await put({ enabled: true, admitPerMinute: -1, admissionSeconds: 600 })).status).toBe(400);
    const entries = (await log(`?entityType=waiting_room&entityId=${showId}`)).body.entries;
    expect(entries).toHaveLength(2);
    expect(entries[0]).toMatchObject({ action: 'waiting_room.set', actorId: adminId, before: { admitPerMinute: 600 }, after: { admitPerMinute: 0 } });
    expect(entries[1]).toMatchObject({ before: null, after: { enabled: true, admitPerMinute: 600, admissionSeconds: 600 } });
  });

  it('records discount codes created and disabled; a code refused as taken leaves no entry', async () => {
    const body = { code: 'AUDIT10', percentOff: 10, validFrom: new Date(Date.now() - 60_000).toISOString(), validUntil: new Date(Date.now() + 86_400_000).toISOString(), maxUses: 5, perUserMax: 1 };
    expect((await admin.request('POST', '/api/v1/admin/discounts', body)).status).toBe(201);
    expect((await admin.request('POST', '/api/v1/admin/discounts', body)).status).toBe(409);
    expect((await admin.request('POST', '/api/v1/admin/discounts/AUDIT10/disable')).status).toBe(200);
    const entries = (await log('?entityType=discount&entityId=AUDIT10')).body.entries;
    expect(entries.map((e: { action: string }) => e.action)).toEqual(['discount.disabled', 'discount.created']);
    expect(entries[1]).toMatchObject({ actorId: adminId, before: null, after: { code: 'AUDIT10', maxUses: 5 } });
    expect(entries[0]).toMatchObject({ before: { status: 'ACTIVE' }, after: { status: 'DISABLED' } });
  });

  it('filters by actor and pages within its bounds', async () => {
    const all = (await log(`?actorId=${adminId}&limit=100`)).body;
    expect(all.entries.length).toBeGreaterThanOrEqual(9);
    expect(all.entries.every((e: { actorId: string }) => e.actorId === adminId)).toBe(true);
    const times = all.entries.map((e: { at: string }) => Date.parse(e.at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    const page = (await log(`?actorId=${adminId}&limit=2&offset=1`)).body;
    expect(page).toEqual({ entries: all.entries.slice(1, 3), more: true });
    expect((await log('?actorId=usr_nobody')).body).toEqual({ entries: [], more: false });
    for (const bad of ['?limit=0', '?limit=101', '?offset=-1', '?offset=10001', '?entityType=planet', '?from=yesterday', '?extra=1']) {
      const reply = await log(bad);
      expect({ bad, status: reply.status, code: reply.body.code }).toEqual({ bad, status: 400, code: 'VALIDATION_FAILED' });
    }
  });

  it('is for admins only', async () => {
    expect((await buyer.request('GET', '/api/v1/admin/audit-log')).status).toBe(403);
    expect((await new ApiClient(t.node.app).request('GET', '/api/v1/admin/audit-log')).status).toBe(401);
  });
});
