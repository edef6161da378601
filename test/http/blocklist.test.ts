import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, ApiClient, createShow } from '../support/api-client.js';
import { startTestNode, type TestNode } from '../support/backend.js';

/**
 * Issue 24 item 4: an admin blocks a buyer or an address range; the buyer's buying routes answer
 * 403 BLOCKED from memory while reads still work, and their active holds are released.
 */
let t: TestNode;
let admin: ApiClient;
let showId: string;
let clockOffsetMs = 0;
const hooked: string[] = [];

beforeAll(async () => {
  t = await startTestNode({ listen: false, clock: { now: () => Date.now() + clockOffsetMs } });
  t.node.blocklist.hooks.onBuyerBlocked.push(async (userId) => { hooked.push(userId); });
  admin = await adminClient(t.node.app);
  showId = await createShow(admin, { maxSeatsPerUser: 20 });
});
afterAll(async () => t.close());

const block = (body: object) => admin.request('POST', '/api/v1/admin/blocklist', body);

describe('blocking a buyer', () => {
  it('refuses their buying routes with 403 BLOCKED, releases their holds, keeps reads working, and lifts cleanly', async () => {
    const mallory = await new ApiClient(t.node.app).signUp('mallory');
    const held = await mallory.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-1-1', 'A-1-2'] });
    expect(held.status).toBe(201);
    const blocked = await block({ username: 'MALLORY', reason: 'scalping bot' });
    expect(blocked.status).toBe(201);
    expect(blocked.body).toMatchObject({ kind: 'USER', username: 'mallory', ip: null, reason: 'scalping bot', status: 'ACTIVE', expiresAt: null });
    // Her hold was released: the seats are free again, and the hook list ran with her id.
    expect((await mallory.request('GET', '/api/v1/me/holds')).body.holds).toEqual([]);
    expect((await t.node.ctx.store.getHold(held.body.holdId))?.status).toBe('RELEASED');
    expect(hooked).toContain(blocked.body.userId);
    // Buying routes: 403 BLOCKED.
    const hold = await mallory.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-1-3'] });
    expect({ status: hold.status, code: hold.body.code }).toEqual({ status: 403, code: 'BLOCKED' });
    expect((await mallory.request('POST', '/api/v1/orders', { holdId: held.body.holdId }, { 'x-idempotency-key': 'm-1' })).body.code).toBe('BLOCKED');
    expect((await mallory.request('POST', '/api/v1/code-pools/cpl_x/grab')).body.code).toBe('BLOCKED');
    expect((await mallory.request('POST', '/api/v1/bargain-orders/bgo_x/cuts')).body.code).toBe('BLOCKED');
    expect((await mallory.request('POST', `/api/v1/shows/${showId}/waitlist`, { quantity: 1 })).body.code).toBe('BLOCKED');
    // Reads still work.
    expect((await mallory.request('GET', `/api/v1/shows/${showId}`)).status).toBe(200);
    expect((await mallory.request('GET', '/api/v1/me/orders')).status).toBe(200);
    // Listed, then lifted: buying works again at once.
    expect((await admin.request('GET', '/api/v1/admin/blocklist')).body.entries.map((e: { blockId: string }) => e.blockId)).toContain(blocked.body.blockId);
    const lifted = await admin.request('DELETE', `/api/v1/admin/blocklist/${blocked.body.blockId}`);
    expect(lifted.body).toMatchObject({ status: 'LIFTED' });
    expect((await mallory.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-1-3'] })).status).toBe(201);
    expect((await admin.request('DELETE', `/api/v1/admin/blocklist/${blocked.body.blockId}`)).body.code).toBe('BLOCK_NOT_FOUND');
    expect((await admin.request('GET', '/api/v1/admin/blocklist')).body.entries.map((e: { blockId: string }) => e.blockId)).not.toContain(blocked.body.blockId);
  });

  it('stops blocking at its expiry', async () => {
    const eve = await new ApiClient(t.node.app).signUp('eve-expiring');
    const blocked = await block({ username: 'eve-expiring', reason: 'cool off', expiresAt: new Date(Date.now() + clockOffsetMs + 60_000).toISOString() });
    expect(blocked.status).toBe(201);
    expect((await eve.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-2-1'] })).body.code).toBe('BLOCKED');
    clockOffsetMs += 61_000;
    expect((await eve.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-2-1'] })).status).toBe(201);
  });

  it('does not touch other buyers', async () => {
    await new ApiClient(t.node.app).signUp('bad-one');
    const good = await new ApiClient(t.node.app).signUp('good-one');
    expect((await block({ username: 'bad-one', reason: 'bot' })).status).toBe(201);
    expect((await good.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-3-1'] })).status).toBe(201);
  });
});

describe('blocking an address range', () => {
  it('refuses every buyer from inside the CIDR and no one outside it', async () => {
    await new ApiClient(t.node.app).signUp('behind-nat');
    const login = await t.node.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { username: 'behind-nat', password: 'password-123' } });
    const bearer = `Bearer ${(login.json() as { token: string }).token}`;
    const holdFrom = async (ip: string, seat: string) => {
      const r = await t.node.app.inject({ method: 'POST', url: `/api/v1/shows/${showId}/holds`, payload: { seatIds: [seat] }, remoteAddress: ip, headers: { authorization: bearer } });
      return { status: r.statusCode, code: (r.json() as { code?: string }).code };
    };
    const entry = await block({ ip: '203.0.113.0/24', reason: 'bot farm' });
    expect(entry.body).toMatchObject({ kind: 'IP', ip: '203.0.113.0/24', username: null });
    expect(await holdFrom('203.0.113.77', 'A-4-1')).toEqual({ status: 403, code: 'BLOCKED' });
    expect(await holdFrom('::ffff:203.0.113.78', 'A-4-1')).toEqual({ status: 403, code: 'BLOCKED' });
    expect((await holdFrom('203.0.114.1', 'A-4-1')).status).toBe(201);
    // Reads from inside still work.
    expect((await t.node.app.inject({ method: 'GET', url: `/api/v1/shows/${showId}`, remoteAddress: '203.0.113.77' })).statusCode).toBe(200);
    const v6 = await block({ ip: '2001:db8::/32', reason: 'v6 farm' });
    expect(v6.status).toBe(201);
    expect((await holdFrom('2001:db8::5', 'A-4-2')).code).toBe('BLOCKED');
  });
});

describe('bad input and roles', () => {
  it('answers stable codes, never a 500', async () => {
    expect((await block({ username: 'nobody-here', reason: 'x' })).body.code).toBe('USER_NOT_FOUND');
    expect((await block({ ip: '300.1.1.1', reason: 'x' })).body.code).toBe('INVALID_BLOCK');
    expect((await block({ ip: '10.0.0.0/33', reason: 'x' })).body.code).toBe('INVALID_BLOCK');
    // Every address at once (issue 33): refused, in every spelling; nothing is added.
    for (const ip of ['0.0.0.0/0', '::/0', '1.2.3.4/0', '::ffff:0.0.0.0/0']) {
      expect({ ip, ...(await block({ ip, reason: 'x' })).body }).toMatchObject({ ip, code: 'INVALID_BLOCK' });
    }
    expect((await admin.request('GET', '/api/v1/admin/blocklist')).body.entries.filter((e: { ip: string | null }) => e.ip?.endsWith('/0'))).toEqual([]);
    // An ADMIN account, the caller's own included: refused (demote first; the last ADMIN cannot be demoted).
    expect({ ...(await block({ username: 'admin', reason: 'x' })).body }).toMatchObject({ code: 'INVALID_BLOCK' });
    expect((await block({ ip: '10.0.0.1', reason: '   ' })).body.code).toBe('INVALID_BLOCK');
    expect((await block({ ip: '10.0.0.1', reason: 'x', expiresAt: new Date(Date.now() - 1000).toISOString() })).body.code).toBe('INVALID_BLOCK');
    expect((await block({ ip: '10.0.0.1' })).status).toBe(400);
    expect((await block({ ip: '10.0.0.1', username: 'both', reason: 'x' })).status).toBe(400);
    expect((await block({ ip: '10.0.0.1', reason: 'x', expiresAt: 'tomorrow' })).status).toBe(400);
    expect((await block({ ip: '10.0.0.1', reason: 'x'.repeat(501) })).status).toBe(400);
    expect((await admin.request('DELETE', '/api/v1/admin/blocklist/blk_missing')).status).toBe(404);
    const buyer = await new ApiClient(t.node.app).signUp('plain-buyer');
    expect((await buyer.request('POST', '/api/v1/admin/blocklist', { ip: '10.0.0.1', reason: 'x' })).status).toBe(403);
    expect((await buyer.request('GET', '/api/v1/admin/blocklist')).status).toBe(403);
    expect((await new ApiClient(t.node.app).request('GET', '/api/v1/admin/blocklist')).status).toBe(401);
  });
});

it('reaches another process through the store within the refresh interval', async () => {
  // A second node over the same store (PostgreSQL), or the same node's own refresh (SQLite):
  // an entry written straight to the store, as another process would, is picked up by polling.
  const user = await new ApiClient(t.node.app).signUp('elsewhere-blocked');
  const me = await t.node.ctx.store.findUserByUsername('elsewhere-blocked');
  const now = Date.now() + clockOffsetMs;
  await t.node.ctx.store.addBlock({ blockId: 'blk_other_process', target: { kind: 'USER', userId: me!.userId, username: 'elsewhere-blocked' }, reason: 'from another process', createdBy: 'x', createdAt: now, expiresAt: null, status: 'ACTIVE', liftedAt: null });
  const deadline = Date.now() + 5_000;
  let code: string | undefined;
  while (Date.now() < deadline) {
    code = (await user.request('POST', `/api/v1/shows/${showId}/holds`, { seatIds: ['A-5-1'] })).body.code;
    if (code === 'BLOCKED') break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  expect(code).toBe('BLOCKED');
});
